/// The power state a TV reports over HDMI-CEC (`<Report Power Status>`).
public enum TVPowerStatus: String, Hashable, Sendable, CaseIterable {
    case on
    case standby
    /// On its way on: it acted on the command and is warming up.
    case turningOn
    /// On its way to standby.
    case turningToStandby

    /// Where the TV is, or is going.
    public var isOnOrTurningOn: Bool { self == .on || self == .turningOn }
}

/// Keeps a TV's power in step with the screen's over HDMI-CEC, as a pure
/// function of what happened and when: the owner asks `due(at:)` what to send,
/// sends it, and reports how it went. Tests run it on virtual time.
///
/// Real TVs often miss a first message, or take seconds to switch and report
/// the old state meanwhile. So a command the TV acknowledged is followed by
/// questions (`<Give Device Power Status>`); while the TV reports the old state
/// it is given `resendAfter` before the command goes again, up to `maxAttempts`
/// times; a transition state (`turningOn`) is progress and only waited out. A
/// command that did not reach the TV at all (not acknowledged, a bus error, no
/// logical address because the cable is out) is retried with doubling delays,
/// without limit: it never arrived, so retrying it overrides nobody.
///
/// Once the TV is where it should be, it is asked every `watchInterval` so
/// that the status stays true. When somebody switches the TV with its own
/// remote, that is reported, not fought: the kiosk sends again only at its own
/// next screen change.
public struct TVPowerSync: Hashable, Sendable {
    public struct Policy: Hashable, Sendable {
        /// From an acknowledged command to the first question: TVs take a
        /// second or more to act, and a question too early only hears the old state.
        public var firstCheck: Duration = .seconds(2)
        /// Between questions while the TV is not yet where it should be.
        public var checkInterval: Duration = .seconds(2)
        /// How long an acknowledged command may show no effect (the TV still
        /// reports the old state, or does not answer) before it is sent again.
        public var resendAfter: Duration = .seconds(10)
        /// Acknowledged commands for one change: the first and its repeats.
        public var maxAttempts = 3
        /// The first delay after a command or question did not reach the TV; it doubles up to `maxRetryDelay`.
        public var retryDelay: Duration = .seconds(1)
        public var maxRetryDelay: Duration = .seconds(30)
        /// Between questions once the TV is where it should be, or after giving up.
        public var watchInterval: Duration = .seconds(60)

        public init() {}
    }

    /// What to send now.
    public enum Action: Hashable, Sendable {
        /// One Touch Play: `<Image View On>` and `<Active Source>`.
        case turnOn
        /// `<Standby>`.
        case standby
        /// `<Give Device Power Status>`.
        case askPowerStatus
    }

    /// How a command or question went on the bus.
    public enum Delivery: Hashable, Sendable {
        case delivered
        /// It did not reach the TV (not acknowledged, a bus error, a kernel error): why.
        case failed(String)
    }

    public enum Phase: Hashable, Sendable {
        /// Nothing asked of the TV yet.
        case idle
        /// The command for `wanted` goes now; `attempt` counts acknowledged sends, this one included.
        case sending(attempt: Int)
        /// The command did not reach the TV; it goes again at `until`.
        case retrying(attempt: Int, until: MonotonicInstant)
        /// The command was acknowledged at `sentAt`; the TV is asked at `checkAt`.
        case confirming(attempt: Int, sentAt: MonotonicInstant, checkAt: MonotonicInstant)
        /// The TV reported the wanted state; it is asked again at `checkAt`.
        case settled(checkAt: MonotonicInstant)
        /// `maxAttempts` acknowledged commands had no effect that the TV
        /// reported; it is still asked at `checkAt`, and settles if it gets there.
        case gaveUp(checkAt: MonotonicInstant)
    }

    public let policy: Policy
    /// true: the TV should be on; false: in standby; nil: nothing asked yet.
    public private(set) var wanted: Bool?
    public private(set) var phase: Phase = .idle
    /// What the TV last answered, nil when it has not (or stopped answering).
    public private(set) var reported: TVPowerStatus?
    /// Why the TV is not known to be where it should be, for the status and the log.
    public private(set) var problem: String?
    /// Deliveries that failed in a row, for the retry delay.
    private var failuresInARow = 0

    public init(policy: Policy = Policy()) {
        self.policy = policy
    }

    /// Whether the TV reported being where it should be (transitions included).
    public var isConfirmed: Bool {
        guard let wanted, let reported else { return false }
        return reported.isOnOrTurningOn == wanted
    }

