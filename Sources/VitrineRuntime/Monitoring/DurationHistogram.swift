import Histogram
import VitrineCore

/// Durations (input-to-scanout latencies, frame gaps) in fixed memory, for
/// the summary at exit.
///
/// A kiosk runs for months: statistics kept as a growing array of samples
/// would grow the resident set with uptime (16 bytes a frame during every
/// transition). An HdrHistogram keeps every value to three significant digits
/// in a fixed 60 KiB or so, whatever the count.
struct DurationHistogram {
    /// Microseconds, from 1 µs to 10 s; longer values count as 10 s (a frame gap
    /// or a latency that long is a stall, and its exact length no longer matters).
    /// 32-bit counts: one bucket would need 4 billion samples to overflow.
    private var histogram = Histogram<UInt32>(lowestDiscernibleValue: 1, highestTrackableValue: Self.highest,
                                              numberOfSignificantValueDigits: .three)
    private static let highest: UInt64 = 10_000_000

    mutating func record(_ duration: Duration) {
        guard duration >= .zero else { return }
        let microseconds = UInt64(duration.nanoseconds / 1_000)
        _ = histogram.record(Swift.max(1, Swift.min(microseconds, Self.highest)))
    }

    var count: UInt64 { histogram.totalCount }

    /// The histogram's own estimate of its memory, which does not depend on the count.
    var footprintBytes: Int { histogram.estimatedFootprintInBytes }

    /// "n=120 median=21.4ms p95=30.2ms max=41.0ms", or nil without samples.
    var summary: String? {
        guard histogram.totalCount > 0 else { return nil }
        func milliseconds(_ microseconds: UInt64) -> String { format(Double(microseconds) / 1_000, decimals: 1) + "ms" }
        return "n=\(histogram.totalCount) median=\(milliseconds(histogram.valueAtPercentile(50)))"
            + " p95=\(milliseconds(histogram.valueAtPercentile(95))) max=\(milliseconds(histogram.maxRecorded))"
    }
}
