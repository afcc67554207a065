import Testing
import VitrineConfig
import VitrineCore
@testable import VitrineRuntime

/// The programme (schedule, override, the configuration's own slides) on
/// virtual wall time: a `day` playlist every day 07:00–19:00 UTC, the screen
/// off otherwise.
@Suite("Programme")
struct ProgrammeTests {
    static let monday = LocalDate(year: 2026, month: 11, day: 23)!

    static func at(_ hour: Int, _ minute: Int = 0, _ second: Int = 0, days: Int64 = 0) -> WallInstant {
        WallInstant(utc: monday, LocalTime(hour: hour, minute: minute, second: second)!) + days * WallInstant.secondsPerDay
    }

    static func configuration(schedule: Bool = true) -> KioskConfiguration {
        var configuration = KioskConfiguration()
        configuration.slides = [SlideConfiguration(path: "top.jpg")]
        guard schedule else { return configuration }
        configuration.schedule = ScheduleConfiguration(
            timezone: "UTC",
            playlists: [PlaylistConfiguration(name: "day", slides: [ScheduledSlide(SlideConfiguration(path: "a.jpg")),
                                                                      ScheduledSlide(SlideConfiguration(path: "b.jpg"))])],
            entries: [ScheduleEntry(playlist: "day", period: .weekly(WeeklyWindow(
                days: Set(Weekday.allCases), from: LocalTime(hour: 7, minute: 0)!, until: LocalTime(hour: 19, minute: 0)!)))],
            otherwise: .off)
        return configuration
    }

    static func timeline(_ configuration: KioskConfiguration) -> ScheduleTimeline? {
        configuration.schedule.map { ScheduleTimeline(schedule: $0.schedule, zone: FixedOffsetZone.utc) }
    }

    static func programme(_ configuration: KioskConfiguration = configuration()) -> Programme {
        Programme(configuration: configuration, version: "v1", timeline: timeline(configuration))
    }

    /// The monotonic clock keeping pace with the wall clock from 03:00.
    static func monotonic(_ wall: WallInstant) -> MonotonicInstant {
        .seconds(Double(wall - at(3)) + 1000)
    }

    static func override(until: WallInstant, since: WallInstant = at(0)) -> KioskOverride {
        KioskOverride(id: "e1", slides: [SlideConfiguration(path: "/srv/alert.jpg")], interval: .seconds(20), since: since, until: until)
    }

    @Test func startingAtNightSwitchesTheScreenOffAndWakesAtSeven() {
        var programme = Self.programme()
        let change = programme.start(wall: Self.at(3), monotonic: Self.monotonic(Self.at(3)))
        #expect(change.power == .off)
        #expect(change.show?.selection == .configuration)
        #expect(change.immediate)
        #expect(programme.nextWallDeadline == Self.at(7))
        #expect(programme.scheduleStatus?.now.showing == .off)
        #expect(programme.scheduleStatus?.now.until == Self.at(7))
        #expect(programme.scheduleStatus?.next == .playlist("day", slides: [0, 1]))
        #expect(programme.scheduleStatus?.timezone == "UTC")
    }

    @Test func theWindowOpensAtTheSlideBoundaryAndClosesWithTheScreen() {
        var programme = Self.programme()
        _ = programme.start(wall: Self.at(3), monotonic: Self.monotonic(Self.at(3)))
        let seven = programme.observe(wall: Self.at(7), monotonic: Self.monotonic(Self.at(7)))
        #expect(seven.power == .on)
        #expect(seven.show?.selection == .playlist("day", slides: [0, 1]))
        #expect(seven.show?.configuration.slides.map(\.path) == ["a.jpg", "b.jpg"])
        #expect(!seven.immediate, "a schedule's change waits for the slide boundary")
        #expect(programme.nextWallDeadline == Self.at(19))

        // A wake-up with nothing due changes nothing, and asks nothing of the screen.
        let later = programme.observe(wall: Self.at(7, 0, 30), monotonic: Self.monotonic(Self.at(7, 0, 30)))
        #expect(later == Programme.Change())

        let nineteen = programme.observe(wall: Self.at(19), monotonic: Self.monotonic(Self.at(19)))
        #expect(nineteen.power == .off)
        #expect(nineteen.show == nil, "the slides stay while the screen is off: a touch shows the day's")
        #expect(programme.nextWallDeadline == Self.at(7, days: 1))
    }

