import Testing
import VitrineCore

@Suite struct SyncedRotationTimelineTests {
    let second: Int64 = 1_000_000_000
    /// 2026-01-01T00:00:00Z.
    let epoch = WallInstant(secondsSinceEpoch: 1_767_225_600)

    @Test func slidesBeginAtTheEpochPlusTheDurationsBeforeThem() throws {
        let inStep = try #require(SyncedRotationTimeline(epoch: epoch, dwells: [.seconds(5), .seconds(2), .seconds(3)]))
        let start = epoch.secondsSinceEpoch * second
        let expectations: [(Int64, Int, Int64, Int)] = [
            // (seconds after the epoch, slide, next begins (s after the epoch), next slide)
            (0, 0, 5, 1), (4, 0, 5, 1), (5, 1, 7, 2), (6, 1, 7, 2), (7, 2, 10, 0), (9, 2, 10, 0),
            (10, 0, 15, 1), (10 * 1_000_003 + 7, 2, 10 * 1_000_003 + 10, 0),
        ]
        for (at, slide, next, nextSlide) in expectations {
            let position = inStep.position(atWallNanoseconds: start + at * second)
            #expect(position.slide == slide && position.nextBegins == start + next * second && position.nextSlide == nextSlide,
                    "\(at) s: \(position)")
        }
        // A nanosecond before a boundary is still the slide before it.
        #expect(inStep.position(atWallNanoseconds: start + 5 * second - 1).slide == 0)
    }

    @Test func aClockBehindTheEpochCountsRoundsBackwards() throws {
        // A board that booted in 1970 and has not learnt the time yet.
        let inStep = try #require(SyncedRotationTimeline(epoch: epoch, dwells: [.seconds(4), .seconds(6)]))
        let start = epoch.secondsSinceEpoch * second
        let before = inStep.position(atWallNanoseconds: start - 3 * second)
        #expect(before.slide == 1 && before.nextBegins == start && before.nextSlide == 0)
        let boot = inStep.position(atWallNanoseconds: 12 * second)
        #expect(boot.nextBegins > 12 * second && boot.nextBegins - 12 * second <= 10 * second)
        #expect((start - boot.nextBegins) % (10 * second) == 0 || (start - boot.nextBegins) % (10 * second) == 6 * second)
    }

    @Test func millisecondDwellsStayExact() throws {
        let inStep = try #require(SyncedRotationTimeline(epoch: .epoch, dwells: Array(repeating: .milliseconds(400), count: 3)))
        // A year of 400 ms slides: still on the boundary to the nanosecond.
        let year: Int64 = 365 * 86_400 * second
        let position = inStep.position(atWallNanoseconds: year)
        #expect(position.nextBegins % 400_000_000 == 0 && position.nextBegins > year && position.nextBegins - year <= 400_000_000)
        #expect(position.slide == Int((year / 400_000_000) % 3))
    }

    @Test func noSlidesOrNoTimeIsNoRotation() {
        #expect(SyncedRotationTimeline(epoch: .epoch, dwells: []) == nil)
        #expect(SyncedRotationTimeline(epoch: .epoch, dwells: [.zero, .zero]) == nil)
    }
}
