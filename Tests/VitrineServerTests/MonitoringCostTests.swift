import Synchronization
import Testing
import VitrineCore
import VitrineRuntime
@testable import VitrineHTTP

/// What `/healthz` and `/metrics` cost per call: one display probe at a time,
/// shared and briefly kept, and heap figures read at most once per interval.
@Suite("API: the public monitoring routes' cost")
struct MonitoringCostTests {
    /// 50 callers at once, over two loops whose pings take 200 ms: one ping per
    /// loop, and each caller gets that one reading. Within `freshFor` a caller
    /// gets it again without a ping; after, a new probe. Before, every call pinged every loop and started its own timer.
    @Test func concurrentHealthCallersShareOneProbe() async throws {
        let loops = [FakeDisplayLoop(), FakeDisplayLoop()]
        for loop in loops { loop.pingDelay = .milliseconds(200) }
        let groups = loops.enumerated().map { OutputGroupLink(connectors: ["HDMI-A-\($0.offset + 1)"], loop: $0.element) }
        // Kept 2 s: long enough that a machine busy with other suites still asks again within it.
        let probe = DisplayHealthProbe(freshFor: .seconds(2))
        let readings = await withTaskGroup(of: DisplayHealthProbe.Reading.self) { tasks in
            for _ in 0..<50 { tasks.addTask { await probe.reading(of: groups) } }
            return await tasks.reduce(into: []) { $0.append($1) }
        }
        #expect(readings.count == 50 && readings.allSatisfy { $0.allAnswered })
        #expect(readings.allSatisfy { $0 == readings[0] }, "every caller got the one reading")
        #expect(loops.map(\.pings) == [1, 1])
        _ = await probe.reading(of: groups)
        #expect(loops.map(\.pings) == [1, 1], "kept for freshFor")
        try await Task.sleep(for: .milliseconds(2100))
        _ = await probe.reading(of: groups)
        #expect(loops.map(\.pings) == [2, 2], "asked again once the reading is old")
    }

    /// A stalled reading is not kept: the next call asks again, so a thread that recovers is seen at once.
    @Test func aStalledReadingIsNotKept() async throws {
        let loop = FakeDisplayLoop()
        loop.pingDelay = .milliseconds(600)
        let groups = [OutputGroupLink(connectors: [], loop: loop)]
        let probe = DisplayHealthProbe(freshFor: .seconds(10), timeout: .milliseconds(200))
        let stalled = await probe.reading(of: groups)
        #expect(!stalled.allAnswered && stalled.waited >= .milliseconds(200))
        loop.pingDelay = nil
        let recovered = await probe.reading(of: groups)
        #expect(recovered.allAnswered && loop.pings == 2)
    }

    /// The heap is read once per interval, however many callers.
    @Test func heapFiguresAreReadAtMostOncePerInterval() {
        let reads = Atomic(0)
        let now = Mutex(MonotonicInstant(nanoseconds: 0))
        let sampler = HeapSampler(interval: .seconds(1), clock: { now.withLock { $0 } }, read: {
            HeapStatistics.Sample(bytesInUse: reads.add(1, ordering: .relaxed).newValue, bytesHeld: 0)
        })
        for _ in 0..<1000 { #expect(sampler.sample().bytesInUse == 1) }
        now.withLock { $0 = MonotonicInstant(nanoseconds: 999_000_000) }
        #expect(sampler.sample().bytesInUse == 1)
        now.withLock { $0 = MonotonicInstant(nanoseconds: 1_000_000_000) }
        #expect(sampler.sample().bytesInUse == 2)
        #expect(reads.load(ordering: .relaxed) == 2)
    }
}
