import VitrineCore

/// How often one peer address may fail to authenticate: a generic cell rate
/// algorithm per address (a token bucket kept as one instant). A peer may fail
/// `policy.burst` times in a row; after that, one more try each
/// `policy.interval`, and every try it makes while it must wait is refused
/// without looking at its token. A success forgives the address.
///
/// Pure: time is a parameter, so the tests run it on virtual time. Memory is
/// bounded: at most `policy.maximumTracked` addresses are remembered; past that,
/// the ones that have recovered go first, then the one that would recover soonest.
public struct AuthenticationThrottle: Sendable {
    public struct Policy: Sendable {
        /// Failures allowed back to back before the address must wait.
        public var burst: Int = 10
        /// The steady rate after the burst: one try per interval.
        public var interval: Duration = .seconds(6)
        /// Addresses remembered at most.
        public var maximumTracked: Int = 4096
        public init(burst: Int = 10, interval: Duration = .seconds(6), maximumTracked: Int = 4096) {
            self.burst = burst
            self.interval = interval
            self.maximumTracked = maximumTracked
        }
    }

    public enum Verdict: Equatable, Sendable {
        case allowed
        /// Refused without checking the token; the peer may try again after `retryAfter`.
        case refused(retryAfter: Duration)
    }

    public let policy: Policy
    /// Per address, the instant at which it would be back to a full burst.
    private var recoveredAt: [String: MonotonicInstant] = [:]

    public init(policy: Policy = Policy()) { self.policy = policy }

    /// Addresses remembered now.
    public var trackedCount: Int { recoveredAt.count }

    /// Whether `address` may try to authenticate at `now`.
    public func verdict(for address: String, now: MonotonicInstant) -> Verdict {
        guard let recovered = recoveredAt[address] else { return .allowed }
        // One more failure would put the address at recovered + interval; it may
        // try while that stays within the burst's tolerance.
        let tolerance = policy.interval * (policy.burst - 1)
        let owed = recovered - now
        return owed <= tolerance ? .allowed : .refused(retryAfter: owed - tolerance)
    }

    public mutating func recordFailure(from address: String, now: MonotonicInstant) {
        let start = max(recoveredAt[address] ?? now, now)
        recoveredAt[address] = start + policy.interval
        if recoveredAt.count > policy.maximumTracked { evict(now: now) }
    }

    public mutating func recordSuccess(from address: String) {
        recoveredAt[address] = nil
    }

    private mutating func evict(now: MonotonicInstant) {
        recoveredAt = recoveredAt.filter { $0.value > now }
        while recoveredAt.count > policy.maximumTracked, let soonest = recoveredAt.min(by: { $0.value < $1.value }) {
            recoveredAt[soonest.key] = nil
        }
    }
}
