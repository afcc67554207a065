/// Counters the kiosk keeps for monitoring (`GET /metrics`): written by the
/// display thread and the decode queue, read by anyone. Each update takes a
/// short lock and never waits on a reader.
public final class KioskMetrics: Sendable {
    /// Decode-time histogram bucket upper bounds, in seconds (Prometheus `le`).
    public static let decodeBuckets: [Double] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5]

    public struct Snapshot: Hashable, Sendable {
        public var framesPresented = 0
        public var slideChanges = 0
        public var touches = 0
        /// Cumulative counts per bucket of `decodeBuckets` (the last is +Inf).
        public var decodeBucketCounts = [Int](repeating: 0, count: KioskMetrics.decodeBuckets.count + 1)
        public var decodeSeconds = 0.0
        public var decodeCount = 0
        /// Whether the screen is lit (switched on, or woken by a touch).
        public var screenOn = true
    }

    private let mutex = Mutex()
    nonisolated(unsafe) private var current = Snapshot()

    public init() {}

    public var snapshot: Snapshot { mutex.withLock { current } }

    func framePresented() { mutex.withLock { current.framesPresented += 1 } }
    func slideChanged() { mutex.withLock { current.slideChanges += 1 } }
    func touched() { mutex.withLock { current.touches += 1 } }
    func screenLit(_ lit: Bool) { mutex.withLock { current.screenOn = lit } }

    func decoded(in duration: Duration) {
        let seconds = duration.secondsValue
        mutex.withLock {
            for (index, bound) in Self.decodeBuckets.enumerated() where seconds <= bound {
                current.decodeBucketCounts[index] += 1
            }
            current.decodeBucketCounts[Self.decodeBuckets.count] += 1
            current.decodeSeconds += seconds
            current.decodeCount += 1
        }
    }
}
