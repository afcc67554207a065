import Testing
import VitrineConfig
import VitrineCore

// Helpers for the schedule tests in real zones (tzdata, read by TZifZone).

/// `2026-03-29T01:00:00Z` as an instant.
func utc(_ text: String) -> WallInstant {
    precondition(text.hasSuffix("Z"), "write instants in UTC: \(text)")
    let parts = ScheduleSyntax.dateTimeParts(String(text.dropLast()))!
    let date = LocalDate(year: parts.date.year, month: parts.date.month, day: parts.date.day)!
    let time = parts.time.map { LocalTime(hour: $0.hour, minute: $0.minute, second: $0.second)! } ?? .midnight
    return WallInstant(utc: date, time)
}

func zone(_ identifier: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> ScheduleTimeZone {
    try #require(ScheduleTimeZone(identifier: identifier), "tzdata has no \(identifier)", sourceLocation: sourceLocation)
}

/// The configuration `yaml` (which must be valid) and its schedule in its zone.
func scheduled(_ yaml: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> (ScheduleConfiguration, ScheduleTimeline) {
    let configuration = try ConfigLoader.parse(yaml)
    let schedule = try #require(configuration.schedule, sourceLocation: sourceLocation)
    return (schedule, try #require(schedule.timeline(), sourceLocation: sourceLocation))
}

/// The transitions in [start, start + days).
func transitions(_ timeline: ScheduleTimeline, from start: WallInstant, days: Int64) -> [ScheduleTransition] {
    Array(timeline.transitions(after: start).prefix { $0.instant < start + days * 86_400 })
}

/// "day", all `count` slides.
func showing(_ name: String, slides count: Int = 1) -> ScheduleShowing { .playlist(name, slides: Array(0..<count)) }
