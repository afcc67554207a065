import VitrineCore
/// Counters the kiosk keeps for monitoring (`GET /metrics`): written by the
/// display thread and the decode queue, read by anyone. Each update takes a
/// short lock and never waits on a reader.
public final class KioskMetrics: Sendable {
    /// Decode-time histogram bucket upper bounds, in seconds (Prometheus `le`).
    public static let decodeBuckets: [Double] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5]
    /// Frame-gap histogram bucket upper bounds, in seconds: finest around one
    /// and two periods of a 60 Hz display (16.7 ms, 33.3 ms), the floor one
    /// period less 2 ms (14.7 ms) lands in the 15.5 ms bucket, and 3 periods (50 ms).
    public static let frameGapBuckets: [Double] = [0.005, 0.010, 0.0155, 0.0175, 0.020, 0.025, 0.0334, 0.050, 0.0667, 0.100, 0.250, 1]
    /// Frame CPU-time histogram bucket upper bounds, in seconds: from a frame on
    /// the planes (a fraction of a millisecond) to a 4K Ken Burns frame composed
    /// on a Pi's CPU (tens of milliseconds), with a 60 Hz period (16.7 ms) among them.
    public static let frameCPUBuckets: [Double] = [0.0002, 0.0005, 0.001, 0.002, 0.005, 0.010, 0.0167, 0.0334, 0.050, 0.100, 0.250, 1]

    /// Gaps between consecutive frames of one motion, as a Prometheus histogram.
    public struct GapHistogram: Hashable, Sendable {
        /// Cumulative counts per bucket of `frameGapBuckets` (the last is +Inf).
        public var bucketCounts = [Int](repeating: 0, count: KioskMetrics.frameGapBuckets.count + 1)
        public var seconds = 0.0
        public var count = 0
        public init() {}

        mutating func add(_ seconds: Double, bounds: [Double]) {
            for (index, bound) in bounds.enumerated() where seconds <= bound { bucketCounts[index] += 1 }
            bucketCounts[bounds.count] += 1
            self.seconds += seconds
            count += 1
        }
    }

    public struct Snapshot: Hashable, Sendable {
        public var framesPresented = 0
        /// Video frames by what became of them, added as each video's playback ends (the carousel pages away from it).
        public var videoFrames = VideoPacingSummary()
        public var slideChanges = 0
        public var touches = 0
        /// Cumulative counts per bucket of `decodeBuckets` (the last is +Inf).
        public var decodeBucketCounts = [Int](repeating: 0, count: KioskMetrics.decodeBuckets.count + 1)
        public var decodeSeconds = 0.0
        public var decodeCount = 0
        /// Whether the screen is lit (switched on, or woken by a touch).
        public var screenOn = true
        /// Frame gaps while a transition animates, and while a Ken Burns picture moves.
        public var frameGaps: [FrameMotion: GapHistogram] = Dictionary(uniqueKeysWithValues: FrameMotion.allCases.map { ($0, GapHistogram()) })
        /// The display thread's CPU time per frame, by the path the frame took
        /// (bucketed by `frameCPUBuckets`, which has as many bounds as `frameGapBuckets`).
        public var frameCPU: [FramePath: GapHistogram] = Dictionary(uniqueKeysWithValues: FramePath.allCases.map { ($0, GapHistogram()) })
    }

    private let mutex = Mutex()
    nonisolated(unsafe) private var current = Snapshot()

    public init() {}

    public var snapshot: Snapshot { mutex.withLock { current } }

    func framePresented() { mutex.withLock { current.framesPresented += 1 } }
    func slideChanged() { mutex.withLock { current.slideChanges += 1 } }
    func touched() { mutex.withLock { current.touches += 1 } }
    func screenLit(_ lit: Bool) { mutex.withLock { current.screenOn = lit } }

    func videoPlayed(_ pacing: VideoPacingSummary) {
        mutex.withLock {
            current.videoFrames.shown += pacing.shown
            current.videoFrames.late += pacing.late
            current.videoFrames.droppedLate += pacing.droppedLate
            current.videoFrames.droppedByDesign += pacing.droppedByDesign
        }
    }

    func frameGap(_ gap: FrameGap) {
        mutex.withLock { current.frameGaps[gap.motion, default: GapHistogram()].add(gap.duration.secondsValue, bounds: Self.frameGapBuckets) }
    }

    func frameWork(_ work: FrameWork) {
        mutex.withLock { current.frameCPU[work.path, default: GapHistogram()].add(work.cpu.secondsValue, bounds: Self.frameCPUBuckets) }
    }

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
