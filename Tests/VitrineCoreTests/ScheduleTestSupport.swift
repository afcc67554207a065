import Testing
@testable import VitrineCore

// Helpers for the schedule tests: instants written as ISO 8601, and zones
// with known rules that need no tzdata (the real zones are tested in
// VitrineConfigTests, from tzdata through TZifZone).

/// `2026-03-29T01:00:00Z` (seconds optional) as an instant.
func utc(_ text: String) -> WallInstant {
    precondition(text.hasSuffix("Z"), "write instants in UTC: \(text)")
    return WallInstant(secondsSinceEpoch: local(String(text.dropLast())).secondsAsIfUTC)
}

/// `2026-03-29T02:30` or `2026-03-29 02:30[:00]` as a wall-clock reading.
func local(_ text: String) -> LocalDateTime {
    let pieces = text.split(whereSeparator: { $0 == "T" || $0 == " " })
    let d = pieces[0].split(separator: "-").map { Int($0)! }
    let t = pieces.count > 1 ? pieces[1].split(separator: ":").map { Int($0)! } : [0, 0]
    return LocalDateTime(LocalDate(year: d[0], month: d[1], day: d[2])!,
                         LocalTime(hour: t[0], minute: t[1], second: t.count > 2 ? t[2] : 0)!)
}

func date(_ text: String) -> LocalDate { local(text).date }

func time(_ text: String) -> LocalTime {
    let t = text.split(separator: ":").map { Int($0)! }
    return LocalTime(hour: t[0], minute: t[1])!
}

/// Central European Time by the EU's rule since 1996: CEST from the last
/// Sunday of March 01:00Z to the last Sunday of October 01:00Z. Europe/Berlin
/// follows it; written out here so the core is tested without tzdata.
struct EuropeanRulesZone: ZoneRules {
    let identifier = "Test/CentralEurope"

    static func lastSunday(of month: Int, _ year: Int) -> LocalDate {
        var day = LocalDate(year: year, month: month, day: LocalDate.daysIn(month: month, year: year))!
        while day.weekday != .sunday { day = day.adding(days: -1) }
        return day
    }

    func isSummer(_ instant: WallInstant) -> Bool {
        let year = instant.utc.date.year
        let start = WallInstant(utc: Self.lastSunday(of: 3, year), LocalTime(hour: 1, minute: 0)!)
        let end = WallInstant(utc: Self.lastSunday(of: 10, year), LocalTime(hour: 1, minute: 0)!)
        return start <= instant && instant < end
    }

    func utcOffset(at instant: WallInstant) -> Int { isSummer(instant) ? 7200 : 3600 }
    func abbreviation(at instant: WallInstant) -> String { isSummer(instant) ? "CEST" : "CET" }
}

/// A playlist of `count` slides, each always valid.
func playlist(_ name: String, slides count: Int = 1) -> SchedulePlaylist {
    SchedulePlaylist(name: name, slideValidity: Array(repeating: .always, count: count))
}

func weekly(_ playlist: String, _ days: Set<Weekday>, _ from: String, _ until: String, priority: Int = 0) -> ScheduleEntry {
    ScheduleEntry(playlist: playlist, period: .weekly(WeeklyWindow(days: days, from: time(from), until: time(until))), priority: priority)
}

func dates(_ playlist: String, _ first: String, through last: String, priority: Int = 0) -> ScheduleEntry {
    ScheduleEntry(playlist: playlist, period: .dates(ScheduleDateRange(days: date(first), through: date(last))), priority: priority)
}

/// `.playlist(name)` with all of its `count` slides.
func showing(_ name: String, slides count: Int = 1) -> ScheduleShowing { .playlist(name, slides: Array(0..<count)) }

/// The transitions in [from, from + days), as (instant, showing) pairs.
func transitions(_ timeline: ScheduleTimeline, from start: WallInstant, days: Int64) -> [ScheduleTransition] {
    Array(timeline.transitions(after: start).prefix { $0.instant < start + days * 86_400 })
}
