import Testing
@testable import VitrineRuntime

@Suite("Latency and pacing statistics in fixed memory")
struct DurationHistogramTests {
    @Test func summaryOfKnownValues() {
        var histogram = DurationHistogram()
        #expect(histogram.summary == nil)
        // 1 ms ... 100 ms, one each: median 50 ms, p95 95 ms, max 100 ms.
        for milliseconds in 1...100 { histogram.record(.milliseconds(milliseconds)) }
        histogram.record(.milliseconds(-1))  // a clock oddity is not a sample
        #expect(histogram.count == 100)
        #expect(histogram.summary == "n=100 median=50ms p95=95ms max=100ms")
    }

    /// The shape a soak needs: a million frames cost what ten did. The array this
    /// replaces grew by 16 bytes a sample up to 1.6 MB.
    @Test func memoryDoesNotGrowWithTheCount() {
        var histogram = DurationHistogram()
        for gap in 0..<10 { histogram.record(.microseconds(16_000 + gap)) }
        let small = histogram.footprintBytes
        for gap in 0..<1_000_000 { histogram.record(.microseconds(10_000 + gap % 20_000)) }
        #expect(histogram.footprintBytes == small)
        #expect(small < 64 * 1024, "footprint \(small) bytes")
        #expect(histogram.count == 1_000_010)
    }

    @Test func extremesAreClampedNotLost() {
        var histogram = DurationHistogram()
        histogram.record(.zero)
        histogram.record(.seconds(3600))
        #expect(histogram.count == 2)
        #expect(histogram.summary == "n=2 median=0ms p95=10000ms max=10000ms", "\(histogram.summary ?? "")")
    }
}