    @Test func anOverrideAtNightShowsAtOnceAndEndsByItself() {
        var programme = Self.programme()
        _ = programme.start(wall: Self.at(3), monotonic: Self.monotonic(Self.at(3)))
        let set = programme.setOverride(Self.override(until: Self.at(3, 10)), wall: Self.at(3, 1), monotonic: Self.monotonic(Self.at(3, 1)))
        #expect(set.show?.selection == .override("e1"))
        #expect(set.show?.configuration.slides.map(\.path) == ["/srv/alert.jpg"])
        #expect(set.show?.configuration.interval == .seconds(20))
        #expect(set.immediate)
        #expect(programme.override?.id == "e1")
        #expect(programme.nextWallDeadline == Self.at(3, 10), "the override's end comes before the schedule's 07:00")

        let end = programme.observe(wall: Self.at(3, 10), monotonic: Self.monotonic(Self.at(3, 10)))
        #expect(programme.override == nil)
        #expect(end.show?.selection == .configuration)
        #expect(end.immediate, "an override ends at once, not at a slide boundary")
        #expect(end.power == nil, "the schedule still asks the screen off; only the override held it on")
        #expect(end.notes.contains("override e1 ended at \(Self.at(3, 10))"))
        #expect(end.endedOverride == "e1")
        #expect(programme.nextWallDeadline == Self.at(7))
    }

    @Test func clearingAnOverrideInTheDayGoesBackToTheDaysPlaylistAtOnce() {
        var programme = Self.programme()
        _ = programme.start(wall: Self.at(9), monotonic: Self.monotonic(Self.at(9)))
        _ = programme.setOverride(Self.override(until: Self.at(12)), wall: Self.at(10), monotonic: Self.monotonic(Self.at(10)))
        let cleared = programme.setOverride(nil, wall: Self.at(10, 5), monotonic: Self.monotonic(Self.at(10, 5)))
        #expect(cleared.show?.selection == .playlist("day", slides: [0, 1]))
        #expect(cleared.immediate)
        #expect(cleared.notes == ["override e1 cleared"])
        #expect(cleared.endedOverride == nil, "a cleared override is reported by the API that cleared it")
        #expect(programme.nextWallDeadline == Self.at(19))
    }

    @Test func theScheduleChangingUnderAnOverrideShowsWhenItEnds() {
        var programme = Self.programme()
        _ = programme.start(wall: Self.at(6), monotonic: Self.monotonic(Self.at(6)))
        _ = programme.setOverride(Self.override(until: Self.at(8)), wall: Self.at(6, 30), monotonic: Self.monotonic(Self.at(6, 30)))
        let seven = programme.observe(wall: Self.at(7), monotonic: Self.monotonic(Self.at(7)))
        #expect(seven.power == .on)
        #expect(seven.show == nil, "the override stays on screen")
        let eight = programme.observe(wall: Self.at(8), monotonic: Self.monotonic(Self.at(8)))
        #expect(eight.show?.selection == .playlist("day", slides: [0, 1]))
        #expect(eight.immediate)
    }

    @Test func anOverrideThatHasEndedIsNotShown() {
        var programme = Self.programme()
        _ = programme.start(wall: Self.at(9), monotonic: Self.monotonic(Self.at(9)))
        let change = programme.setOverride(Self.override(until: Self.at(8)), wall: Self.at(9), monotonic: Self.monotonic(Self.at(9)))
        #expect(change.show == nil)
        #expect(programme.override == nil)
        #expect(change.notes.first == "override e1 not shown: it ended at \(Self.at(8))")
    }

    static func everyOutput(until: WallInstant) -> KioskOverride {
        KioskOverride(id: "a11", slides: [SlideConfiguration(path: "/srv/fire.jpg")], since: at(0), until: until)
    }

