/// A point in real (wall-clock) time: whole seconds since 1970-01-01T00:00:00Z,
/// leap seconds not counted (Unix time, `CLOCK_REALTIME`).
///
/// The schedule never reads a clock: every question it answers takes the wall
/// time as a parameter, as the carousel engine takes `MonotonicInstant`. Wall
/// time, unlike monotonic time, can jump (an NTP step, an RTC-less board that
/// boots in 1970 and learns the date later); `ScheduleTracker` is what copes
/// with that. Whole seconds are enough: every schedule boundary is a whole
/// second, and a reading of 06:59:59.9 is still before a 07:00 boundary.
public struct WallInstant: Comparable, Hashable, Sendable, CustomStringConvertible {
    public var secondsSinceEpoch: Int64

    public init(secondsSinceEpoch: Int64) { self.secondsSinceEpoch = secondsSinceEpoch }

    /// The instant `nanoseconds` after the epoch, rounded down to the second
    /// (towards the past, also before 1970).
    public init(nanosecondsSinceEpoch nanoseconds: Int64) {
        let (quotient, remainder) = nanoseconds.quotientAndRemainder(dividingBy: 1_000_000_000)
        self.secondsSinceEpoch = remainder < 0 ? quotient - 1 : quotient
    }

    public static let epoch = WallInstant(secondsSinceEpoch: 0)

    /// The instant at the given UTC date and time.
    public init(utc date: LocalDate, _ time: LocalTime = .midnight) {
        self.init(secondsSinceEpoch: LocalDateTime(date, time).secondsAsIfUTC)
    }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.secondsSinceEpoch < rhs.secondsSinceEpoch }

    public static func + (lhs: Self, seconds: Int64) -> Self { WallInstant(secondsSinceEpoch: lhs.secondsSinceEpoch + seconds) }
    public static func - (lhs: Self, seconds: Int64) -> Self { WallInstant(secondsSinceEpoch: lhs.secondsSinceEpoch - seconds) }
    /// How many seconds `lhs` is after `rhs`.
    public static func - (lhs: Self, rhs: Self) -> Int64 { lhs.secondsSinceEpoch - rhs.secondsSinceEpoch }

    /// The UTC date and time of this instant.
    public var utc: LocalDateTime { LocalDateTime(secondsAsIfUTC: secondsSinceEpoch) }

    /// ISO 8601 in UTC: `2026-03-29T01:00:00Z`.
    public var description: String { utc.iso8601 + "Z" }

    public static let secondsPerDay: Int64 = 86_400
}
