import Foundation
import Testing
@testable import VitrineConfig
import VitrineCore

@Suite("ConfigLoader: the schedule section")
struct ScheduleConfigTests {
    static let example = """
        schedule:
          timezone: Europe/Berlin
          playlists:
            day:
              - images/a.jpg
              - {path: images/sale.jpg, from: 2026-11-27, until: "2026-11-30 12:00", duration: 8s}
            night: [images/moon.jpg]
            christmas: [images/tree.jpg, {path: images/gifts.jpg, action: {goto: 0}}]
          entries:
            - {playlist: day, days: weekdays, from: "07:00", until: "19:00"}
            - {playlist: day, days: [sat, sun], from: "10:00", until: "18:00"}
            - {playlist: night, days: [fri, sat], from: "22:00", until: "02:00"}
            - {playlist: christmas, dates: {from: 2026-12-24, until: 2026-12-26}}
            - {playlist: christmas, dates: 2026-12-31, priority: 2}
            - {playlist: night, dates: {from: "2026-12-31 18:00", until: "2027-01-01 03:00"}, priority: 3}
          otherwise: off
        """

    func schedule(_ yaml: String) -> String {
        "schedule:\n  playlists: {day: [a.jpg], night: [b.jpg]}\n" + yaml
    }

    @Test func theSectionIsRead() throws {
        let configuration = try ConfigLoader.parse(Self.example)
        #expect(configuration.slides.isEmpty)
        let schedule = try #require(configuration.schedule)
        #expect(schedule.timezone == "Europe/Berlin")
        #expect(schedule.playlists.map(\.name) == ["christmas", "day", "night"])
        let day = try #require(schedule.playlist(named: "day"))
        #expect(day.slides.map(\.slide.path) == ["images/a.jpg", "images/sale.jpg"])
        #expect(day.slides[1].slide.duration == .seconds(8))
        #expect(day.slides[1].validity == SlideValidity(from: LocalDateTime(LocalDate(year: 2026, month: 11, day: 27)!),
                                                       until: LocalDateTime(LocalDate(year: 2026, month: 11, day: 30)!, LocalTime(hour: 12, minute: 0)!)))
        #expect(day.slides[0].validity == .always)
        #expect(schedule.playlist(named: "christmas")?.slides[1].slide.action == .goTo(0))
        #expect(schedule.entries.count == 6)
        #expect(schedule.entries[0] == ScheduleEntry(playlist: "day", period: .weekly(WeeklyWindow(
            days: Weekday.weekdays, from: LocalTime(hour: 7, minute: 0)!, until: LocalTime(hour: 19, minute: 0)!))))
        #expect(schedule.entries[3].period == .dates(ScheduleDateRange(
            days: LocalDate(year: 2026, month: 12, day: 24)!, through: LocalDate(year: 2026, month: 12, day: 26)!)))
        #expect(schedule.entries[4].period == .dates(ScheduleDateRange(
            days: LocalDate(year: 2026, month: 12, day: 31)!, through: LocalDate(year: 2026, month: 12, day: 31)!)))
        #expect(schedule.entries[4].priority == 2)
        #expect(schedule.otherwise == .off)
        // Defaults: the whole day, priority 0, the system's zone, off otherwise.
        let minimal = try #require(try ConfigLoader.parse("schedule:\n  playlists: {x: [a.jpg]}\n  entries: [{playlist: x, days: mon}]\n").schedule)
        #expect(minimal.entries == [ScheduleEntry(playlist: "x", period: .weekly(WeeklyWindow(days: [.monday])), priority: 0)])
        #expect(minimal.timezone == nil && minimal.otherwise == .off)
        #expect(minimal.zone()?.isSystem == true)
    }

    @Test func theExampleInBerlinAroundNewYearsEve() throws {
        let (_, timeline) = try scheduled(Self.example)
        // Thursday 2026-12-31: New Year's Eve's date range (priority 3) runs from 18:00 into 1 January,
        // and beats the whole-day one (priority 2), which beats the weekday window.
        #expect(transitions(timeline, from: utc("2026-12-30T12:00:00Z"), days: 2) == [
            ScheduleTransition(utc("2026-12-30T18:00:00Z"), .off),
            ScheduleTransition(utc("2026-12-30T23:00:00Z"), showing("christmas", slides: 2)),  // 31st 00:00 CET
            ScheduleTransition(utc("2026-12-31T17:00:00Z"), showing("night")),  // 18:00 CET
            ScheduleTransition(utc("2027-01-01T02:00:00Z"), .off),  // 03:00 CET
            ScheduleTransition(utc("2027-01-01T06:00:00Z"), showing("day")),  // a Friday: the weekday window at 07:00
        ])
        // The sale slide is valid from 27 November until 30 November 12:00.
        #expect(timeline.showing(at: utc("2026-11-26T12:00:00Z")) == .playlist("day", slides: [0]))
        #expect(timeline.showing(at: utc("2026-11-27T12:00:00Z")) == .playlist("day", slides: [0, 1]))
        #expect(timeline.showing(at: utc("2026-11-30T11:00:00Z")) == .playlist("day", slides: [0]))
    }

    @Test func topLevelSlidesWorkAsBeforeWithoutASchedule() throws {
        let configuration = try ConfigLoader.parse("slides: [a.jpg, b.jpg]\ninterval: 3s\n")
        #expect(configuration.schedule == nil)
        #expect(configuration.slides.map(\.path) == ["a.jpg", "b.jpg"])
        #expect(configuration.allSlides.map(\.keyPath) == ["slides[0]", "slides[1]"])
        // With a schedule, slides may stay, empty (as the canonical JSON writes them).
        #expect(issues("slides: []\n" + schedule("  otherwise: day\n")) == [])
    }

    @Test func aPlaylistIsTheSameSlideSyntaxWithValidity() {
        #expect(issues(schedule("  entries: [{playlist: day, days: mon}]\n")) == [])
        #expect(issues("schedule:\n  playlists:\n    day:\n      - {path: a.jpg, duraton: 3s}\n")
            == [#"schedule.playlists.day[0].duraton: unknown key (did you mean "duration"?)"#])
        #expect(issues("schedule:\n  playlists:\n    day:\n      - {path: a.jpg, valid: 2026-01-01}\n")
            == ["schedule.playlists.day[0].valid: unknown key (known keys: action, attractOnly, duration, fit, from, kenBurns, loop, path, until)"])
        #expect(issues("schedule:\n  playlists:\n    day: [{path: a.jpg, action: {goto: 1}}]\n")
            == ["schedule.playlists.day[0].action.goto: there is no slide 1: the playlist has 1 slides (counting from 0)"])
        #expect(issues("schedule:\n  playlists:\n    day: [{path: a.jpg, from: 2026-12-02, until: 2026-12-01}]\n")
            == ["schedule.playlists.day[0].until: must not be before from (2026-12-02), found 2026-12-01"])
        #expect(issues("schedule:\n  playlists:\n    day: [{path: a.jpg, from: \"2026-12-01 12:00\", until: \"2026-12-01 12:00\"}]\n")
            == ["schedule.playlists.day[0].until: must be after from (2026-12-01 12:00), found 2026-12-01 12:00"])
        #expect(issues("schedule:\n  playlists:\n    day: [{path: a.jpg, until: 2026-13-01}]\n")
            == ["schedule.playlists.day[0].until: there is no 2026-13-01: months go from 01 to 12"])
        #expect(issues("schedule:\n  playlists:\n    day: [\"\"]\n") == ["schedule.playlists.day[0]: must not be empty"])
        #expect(issues("schedule:\n  playlists:\n    day: a.jpg\n") == ["schedule.playlists.day: must be a list, found a.jpg"])
        // Top-level slides keep their keys: validity is a schedule playlist's.
        #expect(issues("slides: [{path: a.jpg, from: 2026-01-01}]")
            == ["slides[0].from: unknown key (known keys: action, attractOnly, duration, fit, kenBurns, loop, path)"])
    }

    // MARK: Every error, with its key path

    @Test func anUnknownZone() {
        #expect(issues("schedule: {timezone: Europe/Berln}") == [
            "schedule.timezone: unknown time zone Europe/Berln: must be an IANA zone name such as Europe/Berlin or America/New_York (as in /usr/share/zoneinfo); leave timezone out to use the system's",
        ])
        #expect(issues("schedule: {timezone: [Europe/Berlin]}") == ["schedule.timezone: must be a string, found a list"])
    }

    @Test func aDateRangeThatEndsBeforeItStarts() {
        #expect(issues(schedule("  entries: [{playlist: day, dates: {from: 2026-12-26, until: 2026-12-24}}]\n"))
            == ["schedule.entries[0].dates.until: must not be before from (2026-12-26), found 2026-12-24"])
        #expect(issues(schedule("  entries: [{playlist: day, dates: {from: \"2026-12-24 18:00\", until: \"2026-12-24 12:00\"}}]\n"))
            == ["schedule.entries[0].dates.until: must be after from (2026-12-24 18:00), found 2026-12-24 12:00"])
        // A single day, from and until the same date, is fine.
        #expect(issues(schedule("  entries: [{playlist: day, dates: {from: 2026-12-24, until: 2026-12-24}}]\n")) == [])
    }

    @Test func anImpossibleDate() {
        #expect(issues(schedule("  entries: [{playlist: day, dates: {from: 2026-02-30, until: 2026-03-02}}]\n"))
            == ["schedule.entries[0].dates.from: there is no 2026-02-30: February 2026 has 28 days"])
        #expect(issues(schedule("  entries: [{playlist: day, dates: 2028-02-30}]\n"))
            == ["schedule.entries[0].dates: there is no 2028-02-30: February 2028 has 29 days"])
        #expect(issues(schedule("  entries: [{playlist: day, dates: {from: 2026-12-1}}]\n"))
            == [#"schedule.entries[0].dates.from: must be a date YYYY-MM-DD, or a date and time "YYYY-MM-DD HH:MM", found 2026-12-1"#])
        #expect(issues(schedule("  entries: [{playlist: day, dates: {until: 2026-12-01}}]\n"))
            == ["schedule.entries[0].dates.from: is required: the first day, such as 2026-12-24"])
    }

    @Test func anUnknownDay() throws {
        let message = "days are mon, tue, wed, thu, fri, sat, sun (or monday … sunday), weekdays, weekend or daily"
        #expect(issues(schedule("  entries: [{playlist: day, days: [mon, thurs], from: \"07:00\", until: \"19:00\"}]\n"))
            == ["schedule.entries[0].days[1]: unknown day thurs: \(message)"])
        #expect(issues(schedule("  entries: [{playlist: day, days: workdays}]\n"))
            == ["schedule.entries[0].days: unknown day workdays: \(message)"])
        #expect(issues(schedule("  entries: [{playlist: day, days: []}]\n")) == ["schedule.entries[0].days: must name at least one day"])
        #expect(try ConfigLoader.parse(schedule("  entries: [{playlist: day, days: [Monday, weekend]}]\n")).schedule?.entries.first?.period
            == .weekly(WeeklyWindow(days: [.monday, .saturday, .sunday])))
    }

    @Test func anUnknownPlaylist() {
        #expect(issues(schedule("  entries: [{playlist: nigth, days: fri}]\n"))
            == [#"schedule.entries[0].playlist: unknown playlist nigth (did you mean "night"?)"#])
        #expect(issues(schedule("  otherwise: lobby\n")) == ["schedule.otherwise: unknown playlist lobby (playlists: day, night)"])
        #expect(issues("schedule: {entries: [{playlist: day, days: fri}]}")
            == ["schedule.entries[0].playlist: unknown playlist day: schedule.playlists defines none"])
        #expect(issues(schedule("  entries: [{days: fri}]\n")) == ["schedule.entries[0].playlist: is required: the name of one of schedule.playlists, or off"])
        #expect(issues("schedule:\n  playlists: {off: [a.jpg]}\n")
            == ["schedule.playlists.off: off cannot name a playlist: an entry's or otherwise's off switches the screen off"])
        #expect(issues("schedule:\n  playlists: {\"main hall\": [a.jpg]}\n")
            == [#"schedule.playlists.main hall: a playlist's name must be letters, digits, - and _, found "main hall""#])
    }

    @Test func aBadTime() {
        #expect(issues(schedule("  entries: [{playlist: day, days: mon, from: \"25:00\", until: \"26:00\"}]\n")) == [
            "schedule.entries[0].from: there is no time 25:00: hours go from 00 to 23, minutes from 00 to 59",
            "schedule.entries[0].until: there is no time 26:00: hours go from 00 to 23, minutes from 00 to 59 (or 24:00, the end of the day)",
        ])
        #expect(issues(schedule("  entries: [{playlist: day, days: mon, from: \"24:00\"}]\n"))
            == ["schedule.entries[0].from: 24:00 is only for until (the end of a day); from starts at 00:00 to 23:59"])
        #expect(issues(schedule("  entries: [{playlist: day, days: mon, from: 7am}]\n"))
            == [#"schedule.entries[0].from: must be a time HH:MM, such as "07:00", found 7am"#])
        #expect(issues(schedule("  entries: [{playlist: day, days: mon, from: \"07:00\", until: \"07:00\"}]\n"))
            == ["schedule.entries[0].until: must differ from from (07:00): a whole day is from 00:00 until 24:00"])
        // Unquoted in YAML, 07:00 is still read as written (not as YAML 1.1's base-60 number).
        #expect(issues(schedule("  entries: [{playlist: day, days: mon, from: 07:00, until: 24:00}]\n")) == [])
    }

    @Test func overlappingWindowsOfEqualPriorityNameBothKeyPaths() {
        #expect(issues(schedule("""
              entries:
                - {playlist: day, days: fri, from: "18:00", until: "23:00"}
                - {playlist: night, days: fri, from: "22:00", until: "02:00"}
            """)) == [
            "schedule.entries[1]: overlaps schedule.entries[0] on fri 22:00–fri 23:00 every week with the same priority (0) and another playlist (night, not day): give one of them a higher priority",
        ])
        #expect(issues(schedule("""
              entries:
                - {playlist: day, dates: {from: 2026-12-20, until: 2026-12-24}}
                - {playlist: night, dates: {from: 2026-12-24, until: 2026-12-26}, priority: 0}
            """)) == [
            "schedule.entries[1]: overlaps schedule.entries[0] on 2026-12-24 with the same priority (0) and another playlist (night, not day): give one of them a higher priority",
        ])
        // A priority, the same playlist, or different kinds: no conflict.
        #expect(issues(schedule("""
              entries:
                - {playlist: day, days: fri, from: "18:00", until: "23:00"}
                - {playlist: night, days: fri, from: "22:00", until: "02:00", priority: 1}
                - {playlist: day, days: daily}
                - {playlist: night, dates: 2026-12-25}
            """)) == [])
    }

    @Test func anEntryIsAWindowOrADateRange() {
        #expect(issues(schedule("  entries: [{playlist: day, days: mon, dates: 2026-12-25}]\n"))
            == ["schedule.entries[0]: must have either days (a weekly window) or dates (a date range), not both"])
        #expect(issues(schedule("  entries: [{playlist: day}]\n"))
            == ["schedule.entries[0]: must have days (a weekly window: days, from, until) or dates (a date range: dates: {from, until})"])
        #expect(issues(schedule("  entries: [{playlist: day, dates: 2026-12-25, from: \"10:00\"}]\n")) == [
            #"schedule.entries[0].from: belongs to a weekly window (with days); a date range has its times inside dates, such as dates: {from: "2026-12-24 18:00", until: "2026-12-26 12:00"}"#,
        ])
        #expect(issues(schedule("  entries: [{playlist: day, dates: \"2026-12-25 10:00\"}]\n")) == [
            #"schedule.entries[0].dates: a single value must be a date (that whole day); for times write {from: "2026-12-24 18:00", until: "2026-12-26 12:00"}"#,
        ])
        #expect(issues(schedule("  entries: [{playlist: day, days: mon, priority: high}]\n"))
            == ["schedule.entries[0].priority: must be a whole number, found high"])
        #expect(issues(schedule("  entries: [{playlist: day, day: mon}]\n")) == [
            #"schedule.entries[0]: must have days (a weekly window: days, from, until) or dates (a date range: dates: {from, until})"#,
            #"schedule.entries[0].day: unknown key (did you mean "days"?)"#,
        ])
        #expect(issues("schedule: {zone: UTC}") == ["schedule.zone: unknown key (known keys: entries, otherwise, playlists, timezone)"])
    }

    @Test func topLevelSlidesAndAScheduleDoNotMix() {
        #expect(issues("slides: [a.jpg]\nschedule: {playlists: {day: [b.jpg]}, otherwise: day}\n") == [
            "slides: must be empty when there is a schedule: the schedule's playlists say what shows (move these slides into one of schedule.playlists)",
        ])
    }

    @Test func everyProblemIsReportedAtOnce() {
        let found = issues("""
            schedule:
              timezone: Mars/Olympus
              playlists: {day: [a.jpg]}
              entries:
                - {playlist: day, days: [mon, funday], from: "07:00", until: "19:00"}
                - {playlist: night, dates: {from: 2026-02-29}}
              otherwise: evening
            """)
        #expect(found == [
            "schedule.timezone: unknown time zone Mars/Olympus: must be an IANA zone name such as Europe/Berlin or America/New_York (as in /usr/share/zoneinfo); leave timezone out to use the system's",
            "schedule.entries[0].days[1]: unknown day funday: days are mon, tue, wed, thu, fri, sat, sun (or monday … sunday), weekdays, weekend or daily",
            "schedule.entries[1].playlist: unknown playlist night (playlists: day)",
            "schedule.entries[1].dates.from: there is no 2026-02-29: February 2026 has 28 days",
            "schedule.otherwise: unknown playlist evening (playlists: day)",
        ])
    }

    @Test func missingPicturesInPlaylistsAreReportedWithTheirKeyPaths() throws {
        try withTemporaryDirectory { directory in
            try write("x", to: directory + "/a.jpg")
            let configuration = try ConfigLoader.parse("schedule:\n  playlists: {day: [a.jpg, b.jpg]}\n", baseDirectory: directory)
            #expect(ConfigLoader.fileIssues(in: configuration).map(\.description)
                == ["schedule.playlists.day[1].path: file not found: \(directory)/b.jpg"])
        }
    }

    @Test func theCanonicalFormReadsBackTheSame() throws {
        let configuration = try ConfigLoader.parse(Self.example)
        let schedule = try #require(configuration.schedule)
        let json = String(decoding: JSONValue.object(["schedule": .object(ScheduleDocument.tree(schedule))]).encoded([.sortedKeys]), as: UTF8.self)
        #expect(try ConfigLoader.parse(json).schedule == schedule)
        #expect(json.contains(#""dates":{"from":"2026-12-24","until":"2026-12-26"}"#))
        #expect(json.contains(#""until":"2026-11-30 12:00""#))
        #expect(json.contains(#""days":["mon","tue","wed","thu","fri"]"#))
    }
}