    /// An output's own override over the one for every output: the latter shows
    /// at once when the former reaches its end, without being sent again.
    @Test func anOutputsOwnOverrideFallsBackToTheOneForEveryOutputAtItsEnd() {
        var programme = Self.programme()
        _ = programme.start(wall: Self.at(9), monotonic: Self.monotonic(Self.at(9)))
        let set = programme.setOverride(Self.override(until: Self.at(10)), fallback: Self.everyOutput(until: Self.at(12)),
                                        wall: Self.at(9, 30), monotonic: Self.monotonic(Self.at(9, 30)))
        #expect(set.show?.selection == .override("e1"))
        #expect(programme.nextWallDeadline == Self.at(10))
        // The same own override again, with the fallback changed: nothing restarts.
        let again = programme.setOverride(Self.override(until: Self.at(10)), fallback: Self.everyOutput(until: Self.at(11)),
                                          wall: Self.at(9, 40), monotonic: Self.monotonic(Self.at(9, 40)))
        #expect(again.show == nil)
        let end = programme.observe(wall: Self.at(10), monotonic: Self.monotonic(Self.at(10)))
        #expect(end.endedOverride == "e1")
        #expect(end.show?.selection == .override("a11"))
        #expect(end.show?.configuration.slides.map(\.path) == ["/srv/fire.jpg"])
        #expect(end.immediate)
        #expect(end.notes == ["override e1 ended at \(Self.at(10))", "override a11 shows again until \(Self.at(11))"])
        #expect(programme.nextWallDeadline == Self.at(11))
        let last = programme.observe(wall: Self.at(11), monotonic: Self.monotonic(Self.at(11)))
        #expect(last.endedOverride == "a11" && last.show?.selection == .playlist("day", slides: [0, 1]))
    }

    @Test func aFallbackThatEndedFirstIsNotShown() {
        var programme = Self.programme()
        _ = programme.start(wall: Self.at(9), monotonic: Self.monotonic(Self.at(9)))
        _ = programme.setOverride(Self.override(until: Self.at(11)), fallback: Self.everyOutput(until: Self.at(10)),
                                  wall: Self.at(9, 30), monotonic: Self.monotonic(Self.at(9, 30)))
        let end = programme.observe(wall: Self.at(11), monotonic: Self.monotonic(Self.at(11)))
        #expect(end.endedOverride == "e1" && end.show?.selection == .playlist("day", slides: [0, 1]))
        #expect(programme.override == nil && programme.fallback == nil)
    }

    @Test func aFallbackAloneIsTheOverrideAndClearingEndsBoth() {
        var programme = Self.programme()
        _ = programme.start(wall: Self.at(9), monotonic: Self.monotonic(Self.at(9)))
        let alone = programme.setOverride(nil, fallback: Self.everyOutput(until: Self.at(12)),
                                          wall: Self.at(9, 30), monotonic: Self.monotonic(Self.at(9, 30)))
        #expect(alone.show?.selection == .override("a11") && programme.fallback == nil)
        _ = programme.setOverride(Self.override(until: Self.at(10)), fallback: Self.everyOutput(until: Self.at(12)),
                                  wall: Self.at(9, 35), monotonic: Self.monotonic(Self.at(9, 35)))
        let cleared = programme.setOverride(nil, wall: Self.at(9, 40), monotonic: Self.monotonic(Self.at(9, 40)))
        #expect(cleared.show?.selection == .playlist("day", slides: [0, 1]))
        #expect(programme.override == nil && programme.fallback == nil)
    }

    /// Stored at 10:00, shown again after a restart on a board whose clock is
    /// not set yet (1970): an emergency message is not hidden by a clock behind.
    @Test func anOverrideShowsWhileTheClockIsBehindTheMomentItWasSet() {
        var programme = Self.programme()
        _ = programme.start(wall: WallInstant(secondsSinceEpoch: 40), monotonic: .seconds(5))
        let change = programme.setOverride(Self.override(until: Self.at(11), since: Self.at(10)),
                                           wall: WallInstant(secondsSinceEpoch: 41), monotonic: .seconds(6))
        #expect(change.show?.selection == .override("e1"))
        let synced = programme.observe(wall: Self.at(11, 0, 1), monotonic: .seconds(30))
        #expect(synced.show?.selection == .playlist("day", slides: [0, 1]))
        #expect(synced.notes.contains("override e1 ended at \(Self.at(11))"))
    }

