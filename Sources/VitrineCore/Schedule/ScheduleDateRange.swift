/// A one-off period on the calendar: from a wall-clock date and time until
/// another, the end excluded.
///
/// The configuration's `dates: {from: 2026-12-24, until: 2026-12-26}` is
/// inclusive of its last day; it arrives here as `from` 2026-12-24 00:00 and
/// `until` 2026-12-27 00:00. Both ends become instants by
/// `ZoneRules.instant(for:)`.
public struct ScheduleDateRange: Hashable, Sendable {
    public var from: LocalDateTime
    /// The first reading after the range: excluded.
    public var until: LocalDateTime

    public init(from: LocalDateTime, until: LocalDateTime) {
        self.from = from
        self.until = until
    }

    /// Whole days, `first` to `last` inclusive.
    public init(days first: LocalDate, through last: LocalDate) {
        self.init(from: LocalDateTime(first), until: LocalDateTime(last.adding(days: 1)))
    }

    /// Where this range and `other` overlap on the clock, or nil.
    public func overlap(with other: ScheduleDateRange) -> ScheduleDateRange? {
        let start = max(from, other.from), end = min(until, other.until)
        return start < end ? ScheduleDateRange(from: start, until: end) : nil
    }
}
