import VitrineConfig
import VitrineCore

/// When a follower polls its channel next. Pure: randomness comes in as a
/// generator, so tests run it on a seeded one.
///
/// - After a poll that reached the origin (whatever it answered): `interval`
///   plus a random extra from zero to `jitter`, so kiosks started together
///   (after a power cut) drift apart rather than polling in step.
/// - After the n-th error in a row (no answer, a timeout, a 5xx): exponential
///   backoff with jitter. The ceiling is `backoffBase × 2^(n−1)`, capped at
///   `backoffLimit`, and the wait is uniform between half the ceiling and the
///   ceiling ("equal jitter"): it keeps growing, so an origin that is down is
///   not hammered, and it is spread, so an origin coming back is not stampeded
///   by a fleet that failed at the same moment.
/// - The first success resets the count: the next wait is `interval` again.
public struct ChannelPollPolicy: Hashable, Sendable {
    public var interval: Duration
    /// The largest random extra added to `interval`.
    public var jitter: Duration
    /// The ceiling after the first error.
    public var backoffBase: Duration
    /// The ceiling never grows beyond this.
    public var backoffLimit: Duration

    public init(interval: Duration, jitter: Duration, backoffBase: Duration, backoffLimit: Duration) {
        self.interval = interval
        self.jitter = max(jitter, .zero)
        self.backoffBase = max(backoffBase, .milliseconds(1))
        self.backoffLimit = max(backoffLimit, self.backoffBase)
    }

    /// The policy a `channel` section asks for: backoff from `min(poll, 30s)`
    /// up to `max(poll, 10 minutes)`.
    public init(_ channel: ChannelConfiguration) {
        self.init(interval: channel.poll, jitter: channel.jitter.maximum(for: channel.poll),
                  backoffBase: min(channel.poll, Self.defaultBackoffBase), backoffLimit: max(channel.poll, Self.defaultBackoffLimit))
    }

    public static let defaultBackoffBase: Duration = .seconds(30)
    public static let defaultBackoffLimit: Duration = .seconds(600)

    /// The wait after a poll that reached the origin.
    public func delayAfterSuccess(using random: inout some RandomNumberGenerator) -> Duration {
        interval + Self.uniform(.zero, jitter, using: &random)
    }

    /// The wait after the `failures`-th error in a row (1 for the first).
    public func delayAfterFailure(_ failures: Int, using random: inout some RandomNumberGenerator) -> Duration {
        let ceiling = backoffCeiling(afterFailures: failures)
        return Self.uniform(ceiling / 2, ceiling, using: &random)
    }

    /// `backoffBase × 2^(failures−1)`, capped at `backoffLimit`.
    public func backoffCeiling(afterFailures failures: Int) -> Duration {
        var ceiling = backoffBase
        var doublings = max(failures, 1) - 1
        // Doubling stops at the limit, so no count of failures overflows or loops long.
        while doublings > 0, ceiling < backoffLimit {
            ceiling *= 2
            doublings -= 1
        }
        return min(ceiling, backoffLimit)
    }

    private static func uniform(_ low: Duration, _ high: Duration, using random: inout some RandomNumberGenerator) -> Duration {
        guard high > low else { return low }
        return .nanoseconds(Int64.random(in: low.nanoseconds...high.nanoseconds, using: &random))
    }
}
