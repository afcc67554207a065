import Testing
@testable import VitrineDoctor

/// `vitrine doctor --pacing`'s section from what the kiosk's metrics counted:
/// gaps read off the histogram's bounds, paths with their CPU time per frame,
/// and a warning where frames come late or stall.
@Suite("Doctor: pacing")
struct PacingReportTests {
    /// The kiosk's frame-gap bounds, in seconds.
    static let bounds: [Double] = [0.005, 0.010, 0.0155, 0.0175, 0.020, 0.025, 0.0334, 0.050, 0.0667, 0.100, 0.250, 1]

    /// Cumulative counts for gaps falling in the buckets of `bounds` at these indices (the last index: +Inf).
    static func counts(_ gaps: [Int: Int]) -> [Int] {
        var cumulative: [Int] = []
        var total = 0
        for index in 0...bounds.count {
            total += gaps[index] ?? 0
            cumulative.append(total)
        }
        return cumulative
    }

    @Test func gapsArePlacedOnTheHistogramsBoundsAndFramesOnTheirPaths() {
        // 90 gaps of one period (the 17.5 ms bucket), 8 of two, 2 of three (50 ms) at 60 Hz.
        let smooth = PacingFigures(kind: "slide transition", refreshHz: 60, gapBounds: Self.bounds,
                                   gapCounts: Self.counts([3: 90, 6: 8, 7: 2]),
                                   paths: [("planes", 100, 0.04), ("mixed", 2, 0.05), ("cpu", 1, 0.008)])
        #expect(smooth.gaps == 100)
        #expect(smooth.bound(holding: 0.5) == 0.0175 && smooth.bound(holding: 0.95) == 0.0334 && smooth.bound(holding: 1) == 0.050)
        let section = PacingReport.section(outputs: [("/dev/dri/card1 HDMI-A-1", "1920x1080@60", [smooth])], seconds: 10)
        #expect(section.status == .ok && section.subsections.count == 1)
        let fact = section.subsections[0].facts[0]
        #expect(fact.name == "slide transition")
        #expect(fact.value == "100 frame gaps: median ≤ 17.5 ms, 95 % ≤ 33.4 ms, worst ≤ 50.0 ms (one period 16.7 ms); "
                    + "100 planes at 0.4 ms CPU each, 2 mixed at 25.0 ms CPU each, 1 cpu at 8.0 ms CPU each")
    }

    @Test func lateFramesAStallAndNoFramesAreWarnings() {
        let late = PacingFigures(kind: "crossfade", refreshHz: 60, gapBounds: Self.bounds, gapCounts: Self.counts([6: 60, 7: 10]),
                                 paths: [("cpu", 71, 2.0)])
        let stalled = PacingFigures(kind: "slide transition", refreshHz: 60, gapBounds: Self.bounds,
                                    gapCounts: Self.counts([3: 99, 10: 1]), paths: [("planes", 100, 0.04)])
        let none = PacingFigures(kind: "Ken Burns", refreshHz: 60, gapBounds: Self.bounds, gapCounts: Self.counts([:]), paths: [])
        let section = PacingReport.section(outputs: [("card0 Virtual-1", "1024x768@60", [late, stalled, none])], seconds: 3)
        #expect(section.status == .warning && section.subsections[0].status == .warning)
        #expect(section.subsections[0].findings == [
            "crossfade: frames come late: the median gap is over one and a half refresh periods.",
            "slide transition: a frame came over four refresh periods after the one before (a stall).",
            "Ken Burns: no frames of the motion were presented in 3 s.",
        ])
        #expect(PacingReport.section(outputs: [], seconds: 3).status == .unavailable)
    }
}