    /// An NTP step over two nights: one change, to what is due at the new time.
    @Test func aStepForwardOverSeveralChangesAppliesOnlyTheLast() {
        var programme = Self.programme()
        _ = programme.start(wall: Self.at(3), monotonic: Self.monotonic(Self.at(3)))
        let stepped = programme.observe(wall: Self.at(12, days: 2), monotonic: Self.monotonic(Self.at(3)) + .seconds(1))
        #expect(stepped.power == .on)
        #expect(stepped.show?.selection == .playlist("day", slides: [0, 1]))
        #expect(stepped.notes.first?.hasPrefix("the wall clock was stepped forward by") == true)
        // Set back into the night before: off again, once.
        let back = programme.observe(wall: Self.at(3, days: 2), monotonic: Self.monotonic(Self.at(3)) + .seconds(2))
        #expect(back.power == .off)
        #expect(back.notes.first?.hasPrefix("the wall clock was stepped back by") == true)
        let again = programme.observe(wall: Self.at(3, 0, 1, days: 2), monotonic: Self.monotonic(Self.at(3)) + .seconds(3))
        #expect(again == Programme.Change(), "nothing is applied twice")
    }

    /// A board without a battery-backed clock boots believing it is 1970, then learns the date.
    @Test func aBoardThatBootsIn1970FollowsTheScheduleOnceItLearnsTheDate() {
        var programme = Self.programme()
        let boot = programme.start(wall: WallInstant(secondsSinceEpoch: 40), monotonic: .seconds(5))
        #expect(boot.power == .off, "00:00:40 on 1 January 1970 is outside the window")
        #expect(programme.nextWallDeadline == WallInstant(secondsSinceEpoch: 7 * 3600))
        let synced = programme.observe(wall: Self.at(10), monotonic: .seconds(30))
        #expect(synced.power == .on)
        #expect(synced.show?.selection == .playlist("day", slides: [0, 1]))
    }

    @Test func aConfigurationWithoutAScheduleEndsTheSchedulesScreenOff() {
        var programme = Self.programme()
        _ = programme.start(wall: Self.at(3), monotonic: Self.monotonic(Self.at(3)))
        let plain = Self.configuration(schedule: false)
        let change = programme.apply(plain, version: "v2", timeline: nil, wall: Self.at(4), monotonic: Self.monotonic(Self.at(4)))
        #expect(change.power == .on)
        #expect(change.show?.selection == .configuration)
        #expect(change.show?.configuration.slides.map(\.path) == ["top.jpg"])
        #expect(programme.scheduleStatus == nil)
        #expect(programme.nextWallDeadline == nil, "no schedule and no override: the wall clock is not watched")
    }

    @Test func aPushedScheduleWithTheSameAnswerKeepsThePlaylistWithoutAskingTheScreen() {
        var programme = Self.programme()
        _ = programme.start(wall: Self.at(9), monotonic: Self.monotonic(Self.at(9)))
        let configuration = Self.configuration()
        let change = programme.apply(configuration, version: "v2", timeline: Self.timeline(configuration),
                                     wall: Self.at(10), monotonic: Self.monotonic(Self.at(10)))
        #expect(change.power == nil)
        #expect(change.show?.selection == .playlist("day", slides: [0, 1]))
        #expect(!change.immediate)
    }
}

