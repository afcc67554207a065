/// Whether the screen should be lit, as a pure function of what was asked and
/// of time: the last request (an operator's, or the schedule's at its screen-on
/// and screen-off moments), a touch on a dark screen that wakes it for a while,
/// and an emergency override, which holds it lit whatever was asked. The kiosk
/// applies the answer to the display; tests run it on virtual time.
public struct ScreenPower: Hashable, Sendable {
    /// What somebody asked the screen to be.
    public enum Request: String, Hashable, Sendable, CaseIterable {
        case on, off
    }

    /// The screen's state at an instant, and why.
    public enum State: Hashable, Sendable {
        /// Lit because it was asked to be on.
        case on
        /// Dark, as asked.
        case off
        /// Asked to be off, lit by a touch until this instant.
        case wokenByTouch(until: MonotonicInstant)
        /// Lit because an emergency override shows, whatever was asked.
        case heldByOverride

        public var isLit: Bool {
            switch self {
            case .on, .wokenByTouch, .heldByOverride: return true
            case .off: return false
            }
        }
    }

    public private(set) var requested: Request = .on
    /// How long a touch lights a screen that was asked to be off; nil: touches
    /// do not wake it.
    public var wakeOnTouch: Duration?
    private var wokenUntil: MonotonicInstant?
    /// An override is showing: the screen is lit, and a request made meanwhile
    /// takes effect when the override ends.
    public var heldByOverride = false

    public init(wakeOnTouch: Duration?) {
        self.wakeOnTouch = wakeOnTouch
    }

    /// A new request replaces the last one, and ends a touch's wake.
    public mutating func request(_ request: Request) {
        requested = request
        wokenUntil = nil
    }

    /// A finger touched the screen at `now`. While the screen is asked to be
    /// off, the touch lights it (or keeps it lit) for `wakeOnTouch`. Returns
    /// whether the screen was dark: that touch only wakes it, and must not also
    /// page or tap what nobody could see.
    public mutating func touched(at now: MonotonicInstant) -> Bool {
        let wasDark = !state(at: now).isLit
        if requested == .off, let wakeOnTouch { wokenUntil = now + wakeOnTouch }
        return wasDark
    }

    public func state(at now: MonotonicInstant) -> State {
        if heldByOverride { return .heldByOverride }
        switch requested {
        case .on:
            return .on
        case .off:
            if let wokenUntil, now < wokenUntil { return .wokenByTouch(until: wokenUntil) }
            return .off
        }
    }

    /// When the state changes next by itself (a touch's wake ending), if it will.
    public func nextChange(after now: MonotonicInstant) -> MonotonicInstant? {
        guard case .wokenByTouch(let until) = state(at: now) else { return nil }
        return until
    }
}
