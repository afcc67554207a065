import Logging
import VitrineCore

/// The screen's power for the display loop: the pure `ScreenPower` decision
/// applied to the display, rotation held while the screen is dark, and the
/// touch that wakes a dark screen kept from paging what nobody could see.
final class KioskPower {
    private(set) var power: ScreenPower
    private let logger: Logger
    /// Whether the display was last found lit; rotation is paused while it is
    /// not. nil before the first turn, so that the first state is reported too.
    private var lit: Bool?
    /// A touch woke the screen: its gesture ends before anything reaches the carousel.
    private var swallowingGesture = false

    init(wakeOnTouch: Duration?, logger: Logger) {
        power = ScreenPower(wakeOnTouch: wakeOnTouch)
        self.logger = logger
    }

    /// `power.wakeOnTouch` of the configuration on screen.
    var wakeOnTouch: Duration? {
        get { power.wakeOnTouch }
        set { power.wakeOnTouch = newValue }
    }

    func request(_ request: ScreenPower.Request, by whom: String = "an operator") {
        power.request(request)
        logger.notice("screen \(request.rawValue) requested by \(whom)")
    }

    /// An emergency override holds the screen lit while it shows.
    func holdForOverride(_ held: Bool) {
        guard held != power.heldByOverride else { return }
        power.heldByOverride = held
        logger.notice(held ? "the screen is held on while the override shows" : "the override no longer holds the screen on")
    }

    /// Whether `gesture` is for the carousel: false for every gesture of a
    /// touch that found the screen dark, from its press to its release.
    func admits(_ gesture: GestureEvent, at now: MonotonicInstant) -> Bool {
        if case .pressed = gesture, power.touched(at: now) {
            swallowingGesture = true
            logger.info(power.state(at: now).isLit ? "a touch woke the screen" : "a touch on the dark screen (wake on touch is off)")
        }
        guard swallowingGesture else { return true }
        if case .released = gesture { swallowingGesture = false }
        return false
    }

    /// The display came on or went dark.
    enum LitChange {
        /// The frame from before it went dark is stale.
        case cameOn
        case wentDark
    }

    /// Brings the display to the state `now` asks for. Returns the change, if
    /// the display's state changed (the first call reports the state it starts in).
    func apply(at now: MonotonicInstant, display: DisplayBackend, engine: inout CarouselEngine) -> LitChange? {
        let wanted = power.state(at: now).isLit
        if wanted != display.isPoweredOn {
            // A commit behind a pending flip fails: the flip's completion wakes the loop, which tries again.
            guard !display.isFlipPending else { return nil }
            do {
                try display.setPower(wanted)
            } catch {
                logger.error("cannot switch the screen \(wanted ? "on" : "off"): \(error)")
            }
        }
        let nowLit = display.isPoweredOn
        defer { lit = nowLit }
        guard nowLit != lit else { return nil }
        if nowLit {
            engine.resume(.screenOff, at: now)
            return .cameOn
        } else {
            engine.pause(.screenOff, at: now)
            return .wentDark
        }
    }

    func nextChange(after now: MonotonicInstant) -> MonotonicInstant? { power.nextChange(after: now) }
}