/// The programme on a board whose wall clock has not been set: what it says,
/// and how often it asks again.
@Suite("Programme: a wall clock that is not set")
struct ProgrammeClockTests {
    @Test func untilTheClockIsSetTheScheduleShowsOtherwiseAndAsksAgainEveryFewSeconds() {
        var programme = ProgrammeTests.programme()
        let boot = ProgrammeTests.at(10)
        let start = programme.start(wall: boot, monotonic: ProgrammeTests.monotonic(boot), clock: .notSet)
        // `otherwise: off`: nothing applies at any time of day, so the screen stays off.
        #expect(start.power == .off)
        #expect(start.notes.contains { $0.hasPrefix("the wall clock is not set") })
        #expect(programme.scheduleStatus?.clock == .notSet)
        #expect(programme.scheduleStatus?.now.until == nil && programme.scheduleStatus?.next == nil)
        #expect(programme.nextWallDeadline == boot + Programme.clockRecheck)

        let checked = boot + Programme.clockRecheck
        let still = programme.observe(wall: checked, monotonic: ProgrammeTests.monotonic(checked), clock: .notSet)
        #expect(still.notes.isEmpty && still.power == nil)
        #expect(programme.nextWallDeadline == checked + Programme.clockRecheck)

        let synchronised = checked + Programme.clockRecheck
        let set = programme.observe(wall: synchronised, monotonic: ProgrammeTests.monotonic(synchronised), clock: .set(.timeServer))
        #expect(set.notes.contains("the wall clock was set by a time server: the schedule applies"))
        #expect(set.power == .on)
        #expect(set.show?.selection == .playlist("day", slides: [0, 1]))
        #expect(programme.scheduleStatus?.clock == .set(.timeServer))
        #expect(programme.nextWallDeadline == ProgrammeTests.at(19))
    }

    @Test func theSystemIsAskedOnlyWhileAScheduleWaitsForTheClock() {
        var plain = ProgrammeTests.programme(ProgrammeTests.configuration(schedule: false))
        #expect(!plain.needsClockReading())
        #expect(plain.needsClockReading(scheduled: true), "a configuration bringing a schedule")
        _ = plain.start(wall: ProgrammeTests.at(10), monotonic: ProgrammeTests.monotonic(ProgrammeTests.at(10)), clock: .notSet)
        #expect(!plain.needsClockReading())

        var programme = ProgrammeTests.programme()
        #expect(programme.needsClockReading())
        _ = programme.start(wall: ProgrammeTests.at(10), monotonic: ProgrammeTests.monotonic(ProgrammeTests.at(10)), clock: .notSet)
        #expect(programme.needsClockReading())
        let later = ProgrammeTests.at(10) + 5
        _ = programme.observe(wall: later, monotonic: ProgrammeTests.monotonic(later), clock: .set(.timeServer))
        #expect(!programme.needsClockReading(), "once set, the clock stays set")
    }

    @Test func aClockThatIsSetSaysNothingAndIsNotAskedAgain() {
        var programme = ProgrammeTests.programme()
        let change = programme.start(wall: ProgrammeTests.at(10), monotonic: ProgrammeTests.monotonic(ProgrammeTests.at(10)),
                                     clock: .set(.realTimeClock))
        #expect(!change.notes.contains { $0.contains("wall clock") })
        #expect(programme.nextWallDeadline == ProgrammeTests.at(19))
    }

    @Test func aScheduleThatComesBackKeepsAClockSetByAStep() {
        var programme = ProgrammeTests.programme()
        let boot = ProgrammeTests.at(3)
        _ = programme.start(wall: WallInstant(secondsSinceEpoch: 0), monotonic: .seconds(1), clock: .notSet)
        // Someone sets the clock by hand: the step counts.
        _ = programme.observe(wall: boot, monotonic: .seconds(2), clock: .notSet)
        #expect(programme.scheduleStatus?.clock == .set(.stepped))
        let plain = ProgrammeTests.configuration(schedule: false)
        _ = programme.apply(plain, version: "v2", timeline: nil, wall: boot + 1, monotonic: .seconds(3), clock: .notSet)
        let scheduled = ProgrammeTests.configuration()
        _ = programme.apply(scheduled, version: "v3", timeline: ProgrammeTests.timeline(scheduled), wall: boot + 2,
                            monotonic: .seconds(4), clock: .notSet)
        #expect(programme.scheduleStatus?.clock == .set(.stepped))
    }
}
