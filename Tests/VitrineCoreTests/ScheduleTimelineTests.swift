import Testing
@testable import VitrineCore

@Suite("Schedule: what shows when")
struct ScheduleTimelineTests {
    let zone = EuropeanRulesZone()

    func timeline(_ entries: [ScheduleEntry], playlists: [SchedulePlaylist]? = nil, otherwise: ScheduleFallback = .off) -> ScheduleTimeline {
        let names = Set(entries.map(\.playlist) + [otherwise].compactMap { if case .playlist(let n) = $0 { n } else { nil } })
        let lists = playlists ?? names.sorted().map { playlist($0) }
        return ScheduleTimeline(schedule: Schedule(playlists: lists, entries: entries, otherwise: otherwise), zone: zone)
    }

    @Test func aWeekdayWindowAndTheFallback() {
        let t = timeline([weekly("day", Weekday.weekdays, "07:00", "19:00")], otherwise: .playlist("idle"))
        // Friday 2026-01-09, CET.
        #expect(t.showing(at: utc("2026-01-09T05:59:59Z")) == showing("idle"))
        #expect(t.showing(at: utc("2026-01-09T06:00:00Z")) == showing("day"))
        #expect(t.showing(at: utc("2026-01-09T17:59:59Z")) == showing("day"))
        #expect(t.showing(at: utc("2026-01-09T18:00:00Z")) == showing("idle"))
        #expect(t.showing(at: utc("2026-01-10T10:00:00Z")) == showing("idle"))  // Saturday
        let state = t.state(at: utc("2026-01-09T12:00:00Z"))
        #expect(state == ScheduleState(showing: showing("day"), since: utc("2026-01-09T06:00:00Z"), until: utc("2026-01-09T18:00:00Z")))
        // Saturday: idle since Friday 19:00 until Monday 07:00.
        #expect(t.state(at: utc("2026-01-10T12:00:00Z"))
            == ScheduleState(showing: showing("idle"), since: utc("2026-01-09T18:00:00Z"), until: utc("2026-01-12T06:00:00Z")))
    }

    @Test func aWindowAcrossMidnightBelongsToTheDayItStarts() {
        let t = timeline([weekly("night", [.friday], "22:00", "02:00")])
        // Friday 2026-01-09 22:00 CET until Saturday 02:00 CET; nothing on Thursday night.
        #expect(transitions(t, from: utc("2026-01-05T00:00:00Z"), days: 7) == [
            ScheduleTransition(utc("2026-01-09T21:00:00Z"), showing("night")),
            ScheduleTransition(utc("2026-01-10T01:00:00Z"), .off),
        ])
        #expect(t.showing(at: utc("2026-01-10T00:30:00Z")) == showing("night"))  // Saturday 01:30
        #expect(t.showing(at: utc("2026-01-09T00:30:00Z")) == .off)  // Friday 01:30: Thursday has no window
    }

    @Test func aWindowAcrossTheEndOfTheWeekRunsIntoMonday() {
        let t = timeline([weekly("late", [.sunday], "22:00", "02:00"), weekly("early", [.monday], "06:00", "08:00")])
        // Sunday 2026-01-11 22:00 CET to Monday 2026-01-12 02:00 CET, then Monday's own window.
        #expect(transitions(t, from: utc("2026-01-11T12:00:00Z"), days: 1) == [
            ScheduleTransition(utc("2026-01-11T21:00:00Z"), showing("late")),
            ScheduleTransition(utc("2026-01-12T01:00:00Z"), .off),
            ScheduleTransition(utc("2026-01-12T05:00:00Z"), showing("early")),
            ScheduleTransition(utc("2026-01-12T07:00:00Z"), .off),
        ])
        #expect(t.showing(at: utc("2026-01-12T00:59:59Z")) == showing("late"))
    }

    @Test func aWindowStartingInTheMissingHourStartsWhenTheClockJumps() {
        // 2026-03-29 (Sunday): 02:00 CET → 03:00 CEST at 01:00Z.
        let t = timeline([weekly("early", [.sunday], "02:30", "05:00")])
        #expect(transitions(t, from: utc("2026-03-28T12:00:00Z"), days: 1) == [
            ScheduleTransition(utc("2026-03-29T01:00:00Z"), showing("early")),  // 03:00 CEST
            ScheduleTransition(utc("2026-03-29T03:00:00Z"), .off),  // 05:00 CEST
        ])
        // The Sunday before, an ordinary one: 02:30 CET.
        #expect(t.state(at: utc("2026-03-22T02:00:00Z")).since == utc("2026-03-22T01:30:00Z"))
    }

    @Test func aWindowWhollyInsideTheMissingHourIsEmptyThatDay() {
        let t = timeline([weekly("gap", [.sunday], "02:15", "02:45")])
        #expect(transitions(t, from: utc("2026-03-28T12:00:00Z"), days: 1) == [])
        #expect(transitions(t, from: utc("2026-04-04T12:00:00Z"), days: 1) == [
            ScheduleTransition(utc("2026-04-05T00:15:00Z"), showing("gap")),
            ScheduleTransition(utc("2026-04-05T00:45:00Z"), .off),
        ])
    }

    @Test func aBoundaryInTheRepeatedHourIsItsFirstOccurrence() {
        // 2026-10-25 (Sunday): 03:00 CEST → 02:00 CET at 01:00Z.
        let starts = timeline([weekly("w", [.sunday], "02:30", "04:00")])
        #expect(transitions(starts, from: utc("2026-10-24T12:00:00Z"), days: 1) == [
            ScheduleTransition(utc("2026-10-25T00:30:00Z"), showing("w")),  // the first 02:30, CEST
            ScheduleTransition(utc("2026-10-25T03:00:00Z"), .off),  // 04:00 CET
        ])
        let ends = timeline([weekly("w", [.saturday], "22:00", "02:30")])
        #expect(transitions(ends, from: utc("2026-10-24T12:00:00Z"), days: 1) == [
            ScheduleTransition(utc("2026-10-24T20:00:00Z"), showing("w")),  // 22:00 CEST
            ScheduleTransition(utc("2026-10-25T00:30:00Z"), .off),  // the first 02:30; the second is not in the window
        ])
        #expect(ends.showing(at: utc("2026-10-25T01:15:00Z")) == .off)  // 02:15 CET, the second time round
    }

    @Test func aWindowAcrossMidnightAndAClockChangeIsAnHourShorterOrLonger() {
        let t = timeline([weekly("night", [.saturday], "22:00", "04:00")])
        // Spring: Saturday 22:00 CET (21:00Z) to Sunday 04:00 CEST (02:00Z): five hours.
        let spring = transitions(t, from: utc("2026-03-28T12:00:00Z"), days: 1)
        #expect(spring == [ScheduleTransition(utc("2026-03-28T21:00:00Z"), showing("night")),
                           ScheduleTransition(utc("2026-03-29T02:00:00Z"), .off)])
        // Autumn: Saturday 22:00 CEST (20:00Z) to Sunday 04:00 CET (03:00Z): seven hours.
        let autumn = transitions(t, from: utc("2026-10-24T12:00:00Z"), days: 1)
        #expect(autumn == [ScheduleTransition(utc("2026-10-24T20:00:00Z"), showing("night")),
                           ScheduleTransition(utc("2026-10-25T03:00:00Z"), .off)])
    }

    @Test func aDateRangeBeatsAWeeklyWindowWhateverItsPriority() {
        let t = timeline([
            weekly("day", Weekday.weekdays, "07:00", "19:00", priority: 100),
            dates("christmas", "2026-12-24", through: "2026-12-26"),
        ])
        #expect(t.showing(at: utc("2026-12-23T12:00:00Z")) == showing("day"))
        #expect(t.showing(at: utc("2026-12-24T12:00:00Z")) == showing("christmas"))  // a Thursday
        #expect(t.showing(at: utc("2026-12-26T22:59:59Z")) == showing("christmas"))  // Saturday 23:59:59 CET
        #expect(t.showing(at: utc("2026-12-28T12:00:00Z")) == showing("day"))
        #expect(transitions(t, from: utc("2026-12-23T12:00:00Z"), days: 6) == [
            ScheduleTransition(utc("2026-12-23T18:00:00Z"), .off),
            ScheduleTransition(utc("2026-12-23T23:00:00Z"), showing("christmas")),  // 24th 00:00 CET
            ScheduleTransition(utc("2026-12-26T23:00:00Z"), .off),  // 27th 00:00 CET, a Sunday
            ScheduleTransition(utc("2026-12-28T06:00:00Z"), showing("day")),
            ScheduleTransition(utc("2026-12-28T18:00:00Z"), .off),
            ScheduleTransition(utc("2026-12-29T06:00:00Z"), showing("day")),
        ])
    }

    @Test func priorityDecidesBetweenEntriesOfTheSameKind() {
        let t = timeline([
            weekly("day", Weekday.weekdays, "07:00", "19:00"),
            weekly("lunch", Weekday.weekdays, "12:00", "13:00", priority: 1),
            dates("sale", "2026-11-27", through: "2026-11-30"),
            dates("blackfriday", "2026-11-27", through: "2026-11-27", priority: 5),
        ])
        #expect(t.showing(at: utc("2026-11-10T11:30:00Z")) == showing("lunch"))
        #expect(t.showing(at: utc("2026-11-10T12:00:00Z")) == showing("day"))
        #expect(t.showing(at: utc("2026-11-27T11:30:00Z")) == showing("blackfriday"))
        #expect(t.showing(at: utc("2026-11-28T11:30:00Z")) == showing("sale"))
        #expect(t.schedule.conflicts() == [])
    }

    @Test func overlapsOfEqualPriorityBetweenDifferentPlaylistsAreConflicts() {
        let schedule = Schedule(playlists: [], entries: [
            weekly("a", [.friday], "22:00", "02:00"),
            weekly("b", [.saturday], "01:00", "03:00"),  // Saturday 01:00–02:00 overlaps a
            weekly("a", [.friday], "23:00", "23:30"),  // inside entry 0, but the same playlist: no conflict
            weekly("c", [.sunday], "23:00", "01:00"),  // runs into Monday...
            weekly("d", [.monday], "00:30", "02:00"),  // ...and meets d across the end of the week
            weekly("e", [.monday], "00:30", "02:00", priority: 1),  // a higher priority decides
            dates("x", "2026-12-24", through: "2026-12-26"),
            dates("y", "2026-12-26", through: "2026-12-31"),
            dates("z", "2026-12-27", through: "2026-12-31", priority: 1),
        ], otherwise: .off)
        let conflicts = schedule.conflicts()
        #expect(conflicts.map { [$0.first, $0.second] } == [[0, 1], [3, 4], [6, 7]])
        #expect(conflicts[0].overlap == .weekly(WeekOverlap(start: 5 * 86_400 + 3600, length: 3600)))
        if case .weekly(let overlap) = conflicts[0].overlap { #expect(overlap.description == "sat 01:00–sat 02:00") }
        if case .weekly(let overlap) = conflicts[1].overlap { #expect(overlap.description == "mon 00:30–mon 01:00") }
        #expect(conflicts[2].overlap == .dates(ScheduleDateRange(from: local("2026-12-26 00:00"), until: local("2026-12-27 00:00"))))
    }

    @Test func adjacentWindowsOfOnePlaylistAreOneStretch() {
        let t = timeline([weekly("day", [.monday], "07:00", "12:00"), weekly("day", [.monday], "12:00", "19:00")])
        #expect(transitions(t, from: utc("2026-01-11T12:00:00Z"), days: 2) == [
            ScheduleTransition(utc("2026-01-12T06:00:00Z"), showing("day")),
            ScheduleTransition(utc("2026-01-12T18:00:00Z"), .off),
        ])
    }

    @Test func slidesAreValidFromUntil() {
        let lists = [SchedulePlaylist(name: "day", slideValidity: [
            .always,
            SlideValidity(from: local("2026-12-01 00:00"), until: local("2026-12-27 00:00")),
            SlideValidity(until: local("2026-12-02 12:30")),
        ])]
        let t = timeline([weekly("day", Weekday.weekdays, "07:00", "19:00")], playlists: lists)
        #expect(t.showing(at: utc("2026-11-30T12:00:00Z")) == .playlist("day", slides: [0, 2]))
        #expect(t.showing(at: utc("2026-12-01T12:00:00Z")) == .playlist("day", slides: [0, 1, 2]))
        #expect(t.showing(at: utc("2026-12-02T12:00:00Z")) == .playlist("day", slides: [0, 1]))
        // A validity boundary while the playlist shows is a transition; one while the screen is off is not.
        #expect(transitions(t, from: utc("2026-11-30T12:00:00Z"), days: 3) == [
            ScheduleTransition(utc("2026-11-30T18:00:00Z"), .off),
            ScheduleTransition(utc("2026-12-01T06:00:00Z"), .playlist("day", slides: [0, 1, 2])),
            ScheduleTransition(utc("2026-12-01T18:00:00Z"), .off),
            ScheduleTransition(utc("2026-12-02T06:00:00Z"), .playlist("day", slides: [0, 1, 2])),
            ScheduleTransition(utc("2026-12-02T11:30:00Z"), .playlist("day", slides: [0, 1])),
            ScheduleTransition(utc("2026-12-02T18:00:00Z"), .off),
            ScheduleTransition(utc("2026-12-03T06:00:00Z"), .playlist("day", slides: [0, 1])),
        ])
    }

    @Test func aScheduleThatNeverChangesHasNoSinceOrUntil() {
        let t = timeline([], otherwise: .playlist("always"))
        #expect(t.state(at: utc("2026-06-01T00:00:00Z")) == ScheduleState(showing: showing("always"), since: nil, until: nil))
        #expect(Array(t.transitions(after: utc("2026-06-01T00:00:00Z"))) == [])
    }

    @Test func oneOffBoundariesFarAwayAreFoundWithoutScanningEveryWeek() {
        let t = timeline([dates("jubilee", "2031-06-01", through: "2031-06-03")])
        #expect(Array(t.transitions(after: utc("2026-01-01T00:00:00Z"))) == [
            ScheduleTransition(utc("2031-05-31T22:00:00Z"), showing("jubilee")),
            ScheduleTransition(utc("2031-06-03T22:00:00Z"), .off),
        ])
        #expect(t.state(at: utc("2090-01-01T00:00:00Z")) == ScheduleState(showing: .off, since: utc("2031-06-03T22:00:00Z"), until: nil))
        #expect(t.state(at: utc("1970-01-01T00:00:00Z")) == ScheduleState(showing: .off, since: nil, until: utc("2031-05-31T22:00:00Z")))
    }

    @Test func sevenDaysOfTransitions() {
        let t = timeline([
            weekly("day", Weekday.weekdays, "07:00", "19:00"),
            weekly("weekend", Weekday.weekend, "10:00", "18:00"),
            weekly("night", [.friday, .saturday], "22:00", "02:00"),
        ])
        let week = transitions(t, from: utc("2026-03-23T00:00:00Z"), days: 7)  // Monday, 01:00 CET
        #expect(week.count == 18)  // five weekdays and two weekend days, two each; two nights, two each
        #expect(week.first == ScheduleTransition(utc("2026-03-23T06:00:00Z"), showing("day")))
        // Sunday after the spring change: 10:00 CEST is 08:00Z.
        #expect(week.contains(ScheduleTransition(utc("2026-03-29T08:00:00Z"), showing("weekend"))))
        #expect(week.last == ScheduleTransition(utc("2026-03-29T16:00:00Z"), .off))
        // Consecutive transitions always change something, and are in order.
        for (a, b) in zip(week, week.dropFirst()) {
            #expect(a.instant < b.instant && a.showing != b.showing)
        }
    }
}
