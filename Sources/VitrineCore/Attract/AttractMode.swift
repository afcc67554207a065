/// Attract mode for a touch kiosk, as a state machine on monotonic time: a
/// visitor's first touch holds rotation on what they are looking at, and once
/// nobody has touched the screen for `idle` after the last finger lifted, the
/// kiosk goes back to its home slide and rotates again, to attract the next one.
///
/// Nothing here reads a clock or touches the carousel: each call takes `now`
/// and answers what the loop must do (`Action`), which the runtime applies to
/// the engine. libinput's state machines are the model: one function per
/// input, an exhaustive switch on the state in each.
public struct AttractMode: Hashable, Sendable {
    /// The configuration's `touch.attract`.
    public struct Settings: Hashable, Sendable {
        /// How long after the last finger lifts the kiosk goes back.
        public var idle: Duration
        /// The slide it goes back to (clamped to the playlist on screen), unless
        /// it rotates in step with a group: then it goes to the group's slide.
        public var home: Int

        public init(idle: Duration, home: Int = 0) {
            self.idle = idle
            self.home = home
        }
    }

    public enum State: Hashable, Sendable {
        /// Nobody is using the kiosk: it rotates as configured.
        case attracting
        /// A finger is on the screen.
        case touched
        /// The last finger lifted at `since`; back home at `since + idle`
        /// unless a finger comes down first.
        case idle(since: MonotonicInstant)
    }

    /// What the loop must do.
    public enum Action: Hashable, Sendable {
        /// A visitor took over: hold rotation (`PauseReason.visitor`) on what they see.
        case engage
        /// Nobody touched for `idle`: page to the home slide with the normal
        /// transition, and let rotation run again.
        case returnHome
    }

    public var settings: Settings
    public private(set) var state: State = .attracting

    public init(settings: Settings) {
        self.settings = settings
    }

    /// A finger came down (a gesture's press, the screen lit).
    public mutating func fingerDown(at now: MonotonicInstant) -> Action? {
        switch state {
        case .attracting:
            state = .touched
            return .engage
        case .touched:
            return nil
        case .idle:
            // Still engaged: rotation is held already; the countdown stops.
            state = .touched
            return nil
        }
    }

    /// The last finger lifted, or its touch was cancelled.
    public mutating func fingerUp(at now: MonotonicInstant) {
        switch state {
        case .touched:
            state = .idle(since: now)
        case .attracting, .idle:
            break
        }
    }

    /// When `advance` next has something to do: the end of the idle time.
    public var deadline: MonotonicInstant? {
        switch state {
        case .idle(let since): return since + settings.idle
        case .attracting, .touched: return nil
        }
    }

    /// Brings the state up to `now`: `.returnHome` once the idle time is over.
    public mutating func advance(to now: MonotonicInstant) -> Action? {
        switch state {
        case .idle(let since) where now >= since + settings.idle:
            state = .attracting
            return .returnHome
        case .idle, .attracting, .touched:
            return nil
        }
    }

    /// The slide to go back to in a playlist of `slideCount` slides.
    public func homeSlide(slideCount: Int) -> Int {
        slideCount > 0 ? min(max(0, settings.home), slideCount - 1) : 0
    }
}
