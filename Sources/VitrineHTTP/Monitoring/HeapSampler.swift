import Synchronization
import VitrineCore
import VitrineRuntime
import VitrineSystem

/// The heap statistics `/metrics` reports, read at most once per `interval`.
///
/// `mallinfo2` takes every malloc arena's lock in turn, and the display
/// thread allocates while it decodes: on a public route, a caller could
/// otherwise make the kiosk take those locks as often as it liked. Callers
/// within `interval` of the last reading get that reading; concurrent callers
/// share one. One second keeps Tests/Soak/per_op.py's readings, a second
/// apart, each fresh.
final class HeapSampler: Sendable {
    let interval: Duration
    private let clock: @Sendable () -> MonotonicInstant
    private let read: @Sendable () -> HeapStatistics.Sample
    private let kept = Mutex<(sample: HeapStatistics.Sample, at: MonotonicInstant)?>(nil)

    init(interval: Duration = .milliseconds(1000), clock: @escaping @Sendable () -> MonotonicInstant = { MonotonicClock.now() },
         read: @escaping @Sendable () -> HeapStatistics.Sample = { HeapStatistics.sample() }) {
        self.interval = interval
        self.clock = clock
        self.read = read
    }

    func sample() -> HeapStatistics.Sample {
        // Read under the lock, so that callers arriving together wait for one reading rather than each take their own.
        kept.withLock { kept in
            let now = clock()
            if let kept, now - kept.at < interval { return kept.sample }
            let sample = read()
            kept = (sample, now)
            return sample
        }
    }
}
