import Testing
import VitrineCore
@testable import VitrineHTTP

/// The throttle on virtual time.
@Suite("API: authentication throttle")
struct AuthenticationThrottleTests {
    let policy = AuthenticationThrottle.Policy(burst: 3, interval: .seconds(6), maximumTracked: 4)

    @Test func aBurstIsAllowedThenOneTryPerInterval() {
        var throttle = AuthenticationThrottle(policy: policy)
        let start = MonotonicInstant.seconds(100)
        for _ in 0..<3 {
            #expect(throttle.verdict(for: "10.0.0.9", now: start) == .allowed)
            throttle.recordFailure(from: "10.0.0.9", now: start)
        }
        #expect(throttle.verdict(for: "10.0.0.9", now: start) == .refused(retryAfter: .seconds(6)))
        #expect(throttle.verdict(for: "10.0.0.9", now: start + .seconds(5.5)) == .refused(retryAfter: .milliseconds(500)))
        #expect(throttle.verdict(for: "10.0.0.10", now: start) == .allowed, "other addresses are not affected")
        // After one interval, one more try; failing it means waiting a whole interval again.
        let later = start + .seconds(6)
        #expect(throttle.verdict(for: "10.0.0.9", now: later) == .allowed)
        throttle.recordFailure(from: "10.0.0.9", now: later)
        #expect(throttle.verdict(for: "10.0.0.9", now: later + .seconds(1)) == .refused(retryAfter: .seconds(5)))
        // A full recovery after burst × interval of quiet.
        let quiet = later + .seconds(18)
        for _ in 0..<3 {
            #expect(throttle.verdict(for: "10.0.0.9", now: quiet) == .allowed)
            throttle.recordFailure(from: "10.0.0.9", now: quiet)
        }
        #expect(throttle.verdict(for: "10.0.0.9", now: quiet) != .allowed)
    }

    @Test func aSuccessForgivesTheAddress() {
        var throttle = AuthenticationThrottle(policy: policy)
        for _ in 0..<3 { throttle.recordFailure(from: "a", now: .zero) }
        #expect(throttle.verdict(for: "a", now: .zero) != .allowed)
        throttle.recordSuccess(from: "a")
        #expect(throttle.verdict(for: "a", now: .zero) == .allowed)
        #expect(throttle.trackedCount == 0)
    }

    /// A peer spraying from many addresses cannot grow the table past its bound;
    /// recovered addresses go first, then the one that recovers soonest.
    @Test func theTableIsBounded() {
        var throttle = AuthenticationThrottle(policy: policy)
        for index in 0..<1000 { throttle.recordFailure(from: "10.0.\(index / 256).\(index % 256)", now: .seconds(Double(index))) }
        #expect(throttle.trackedCount <= 4)
        // The newest addresses are the ones kept.
        for _ in 0..<3 { throttle.recordFailure(from: "10.0.3.231", now: .seconds(999)) }
        #expect(throttle.verdict(for: "10.0.3.231", now: .seconds(999)) != .allowed)
    }
}