    /// The screen went on (true) or off (false) at `now`: the TV should follow.
    public mutating func want(_ on: Bool, at now: MonotonicInstant) {
        guard on != wanted else { return }
        wanted = on
        problem = nil
        failuresInARow = 0
        phase = .sending(attempt: 1)
    }

    /// What to send at `now`, if anything.
    public func due(at now: MonotonicInstant) -> Action? {
        guard let wanted else { return nil }
        let command: Action = wanted ? .turnOn : .standby
        switch phase {
        case .idle:
            return nil
        case .sending:
            return command
        case .retrying(_, let until):
            return now >= until ? command : nil
        case .confirming(_, _, let checkAt), .settled(let checkAt), .gaveUp(let checkAt):
            return now >= checkAt ? .askPowerStatus : nil
        }
    }

    /// When `due` will next have something, if it will without a new `want`.
    public var nextDeadline: MonotonicInstant? {
        switch phase {
        case .idle, .sending: return nil
        case .retrying(_, let until): return until
        case .confirming(_, _, let checkAt), .settled(let checkAt), .gaveUp(let checkAt): return checkAt
        }
    }

    /// The command `due` asked for went out at `now`, and how.
    public mutating func commandSent(_ delivery: Delivery, at now: MonotonicInstant) {
        let attempt: Int
        switch phase {
        case .sending(let number), .retrying(let number, _): attempt = number
        case .idle, .confirming, .settled, .gaveUp: return
        }
        switch delivery {
        case .delivered:
            failuresInARow = 0
            phase = .confirming(attempt: attempt, sentAt: now, checkAt: now + policy.firstCheck)
        case .failed(let reason):
            problem = reason
            failuresInARow += 1
            phase = .retrying(attempt: attempt, until: now + retryDelay())
        }
    }

    /// The TV answered the question `due` asked at `now` with `status`, or did
    /// not answer (nil: not acknowledged, no reply in time, or a `<Feature Abort>`).
    public mutating func statusAnswered(_ status: TVPowerStatus?, reason: String? = nil, at now: MonotonicInstant) {
        guard let wanted else { return }
        reported = status
        if status == nil { failuresInARow += 1 } else { failuresInARow = 0 }
        let arrived = status.map { $0.isOnOrTurningOn == wanted } ?? false
        let settledHere = status == (wanted ? .on : .standby)
        switch phase {
        case .idle, .sending, .retrying:
            return
        case .confirming(let attempt, let sentAt, _):
            if settledHere {
                problem = nil
                phase = .settled(checkAt: now + policy.watchInterval)
            } else if arrived || now - sentAt < policy.resendAfter {
                // On its way, or still within the time a slow TV takes: ask again.
                phase = .confirming(attempt: attempt, sentAt: sentAt, checkAt: now + policy.checkInterval)
            } else if attempt < policy.maxAttempts {
                problem = "the TV \(Self.describe(status)) \(Self.describe(now - sentAt)) after it acknowledged \(wanted ? "Image View On" : "Standby"); sending it again"
                phase = .sending(attempt: attempt + 1)
            } else {
                problem = "the TV \(Self.describe(status)) after \(attempt) acknowledged \(wanted ? "Image View On" : "Standby") commands; giving up until the next screen change"
                phase = .gaveUp(checkAt: now + policy.watchInterval)
            }
        case .settled, .gaveUp:
            if settledHere || arrived {
                problem = nil
                phase = .settled(checkAt: now + policy.watchInterval)
            } else {
                // Switched by its own remote, or asleep: reported, not fought.
                // (After giving up, the reason given then still stands.)
                if case .settled = phase { problem = "the TV \(Self.describe(status)) while the screen is \(wanted ? "on" : "off")" }
                phase = .gaveUp(checkAt: now + policy.watchInterval)
            }
        }
        if status == nil, let reason { problem = reason }
    }

    /// `retryDelay` after the first failure in a row, doubling with each further one, at most `maxRetryDelay`.
    private func retryDelay() -> Duration {
        var delay = policy.retryDelay
        for _ in 1..<max(1, failuresInARow) where delay < policy.maxRetryDelay { delay = delay * 2 }
        return min(delay, policy.maxRetryDelay)
    }

    private static func describe(_ status: TVPowerStatus?) -> String {
        switch status {
        case nil: return "does not answer"
        case .on?: return "reports on"
        case .standby?: return "reports standby"
        case .turningOn?: return "reports turning on"
        case .turningToStandby?: return "reports going to standby"
        }
    }

    private static func describe(_ duration: Duration) -> String {
        "\(duration.components.seconds) s"
    }
}
