import Logging
import VitrineConfig
import VitrineCore

/// What attract mode did, for the event stream and the log.
public enum AttractEvent: Hashable, Sendable {
    /// A visitor's first touch: rotation holds on `slide` (the slide under the finger).
    case engaged(slide: Int?)
    /// Nobody touched the screen for the idle time: back to `slide`, rotating again.
    case returned(slide: Int)
}

/// Attract mode in the status: whether a visitor is using the kiosk, and when
/// it goes back home if nobody touches it again.
public struct AttractStatus: Hashable, Sendable {
    public var state: AttractMode.State
    /// `touch.attract.after`.
    public var idle: Duration
    /// The home slide (in step with a group, the group's slide is used instead).
    public var home: Int

    public init(state: AttractMode.State, idle: Duration, home: Int) {
        self.state = state
        self.idle = idle
        self.home = home
    }
}

/// Attract mode for the display loop (`touch.attract`): the pure `AttractMode`
/// fed with the gestures the carousel receives, applied to the engine: a
/// visitor's first press holds rotation (`PauseReason.visitor`), and the idle
/// time's end pages home with the configured transition and lets rotation run.
/// Each step is logged once and returned as an `AttractEvent`.
final class KioskAttract {
    private var mode: AttractMode?
    /// The slides on screen meant only for nobody (`attractOnly`): out of
    /// paging from a visitor's first touch until the kiosk goes back home.
    private var attractOnly: Set<Int>
    private let logger: Logger

    init(settings: AttractMode.Settings?, attractOnly: Set<Int>, logger: Logger) {
        mode = settings.map(AttractMode.init)
        self.attractOnly = attractOnly
        self.logger = logger
    }

    /// The configuration on screen changed (the apply path). Changed settings
    /// keep a visitor's session; attract mode switched off lets rotation run.
    /// The engine may be a new one, with every slide in paging: while a visitor
    /// is engaged, the new configuration's attract-only slides leave it again.
    func update(settings: AttractMode.Settings?, attractOnly: Set<Int>, engine: inout CarouselEngine, at now: MonotonicInstant) {
        self.attractOnly = attractOnly
        guard let settings else {
            if mode != nil {
                engine.showHidden(at: now)
                engine.resume(.visitor, at: now)
            }
            mode = nil
            return
        }
        if mode == nil { mode = AttractMode(settings: settings) } else { mode?.settings = settings }
        if mode?.state != .attracting { engine.hide(attractOnly, at: now) }
    }

    /// A gesture on its way to the carousel (the screen's power admitted it).
    /// Call before the engine handles it, so that the press holds rotation first.
    func handle(_ gesture: GestureEvent, engine: inout CarouselEngine, at now: MonotonicInstant) -> AttractEvent? {
        guard var mode else { return nil }
        defer { self.mode = mode }
        switch gesture {
        case .pressed:
            guard mode.fingerDown(at: now) == .engage else { return nil }
            engine.pause(.visitor, at: now)
            // An attract-only slide under the finger gives way to the next slide a visitor may see.
            engine.hide(attractOnly, at: now)
            logger.info("a visitor touched the screen: rotation holds until nobody has touched it for \(DurationSyntax.format(mode.settings.idle))")
            return .engaged(slide: engine.currentSlide)
        case .released, .dragCancelled:
            mode.fingerUp(at: now)
            return nil
        case .dragBegan, .dragMoved, .dragEnded, .tap:
            return nil
        }
    }

    /// At each turn, before the engine advances: once nobody has touched the
    /// screen for the idle time, page home (in step with a group: to the
    /// group's slide now) and let rotation run.
    func turn(engine: inout CarouselEngine, configuration: KioskConfiguration, at now: KioskInstant) -> AttractEvent? {
        guard var mode, mode.advance(to: now.monotonic) == .returnHome else { return nil }
        self.mode = mode
        let home = SyncedRotationFollower.groupSlide(for: configuration, atWallNanoseconds: now.wallNanoseconds)
            ?? mode.homeSlide(slideCount: configuration.slides.count)
        engine.showHidden(at: now.monotonic)
        engine.perform(.goTo(home), at: now.monotonic, cause: .automatic)
        engine.resume(.visitor, at: now.monotonic)
        logger.info("nobody touched the screen for \(DurationSyntax.format(mode.settings.idle)): back to slide \(home), rotating again")
        return .returned(slide: home)
    }

    /// When the loop must wake for the idle time's end.
    var deadline: MonotonicInstant? { mode?.deadline }

    var status: AttractStatus? {
        mode.map { AttractStatus(state: $0.state, idle: $0.settings.idle, home: $0.settings.home) }
    }
}
