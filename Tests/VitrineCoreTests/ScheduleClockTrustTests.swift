import Testing
@testable import VitrineCore

/// A schedule on a board whose wall clock has not been set yet (no time server
/// reached, no battery-backed clock): what applies at any time of day, until
/// the clock is set or stepped.
@Suite("Schedule: a wall clock that is not set")
struct ScheduleClockTrustTests {
    /// Weekdays 07:00–19:00 "day"; otherwise "lobby", whose second slide has dates.
    let timeline = ScheduleTimeline(
        schedule: Schedule(playlists: [playlist("day"),
                                       SchedulePlaylist(name: "lobby", slideValidity: [
                                           .always,
                                           SlideValidity(from: LocalDateTime(LocalDate(year: 2026, month: 1, day: 1)!)),
                                           .always])],
                           entries: [weekly("day", Weekday.weekdays, "07:00", "19:00")],
                           otherwise: .playlist("lobby")),
        zone: EuropeanRulesZone())

    @Test func whileNotSetTheOtherwisePlaylistShowsWithoutItsDatedSlidesAndNothingIsDue() {
        var tracker = ScheduleTracker(timeline: timeline)
        // 1970 on a board that has not reached a time server: a Thursday at 01:00 local.
        let first = tracker.observe(wall: WallInstant(secondsSinceEpoch: 0), monotonic: .seconds(5), clock: .notSet)
        #expect(first.apply == .playlist("lobby", slides: [0, 2]))
        #expect(first.state.since == nil && first.state.until == nil)
        #expect(first.clock == .notSet && first.clockChanged)
        // Later, still not set, in what would be the day's window by the clock: nothing changes.
        let later = tracker.observe(wall: WallInstant(secondsSinceEpoch: 8 * 3600), monotonic: .seconds(8 * 3600 + 5), clock: .notSet)
        #expect(later.apply == nil)
        #expect(!later.clockChanged)
    }

    @Test func theClockBeingSetAppliesWhatIsDueThenOnce() {
        var tracker = ScheduleTracker(timeline: timeline)
        _ = tracker.observe(wall: utc("2026-01-12T10:00:00Z"), monotonic: .seconds(100), clock: .notSet)
        // A time server that slewed a nearly right clock: no step, the mark appears.
        let set = tracker.observe(wall: utc("2026-01-12T10:00:05Z"), monotonic: .seconds(105), clock: .set(.timeServer))
        #expect(set.apply == showing("day"))
        #expect(set.clock == .set(.timeServer) && set.clockChanged)
        #expect(set.state.until == utc("2026-01-12T18:00:00Z"))
        #expect(tracker.observe(wall: utc("2026-01-12T10:00:10Z"), monotonic: .seconds(110), clock: .set(.timeServer)).apply == nil)
    }

    @Test func aStepOfTheClockWhileNotSetCountsAsSet() {
        var tracker = ScheduleTracker(timeline: timeline)
        _ = tracker.observe(wall: WallInstant(secondsSinceEpoch: 0), monotonic: .seconds(5), clock: .notSet)
        // `date -s` by hand, or chrony's first step: the system's mark never comes, the step is seen.
        let stepped = tracker.observe(wall: utc("2026-01-12T10:00:00Z"), monotonic: .seconds(6), clock: .notSet)
        #expect(stepped.clock == .set(.stepped))
        #expect(stepped.apply == showing("day"))
        if case .forward = stepped.clockStep {} else { Issue.record("expected a forward step, got \(stepped.clockStep)") }
    }

    @Test func onceSetTheClockStaysSet() {
        var tracker = ScheduleTracker(timeline: timeline)
        _ = tracker.observe(wall: utc("2026-01-12T10:00:00Z"), monotonic: .seconds(100), clock: .set(.realTimeClock))
        let update = tracker.observe(wall: utc("2026-01-12T20:00:00Z"), monotonic: .seconds(100 + 36_000), clock: .notSet)
        #expect(update.clock == .set(.realTimeClock))
        #expect(!update.clockChanged)
        #expect(update.apply == .playlist("lobby", slides: [0, 1, 2]))
    }

    @Test func withOtherwiseOffTheScreenStaysOffUntilTheClockIsSet() {
        let dark = ScheduleTimeline(schedule: Schedule(playlists: [playlist("day")],
                                                       entries: [weekly("day", Weekday.weekdays, "07:00", "19:00")], otherwise: .off),
                                    zone: EuropeanRulesZone())
        var tracker = ScheduleTracker(timeline: dark)
        #expect(tracker.observe(wall: utc("2026-01-12T10:00:00Z"), monotonic: .seconds(1), clock: .notSet).apply == .off)
        #expect(dark.stateWithoutClock() == ScheduleState(showing: .off, since: nil, until: nil))
    }

    @Test func aTrackerMadeAnewKeepsWhatAnEarlierOneKnew() {
        var tracker = ScheduleTracker(timeline: timeline, clock: .set(.stepped))
        let update = tracker.observe(wall: utc("2026-01-12T10:00:00Z"), monotonic: .seconds(1), clock: .notSet)
        #expect(update.clock == .set(.stepped))
        #expect(update.apply == showing("day"))
    }
}
