/// A time of day on a wall clock, with no date and no zone: `07:00`.
///
/// `24:00` exists, as the end of a day (`until: "24:00"`): it is the next
/// day's `00:00`.
public struct LocalTime: Comparable, Hashable, Sendable, CustomStringConvertible {
    /// Seconds since midnight, 0 to 86,400 (the latter only for 24:00).
    public let secondsIntoDay: Int

    /// The time, or nil when the clock never shows it (25:00, 07:60). 24:00:00
    /// is allowed; 24:00:01 is not.
    public init?(hour: Int, minute: Int, second: Int = 0) {
        guard (0...24).contains(hour), (0...59).contains(minute), (0...59).contains(second),
              hour < 24 || (minute == 0 && second == 0) else { return nil }
        secondsIntoDay = hour * 3600 + minute * 60 + second
    }

    public init?(secondsIntoDay: Int) {
        guard (0...86_400).contains(secondsIntoDay) else { return nil }
        self.secondsIntoDay = secondsIntoDay
    }

    public static let midnight = LocalTime(hour: 0, minute: 0)!
    /// 24:00, the end of a day.
    public static let endOfDay = LocalTime(hour: 24, minute: 0)!

    public var hour: Int { secondsIntoDay / 3600 }
    public var minute: Int { secondsIntoDay / 60 % 60 }
    public var second: Int { secondsIntoDay % 60 }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.secondsIntoDay < rhs.secondsIntoDay }

    /// `07:00`, or `07:00:30` when there are seconds.
    public var description: String {
        second == 0 ? "\(pad(hour, 2)):\(pad(minute, 2))" : "\(pad(hour, 2)):\(pad(minute, 2)):\(pad(second, 2))"
    }
}

/// A date and a time on a wall clock, in no particular zone: what a schedule
/// says ("2026-12-24 18:00") before a zone turns it into an instant.
public struct LocalDateTime: Comparable, Hashable, Sendable, CustomStringConvertible {
    public let date: LocalDate
    /// Below 24:00: a `LocalDateTime` made with 24:00 is the next day's 00:00.
    public let time: LocalTime

    public init(_ date: LocalDate, _ time: LocalTime = .midnight) {
        self.init(secondsAsIfUTC: date.daysSinceEpoch * WallInstant.secondsPerDay + Int64(time.secondsIntoDay))
    }

    /// The date and time a UTC clock would show `seconds` after the epoch.
    public init(secondsAsIfUTC seconds: Int64) {
        let (days, rest) = seconds.quotientAndRemainder(dividingBy: WallInstant.secondsPerDay)
        let floorDays = rest < 0 ? days - 1 : days
        date = LocalDate(daysSinceEpoch: floorDays)
        time = LocalTime(secondsIntoDay: Int(seconds - floorDays * WallInstant.secondsPerDay))!
    }

    /// Seconds since 1970-01-01 00:00 on the same wall clock: the Unix time
    /// this would be if the zone were UTC. Differences are wall-clock
    /// differences, ignoring any zone's transitions.
    public var secondsAsIfUTC: Int64 { date.daysSinceEpoch * WallInstant.secondsPerDay + Int64(time.secondsIntoDay) }

    public func adding(seconds: Int64) -> LocalDateTime { LocalDateTime(secondsAsIfUTC: secondsAsIfUTC + seconds) }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.secondsAsIfUTC < rhs.secondsAsIfUTC }

    /// `2026-12-24T18:00:00`.
    public var iso8601: String {
        "\(date)T\(pad(time.hour, 2)):\(pad(time.minute, 2)):\(pad(time.second, 2))"
    }

    /// `2026-12-24 18:00`, as the configuration writes it (the date alone at midnight).
    public var description: String { time == .midnight ? "\(date)" : "\(date) \(time)" }
}
