import Testing
@testable import VitrineCore

@Suite("Schedule: following a wall clock that steps")
struct ScheduleTrackerTests {
    /// Weekdays 07:00–19:00 "day", 19:00–22:00 "evening", otherwise off, in Central European time.
    let timeline = ScheduleTimeline(
        schedule: Schedule(playlists: [playlist("day"), playlist("evening")],
                           entries: [weekly("day", Weekday.weekdays, "07:00", "19:00"),
                                     weekly("evening", Weekday.weekdays, "19:00", "22:00")],
                           otherwise: .off),
        zone: EuropeanRulesZone())

    /// Monotonic time advancing with each observation, as a kiosk's would.
    struct Clocks {
        var monotonic = MonotonicInstant.seconds(100)
        mutating func after(_ seconds: Int64) -> MonotonicInstant {
            monotonic = monotonic + .seconds(seconds)
            return monotonic
        }
    }

    @Test func theFirstObservationAppliesWhatIsDueAndTheSameStateIsNeverAppliedTwice() {
        var tracker = ScheduleTracker(timeline: timeline)
        var clocks = Clocks()
        let first = tracker.observe(wall: utc("2026-01-12T10:00:00Z"), monotonic: clocks.monotonic)
        #expect(first.apply == showing("day"))
        #expect(first.clockStep == .first)
        #expect(first.state.until == utc("2026-01-12T18:00:00Z"))
        let again = tracker.observe(wall: utc("2026-01-12T10:00:30Z"), monotonic: clocks.after(30))
        #expect(again.apply == nil)
        #expect(again.clockStep == ClockStep.none)
        // The timer for `until` fires: the next state, once.
        let due = tracker.observe(wall: utc("2026-01-12T18:00:00Z"), monotonic: clocks.after(8 * 3600 - 30))
        #expect(due.apply == showing("evening"))
        #expect(due.clockStep == ClockStep.none)
        #expect(tracker.observe(wall: utc("2026-01-12T18:00:00Z"), monotonic: clocks.after(0)).apply == nil)
        #expect(tracker.applied == showing("evening"))
    }

    @Test func aJumpForwardOverSeveralTransitionsAppliesOnlyTheLast() {
        var tracker = ScheduleTracker(timeline: timeline)
        var clocks = Clocks()
        _ = tracker.observe(wall: utc("2026-01-12T10:00:00Z"), monotonic: clocks.monotonic)  // day
        // NTP steps the clock by two days and a bit: day → evening → off → day → evening → off
        // → day → evening were all jumped over; only the last is applied.
        let update = tracker.observe(wall: utc("2026-01-14T18:30:00Z"), monotonic: clocks.after(5))
        #expect(update.apply == showing("evening"))
        #expect(update.clockStep == .forward(.seconds(2 * 86_400 + 8 * 3600 + 30 * 60 - 5)))
        #expect(update.state.since == utc("2026-01-14T18:00:00Z"))
        #expect(update.state.until == utc("2026-01-14T21:00:00Z"))
    }

    @Test func aJumpForwardWithinTheSamePeriodAppliesNothing() {
        var tracker = ScheduleTracker(timeline: timeline)
        var clocks = Clocks()
        _ = tracker.observe(wall: utc("2026-01-12T10:00:00Z"), monotonic: clocks.monotonic)
        let update = tracker.observe(wall: utc("2026-01-12T15:00:00Z"), monotonic: clocks.after(1))
        #expect(update.apply == nil)
        if case .forward = update.clockStep {} else { Issue.record("expected a forward step, got \(update.clockStep)") }
    }

    @Test func aJumpBackwardsReappliesTheEarlierStateOnce() {
        var tracker = ScheduleTracker(timeline: timeline)
        var clocks = Clocks()
        _ = tracker.observe(wall: utc("2026-01-12T18:30:00Z"), monotonic: clocks.monotonic)  // evening
        let back = tracker.observe(wall: utc("2026-01-12T17:30:00Z"), monotonic: clocks.after(2))
        #expect(back.apply == showing("day"))
        #expect(back.clockStep == .backward(.seconds(3602)))
        #expect(back.state.until == utc("2026-01-12T18:00:00Z"))
        // The evening comes again when its time comes again, once.
        #expect(tracker.observe(wall: utc("2026-01-12T17:59:59Z"), monotonic: clocks.after(1799)).apply == nil)
        #expect(tracker.observe(wall: utc("2026-01-12T18:00:00Z"), monotonic: clocks.after(1)).apply == showing("evening"))
        // Set back within the same period: nothing.
        #expect(tracker.observe(wall: utc("2026-01-12T18:10:00Z"), monotonic: clocks.after(1)).apply == nil)
    }

    @Test func aBoardWithoutAClockBootsIn1970ThenLearnsTheDate() {
        var tracker = ScheduleTracker(timeline: timeline)
        var clocks = Clocks()
        // 1970-01-01 was a Thursday; 00:00:05 UTC is 01:00:05 CET: off.
        let boot = tracker.observe(wall: WallInstant(secondsSinceEpoch: 5), monotonic: clocks.monotonic)
        #expect(boot.apply == .off)
        #expect(boot.state.until == utc("1970-01-01T06:00:00Z"))
        // The first NTP sync lands on a Monday at 08:15 CET: one change, straight to "day".
        let synced = tracker.observe(wall: utc("2026-01-12T07:15:00Z"), monotonic: clocks.after(20))
        #expect(synced.apply == showing("day"))
        if case .forward(let step) = synced.clockStep {
            #expect(step > .seconds(56 * 365 * 86_400))
        } else {
            Issue.record("expected a forward step, got \(synced.clockStep)")
        }
        #expect(synced.state.since == utc("2026-01-12T06:00:00Z"))
        #expect(synced.state.until == utc("2026-01-12T18:00:00Z"))
    }

    @Test func aNewScheduleKeepsWhatIsAppliedWhenItAgrees() {
        var tracker = ScheduleTracker(timeline: timeline)
        var clocks = Clocks()
        _ = tracker.observe(wall: utc("2026-01-12T10:00:00Z"), monotonic: clocks.monotonic)
        tracker.replace(ScheduleTimeline(
            schedule: Schedule(playlists: [playlist("day")], entries: [weekly("day", Weekday.weekdays, "06:00", "20:00")], otherwise: .off),
            zone: EuropeanRulesZone()))
        let update = tracker.observe(wall: utc("2026-01-12T10:00:01Z"), monotonic: clocks.after(1))
        #expect(update.apply == nil)
        #expect(update.state.until == utc("2026-01-12T19:00:00Z"))
    }

    /// Random walks of the wall clock, forward and back, against a tracker: the
    /// state applied is always the one due at the last observation, and every
    /// reported change differs from the state before it.
    @Test func randomStepsNeverMissOrRepeatAState() {
        var generator = SplitMix64(seed: 0x5c4e_d01e)
        var tracker = ScheduleTracker(timeline: timeline)
        var clocks = Clocks()
        var wall = utc("2026-03-20T00:00:00Z")
        var applied: ScheduleShowing?
        for _ in 0..<400 {
            let step = Int64(generator.next() % 200_000) - 60_000  // mostly forward, sometimes back
            wall = wall + step
            let update = tracker.observe(wall: wall, monotonic: clocks.after(1))
            let due = timeline.showing(at: wall)
            if let change = update.apply {
                #expect(change != applied)
                applied = change
            }
            #expect(applied == due, "at \(wall)")
        }
    }
}
