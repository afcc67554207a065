import Testing
@testable import VitrineCore

@Suite("RotationScheduler")
struct RotationSchedulerTests {
    let policy = RotationPolicy(autoplay: true, interval: .seconds(5), resumeDelayAfterTouch: .seconds(3))

    @Test func policyDefaults() {
        let defaults = RotationPolicy()
        #expect(defaults.autoplay)
        #expect(defaults.interval == .seconds(5))
        #expect(defaults.resumeDelayAfterTouch == .seconds(3))
    }

    @Test func firstDeadlineIsStartPlusFirstDwell() {
        let scheduler = RotationScheduler(policy: policy, firstDwell: .seconds(7), start: ms(1000))
        #expect(scheduler.isPlaying)
        #expect(scheduler.pauseReasons.isEmpty)
        #expect(scheduler.deadline == ms(8000))
    }

    @Test func withoutAutoplayNothingIsEverScheduled() {
        var scheduler = RotationScheduler(
            policy: RotationPolicy(autoplay: false), firstDwell: .seconds(7), start: ms(1000))
        #expect(!scheduler.isPlaying)
        #expect(scheduler.deadline == nil)
        scheduler.slideBegan(at: ms(2000), dwell: .seconds(1))
        #expect(scheduler.deadline == nil)
        scheduler.pause(.touch)
        scheduler.resume(.touch, at: ms(3000))
        #expect(scheduler.deadline == nil)
    }

    @Test func slideBeganSchedulesFromItsStartNotFromNow() {
        var scheduler = RotationScheduler(policy: policy, firstDwell: .seconds(5), start: .zero)
        scheduler.slideBegan(at: ms(5000), dwell: .milliseconds(3250))
        #expect(scheduler.deadline == ms(8250))
        scheduler.slideBegan(at: ms(8250), dwell: .nanoseconds(1))
        #expect(scheduler.deadline == ns(8_250_000_001))
    }

    @Test func chainedDeadlinesAreExactSums() {
        var scheduler = RotationScheduler(policy: policy, firstDwell: .nanoseconds(1_000_000_007), start: .zero)
        var expected: Int64 = 1_000_000_007
        for k in 0..<10_000 {
            let dwell = Int64(999_999_937 + k % 13)
            scheduler.slideBegan(at: scheduler.deadline!, dwell: .nanoseconds(dwell))
            expected += dwell
        }
        #expect(scheduler.deadline == ns(expected))
    }

    @Test func pauseClearsTheDeadline() {
        var scheduler = RotationScheduler(policy: policy, firstDwell: .seconds(5), start: .zero)
        scheduler.pause(.remote)
        #expect(!scheduler.isPlaying)
        #expect(scheduler.pauseReasons == [.remote])
        #expect(scheduler.deadline == nil)
        // A slide beginning while paused does not arm rotation.
        scheduler.slideBegan(at: ms(1000), dwell: .seconds(2))
        #expect(scheduler.deadline == nil)
    }

    @Test func remoteResumeIsAFullDwellFromResume() {
        var scheduler = RotationScheduler(policy: policy, firstDwell: .seconds(5), start: .zero)
        scheduler.slideBegan(at: ms(10_000), dwell: .seconds(7))
        scheduler.pause(.remote)
        scheduler.resume(.remote, at: ms(20_000))
        #expect(scheduler.isPlaying)
        #expect(scheduler.deadline == ms(27_000))  // the current slide's own dwell
    }

    @Test func touchResumeAddsTheResumeDelay() {
        var scheduler = RotationScheduler(policy: policy, firstDwell: .seconds(5), start: .zero)
        scheduler.pause(.touch)
        scheduler.resume(.touch, at: ms(20_000))
        #expect(scheduler.deadline == ms(28_000))
    }

    @Test func bothReasonsMustBeLifted() {
        var scheduler = RotationScheduler(policy: policy, firstDwell: .seconds(5), start: .zero)
        scheduler.pause(.touch)
        scheduler.pause(.remote)
        #expect(scheduler.pauseReasons == [.touch, .remote])
        scheduler.resume(.remote, at: ms(1000))
        #expect(!scheduler.isPlaying)
        #expect(scheduler.deadline == nil)
        scheduler.resume(.touch, at: ms(2000))
        #expect(scheduler.isPlaying)
        #expect(scheduler.deadline == ms(10_000))

        scheduler.pause(.touch)
        scheduler.pause(.remote)
        scheduler.resume(.touch, at: ms(11_000))
        #expect(scheduler.deadline == nil)
        scheduler.resume(.remote, at: ms(12_000))
        #expect(scheduler.deadline == ms(17_000))
    }

    @Test func resumingAnUnheldReasonKeepsTheDeadline() {
        var scheduler = RotationScheduler(policy: policy, firstDwell: .seconds(5), start: .zero)
        scheduler.resume(.touch, at: ms(4000))
        scheduler.resume(.remote, at: ms(4000))
        #expect(scheduler.deadline == ms(5000))
    }

    @Test func clearDeadlineHoldsWithoutAReason() {
        var scheduler = RotationScheduler(policy: policy, firstDwell: .seconds(5), start: .zero)
        scheduler.clearDeadline()
        #expect(scheduler.deadline == nil)
        #expect(scheduler.isPlaying)
        #expect(scheduler.pauseReasons.isEmpty)
    }

    @Test func updatingThePolicy() {
        var scheduler = RotationScheduler(policy: policy, firstDwell: .seconds(5), start: .zero)
        // Still playing with a deadline: the deadline stays.
        var longer = policy
        longer.interval = .seconds(60)
        scheduler.update(policy: longer, at: ms(1000))
        #expect(scheduler.policy == longer)
        #expect(scheduler.deadline == ms(5000))
        // Autoplay off: nothing scheduled.
        var off = policy
        off.autoplay = false
        scheduler.update(policy: off, at: ms(2000))
        #expect(!scheduler.isPlaying)
        #expect(scheduler.deadline == nil)
        // Back on: a full dwell of the current slide from now.
        scheduler.update(policy: policy, at: ms(3000))
        #expect(scheduler.deadline == ms(8000))
        // Playing but with the deadline held: re-armed from now.
        scheduler.clearDeadline()
        scheduler.update(policy: policy, at: ms(4000))
        #expect(scheduler.deadline == ms(9000))
        // Paused: an update does not arm anything.
        scheduler.pause(.remote)
        scheduler.update(policy: policy, at: ms(5000))
        #expect(scheduler.deadline == nil)
    }

    @Test func pauseReasonsAreOrdered() {
        #expect(PauseReason.allCases.sorted() == [.remote, .screenOff, .touch, .visitor])
        #expect(PauseReason(rawValue: "touch") == .touch)
        #expect(PauseReason(rawValue: "remote") == .remote)
    }
}
