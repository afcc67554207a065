/// A window that comes back every week: on some days of the week, from one
/// wall-clock time until another.
///
/// **A window that crosses midnight belongs to the day it starts.** With
/// `until` at or before `from`, the window ends on the next day: Friday
/// 22:00–02:00 is Friday 22:00 until Saturday 02:00, and Sunday 22:00–02:00
/// runs into Monday, the next week. `until` may be 24:00, the end of the day.
/// Its two ends become instants by `ZoneRules.instant(for:)`, each on its own
/// date, so a window across the night clocks change lasts an hour more or less
/// than its clock times say (Saturday 22:00–04:00 across the spring change in
/// Europe/Berlin is five hours long).
public struct WeeklyWindow: Hashable, Sendable {
    /// The days the window starts on.
    public var days: Set<Weekday>
    public var from: LocalTime
    public var until: LocalTime

    public init(days: Set<Weekday>, from: LocalTime = .midnight, until: LocalTime = .endOfDay) {
        self.days = days
        self.from = from
        self.until = until
    }

    /// Whether the window ends on the day after it starts (`until` ≤ `from`).
    public var crossesMidnight: Bool { until <= from }

    /// Its length on the clock, in seconds: up to a whole day.
    public var clockLength: Int64 {
        Int64(crossesMidnight ? until.secondsIntoDay + 86_400 - from.secondsIntoDay : until.secondsIntoDay - from.secondsIntoDay)
    }

    /// The occurrence that starts on `date`, as wall-clock readings, or nil
    /// when the window does not start on that day of the week.
    public func occurrence(startingOn date: LocalDate) -> (start: LocalDateTime, end: LocalDateTime)? {
        guard days.contains(date.weekday) else { return nil }
        let start = LocalDateTime(date, from)
        return (start, start.adding(seconds: clockLength))
    }

    /// Where the window is in the week, as seconds since Monday 00:00 on the
    /// clock: one span per day, possibly running past the end of the week
    /// (Sunday 22:00–02:00 is 597,600 to 612,000).
    public var weekSpans: [Range<Int64>] {
        days.sorted().map { day in
            let start = Int64(day.rawValue - 1) * 86_400 + Int64(from.secondsIntoDay)
            return start..<(start + clockLength)
        }
    }

    /// Where this window and `other` are open at the same clock time, or nil
    /// when they never are. Spans past the end of the week wrap to Monday.
    public func overlap(with other: WeeklyWindow) -> WeekOverlap? {
        let week: Int64 = 7 * 86_400
        for a in weekSpans {
            for b in other.weekSpans {
                // Compare b also a week earlier and later, for spans that run past Sunday.
                for shift in [-week, 0, week] {
                    let start = max(a.lowerBound, b.lowerBound + shift), end = min(a.upperBound, b.upperBound + shift)
                    if start < end { return WeekOverlap(start: ((start % week) + week) % week, length: end - start) }
                }
            }
        }
        return nil
    }
}

/// A stretch of the week on the clock where two windows are both open: its
/// start in seconds since Monday 00:00, and its length.
public struct WeekOverlap: Hashable, Sendable, CustomStringConvertible {
    public var start: Int64
    public var length: Int64

    /// `fri 22:00–sat 02:00`.
    public var description: String {
        func moment(_ seconds: Int64) -> String {
            let inWeek = seconds % (7 * 86_400)
            let day = Weekday(rawValue: Int(inWeek / 86_400) + 1)!
            return "\(day.shortName) \(LocalTime(secondsIntoDay: Int(inWeek % 86_400))!)"
        }
        return "\(moment(start))–\(moment(start + length))"
    }
}
