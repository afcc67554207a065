/// What the screen shows at one instant, as one value: the display loop
/// computes it once per turn from the carousel engine and the screen's power
/// at the turn's `now`; the output draws its scene and the display presents it.
///
/// Nothing here reads a clock: two engines in the same state give the same
/// presentation at the same instant, which is what tests on virtual time pin.
public struct Presentation: Hashable, Sendable {
    /// What moves the picture on its own between this turn and the next.
    public enum Motion: Hashable, Sendable {
        /// A slide rests, or waits for its successor's picture: nothing moves
        /// until a deadline, input or a decoded picture.
        case still
        /// A page change animates, `progress` (0...1) of its duration gone:
        /// a new frame is wanted at every refresh.
        case transition(progress: Double)
        /// A finger holds the picture: its movement drives the frames.
        case held
    }

    /// The instant this presentation is of.
    public var instant: MonotonicInstant
    /// Which slides show, their offsets and opacities, and the page dots.
    public var scene: Scene
    public var motion: Motion
    /// Whether the screen should be lit at `instant`, and why.
    public var screen: ScreenPower.State

    public init(instant: MonotonicInstant, scene: Scene, motion: Motion, screen: ScreenPower.State) {
        self.instant = instant
        self.scene = scene
        self.motion = motion
        self.screen = screen
    }

    /// The presentation of `engine` and `power` at `now`.
    public init(engine: CarouselEngine, power: ScreenPower, at now: MonotonicInstant) {
        let motion: Motion
        switch engine.phase {
        case .resting, .awaitingNext:
            motion = .still
        case .animating(let animation):
            let total = animation.style.effectiveDuration.nanoseconds
            let gone = total > 0 ? Double((now - animation.start).nanoseconds) / Double(total) : 1
            motion = .transition(progress: min(1, max(0, gone)))
        case .dragging:
            motion = .held
        }
        self.init(instant: now, scene: engine.scene(at: now), motion: motion, screen: power.state(at: now))
    }

    /// Whether a page change animates (frames are wanted at every refresh).
    public var isAnimating: Bool {
        if case .transition = motion { return true }
        return false
    }
}
