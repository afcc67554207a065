import Testing
@testable import VitrineCore

@Suite("AnimationTimeline")
struct AnimationTimelineTests {
    @Test func framesShowForTheirDurationsAndLoop() {
        let timeline = AnimationTimeline(durations: [.milliseconds(100), .milliseconds(300), .milliseconds(50)], plays: nil)
        #expect(timeline.period == .milliseconds(450))
        #expect(timeline.frame(at: .zero) == 0)
        #expect(timeline.frame(at: .milliseconds(99)) == 0)
        #expect(timeline.frame(at: .milliseconds(100)) == 1)
        #expect(timeline.frame(at: .milliseconds(399)) == 1)
        #expect(timeline.frame(at: .milliseconds(400)) == 2)
        #expect(timeline.frame(at: .milliseconds(450)) == 0)
        #expect(timeline.frame(at: .milliseconds(450 * 1000 + 120)) == 1)
        #expect(timeline.nextChange(after: .milliseconds(120)) == .milliseconds(400))
        #expect(timeline.nextChange(after: .milliseconds(449)) == .milliseconds(450))
        #expect(timeline.frameStart(at: .milliseconds(4_620)) == .milliseconds(4_600))
    }

    @Test func aCountedAnimationStopsOnItsLastFrame() {
        let timeline = AnimationTimeline(durations: [.milliseconds(100), .milliseconds(200)], plays: 2)
        #expect(timeline.frame(at: .milliseconds(350)) == 0)
        #expect(timeline.frame(at: .milliseconds(450)) == 1)
        #expect(timeline.frame(at: .milliseconds(599)) == 1)
        #expect(timeline.nextChange(after: .milliseconds(350)) == .milliseconds(400))
        // After two plays (600 ms): the last frame for good, and no more changes.
        #expect(timeline.frame(at: .milliseconds(600)) == 1)
        #expect(timeline.frame(at: .seconds(3600)) == 1)
        #expect(timeline.nextChange(after: .milliseconds(600)) == nil)
        #expect(timeline.frameStart(at: .seconds(10)) == .milliseconds(400))
        // 0 plays in a file means for ever.
        #expect(AnimationTimeline(durations: [.milliseconds(100), .milliseconds(100)], plays: 0).plays == nil)
    }

    @Test func framesAskingForTenMillisecondsOrLessShowForAHundred() {
        let timeline = AnimationTimeline(durations: [.zero, .milliseconds(10), .milliseconds(20)], plays: nil)
        #expect(timeline.frameDurations == [.milliseconds(100), .milliseconds(100), .milliseconds(20)])
    }

    @Test func oneFrameNeverChanges() {
        let timeline = AnimationTimeline(durations: [.milliseconds(100)], plays: nil)
        #expect(timeline.frame(at: .seconds(5)) == 0)
        #expect(timeline.nextChange(after: .zero) == nil)
    }
}
