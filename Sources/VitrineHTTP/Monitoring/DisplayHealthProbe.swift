import Synchronization
import VitrineCore
import VitrineSystem

/// Asks every output group's display thread whether it answers, for
/// `/healthz`, at a bounded cost however often the public route is called.
///
/// One probe at a time: callers that come while one is out wait for its
/// reading rather than start their own. A reading in which every thread
/// answered is kept for `freshFor` and given to the callers that follow. A
/// stalled reading is not kept, so a thread that recovers is seen at the next
/// call; with a probe out at most one timer sleeps, for `timeout`. Before, each
/// call started its own sleeping task per loop, and a flood of calls kept
/// thousands of them.
final class DisplayHealthProbe: Sendable {
    /// What one probe saw.
    struct Reading: Sendable, Equatable {
        /// Per group, in group order: how long its thread took to answer, or nil if it did not within the timeout.
        var answers: [Duration?]
        /// How long the probe waited in all.
        var waited: Duration
        var allAnswered: Bool { answers.allSatisfy { $0 != nil } }
    }

    let freshFor: Duration
    let timeout: Duration
    private let clock: @Sendable () -> MonotonicInstant
    private let state = Mutex(State())

    private struct State {
        var kept: (reading: Reading, at: MonotonicInstant)?
        var inFlight: Task<Reading, Never>?
    }

    init(freshFor: Duration = .milliseconds(1000), timeout: Duration = StatusRoutes.displayTimeout,
         clock: @escaping @Sendable () -> MonotonicInstant = { MonotonicClock.now() }) {
        self.freshFor = freshFor
        self.timeout = timeout
        self.clock = clock
    }

    /// The latest reading of `groups`' threads: a kept one, the one being taken, or a new one.
    func reading(of groups: [OutputGroupLink]) async -> Reading {
        enum Source { case kept(Reading), probe(Task<Reading, Never>) }
        let now = clock()
        let source: Source = state.withLock { current in
            if let kept = current.kept, now - kept.at < freshFor, kept.reading.answers.count == groups.count { return .kept(kept.reading) }
            if let inFlight = current.inFlight { return .probe(inFlight) }
            let probe = Task { [self] in
                let reading = await Self.probe(groups, timeout: timeout, clock: clock)
                state.withLock { after in
                    after.inFlight = nil
                    after.kept = reading.allAnswered ? (reading, clock()) : nil
                }
                return reading
            }
            current.inFlight = probe
            return .probe(probe)
        }
        switch source {
        case .kept(let reading): return reading
        case .probe(let probe): return await probe.value
        }
    }

    /// Pings every group's loop at once, with one timer for them all.
    static func probe(_ groups: [OutputGroupLink], timeout: Duration,
                      clock: @escaping @Sendable () -> MonotonicInstant) async -> Reading {
        let asked = clock()
        let (answered, continuation) = AsyncStream.makeStream(of: (index: Int, at: MonotonicInstant).self)
        let waiting = Atomic(groups.count)
        if groups.isEmpty { continuation.finish() }
        for (index, group) in groups.enumerated() {
            group.loop.ping {
                continuation.yield((index, clock()))
                if waiting.subtract(1, ordering: .acquiringAndReleasing).newValue == 0 { continuation.finish() }
            }
        }
        let timer = Task {
            try? await Task.sleep(for: timeout)
            continuation.finish()
        }
        defer { timer.cancel() }
        var answers = [Duration?](repeating: nil, count: groups.count)
        for await answer in answered { answers[answer.index] = answer.at - asked }
        return Reading(answers: answers, waited: clock() - asked)
    }
}
