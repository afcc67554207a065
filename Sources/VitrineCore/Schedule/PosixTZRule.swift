/// The rule a POSIX TZ string states: how a zone's clock stands at any time,
/// given as one or two local time types and, with two, the yearly dates on
/// which the clock changes between them.
///
///     std offset [dst [offset] [,start[/time],end[/time]]]
///
///     CET-1CEST,M3.5.0,M10.5.0/3              Europe/Berlin
///     EST5EDT,M3.2.0,M11.1.0                  America/New_York
///     <+1030>-10:30<+11>-11,M10.1.0,M4.1.0    Australia/Lord_Howe
///     <-03>3                                  America/Sao_Paulo (no daylight saving time)
///
/// This is the string at the end of a TZif file (RFC 8536 §3.3), which rules
/// every instant after the file's table of transitions, and the form `$TZ`
/// may take (POSIX.1-2024 §8.3). RFC 8536 §3.3.1's extensions are accepted
/// in every string: a change's time may be negative or past 24:00. Pure
/// arithmetic on `LocalDate`: no file system, no Foundation.
public struct PosixTZRule: Hashable, Sendable, CustomStringConvertible {
    /// The clock outside daylight saving time: `CET`, +1 hour.
    public let standard: LocalTimeType
    /// The clock in daylight saving time and when it applies; nil when the
    /// zone has none (`JST-9`, `<-03>3`).
    public let daylightSaving: DaylightSaving?
    /// The string as given.
    public let description: String

    /// Daylight saving time: its local time type, from `start` (on the
    /// standard-time clock) to `end` (on the daylight-saving clock) each year.
    public struct DaylightSaving: Hashable, Sendable {
        public let type: LocalTimeType
        public let start: Change
        public let end: Change
    }

    /// A yearly clock change: a day of the year and a time on that day.
    public struct Change: Hashable, Sendable {
        public let day: Day
        /// Seconds after that day's midnight, on the clock in force before the
        /// change; 7200 (02:00) when the string gives no `/time`. RFC 8536's
        /// version 3 allows -167 to 167 hours, so that a change can be written
        /// relative to a day other than the one it falls on:
        /// `M3.5.0/-1` is 23:00 on the Saturday before the last Sunday of March
        /// (America/Nuuk), `M3.4.4/26` 02:00 on the Friday after the fourth
        /// Thursday (Asia/Jerusalem), and `J365/25` lies in the next year.
        public let secondsIntoDay: Int
    }

    /// The day of a `Change`.
    public enum Day: Hashable, Sendable {
        /// `Jn`: day `n`, 1 to 365, never counting February 29, so `J60` is
        /// always March 1.
        case julian(Int)
        /// `n`: day `n`, 0 to 365, counting February 29 in leap years.
        case zeroBased(Int)
        /// `Mm.w.d`: weekday `d` (0 is Sunday) of week `w` (1 to 5, 5 being
        /// the last such weekday of the month, whether it is the 4th or the
        /// 5th) of month `m`.
        case weekdayOfMonth(month: Int, week: Int, weekday: Int)
    }

    /// What is wrong with a TZ string, and where: `position` counts bytes
    /// from 0.
    public enum ParseError: Error, Hashable, Sendable, CustomStringConvertible {
        /// A zone abbreviation: three or more ASCII letters, or three or more
        /// letters, digits, `+` and `-` between `<` and `>`.
        case badName(position: Int)
        /// An offset: `[+|-]hh[:mm[:ss]]`, hours 0 to 24.
        case badOffset(position: Int)
        /// A change's day: `Jn` (1…365), `n` (0…365) or `Mm.w.d`.
        case badDay(position: Int)
        /// A change's time: `[+|-]hh[:mm[:ss]]`, hours -167 to 167.
        case badTime(position: Int)
        /// Something after the rule, or `,start` without `,end`.
        case unexpected(position: Int)

        public var description: String {
            switch self {
            case .badName(let at): return "TZ string: bad zone abbreviation at byte \(at)"
            case .badOffset(let at): return "TZ string: bad UTC offset at byte \(at)"
            case .badDay(let at): return "TZ string: bad day of a clock change at byte \(at)"
            case .badTime(let at): return "TZ string: bad time of a clock change at byte \(at)"
            case .unexpected(let at): return "TZ string: unexpected text at byte \(at)"
            }
        }
    }

    /// The rule `text` states (`CET-1CEST,M3.5.0,M10.5.0/3`).
    public init(_ text: String) throws(ParseError) {
        var scanner = Scanner(bytes: Array(text.utf8))
        let standardName = try scanner.name()
        let standardOffsetStart = scanner.position
        guard let standardOffset = scanner.duration(maxHours: 24) else { throw .badOffset(position: standardOffsetStart) }
        // POSIX counts hours *west* of UTC as positive (`EST5`, `CET-1`): the
        // opposite sign of every UTC offset in TZif data and in `ZoneRules`.
        standard = LocalTimeType(utcOffset: -standardOffset, isDaylightSaving: false, abbreviation: standardName)
        description = text
        if scanner.atEnd {
            daylightSaving = nil
            return
        }
        let daylightName = try scanner.name()
        var daylightOffset = standard.utcOffset + 3600  // One hour ahead when the string gives no offset.
        if let next = scanner.current, next != UInt8(ascii: ",") {
            let offsetStart = scanner.position
            guard let offset = scanner.duration(maxHours: 24) else { throw .badOffset(position: offsetStart) }
            daylightOffset = -offset
        }
        let daylightType = LocalTimeType(utcOffset: daylightOffset, isDaylightSaving: true, abbreviation: daylightName)
        let start: Change, end: Change
        if scanner.atEnd {
            // `EST5EDT` alone: POSIX leaves the dates to the implementation;
            // glibc and tzcode use the United States' rule since 2007.
            start = Change(day: .weekdayOfMonth(month: 3, week: 2, weekday: 0), secondsIntoDay: 7200)
            end = Change(day: .weekdayOfMonth(month: 11, week: 1, weekday: 0), secondsIntoDay: 7200)
        } else {
            guard scanner.skip(",") else { throw .unexpected(position: scanner.position) }
            start = try scanner.change()
            guard scanner.skip(",") else { throw .unexpected(position: scanner.position) }
            end = try scanner.change()
            guard scanner.atEnd else { throw .unexpected(position: scanner.position) }
        }
        daylightSaving = DaylightSaving(type: daylightType, start: start, end: end)
    }

    /// `UTC0`: UTC all year.
    public static let utc = PosixTZRule(
        standard: LocalTimeType(utcOffset: 0, isDaylightSaving: false, abbreviation: "UTC"), description: "UTC0")

    private init(standard: LocalTimeType, description: String) {
        self.standard = standard
        self.daylightSaving = nil
        self.description = description
    }

    /// The local time type in force at `instant`.
    public func localTimeType(at instant: WallInstant) -> LocalTimeType {
        guard let daylightSaving else { return standard }
        // The changes of the years around the instant's, in UTC; the latest
        // one at or before the instant says which type is in force. Looking a
        // year either side matters because a change's time can push it into
        // the neighbouring year (`J365/25`) and because in the southern
        // hemisphere the year starts in daylight saving time. A start that
        // falls on the same instant as an end wins: `EST5EDT,0/0,J365/25` is
        // RFC 8536's way of writing daylight saving time all year.
        let year = Self.clampedYear(instant)
        var latest: (at: Int64, isStart: Bool)?
        for candidate in (year - 2)...(year + 1) {
            let (start, end) = changes(in: candidate, daylightSaving)
            for change in [(at: end, isStart: false), (at: start, isStart: true)] where change.at <= instant.secondsSinceEpoch {
                if let current = latest, current.at > change.at || (current.at == change.at && current.isStart) { continue }
                latest = change
            }
        }
        return latest?.isStart == true ? daylightSaving.type : standard
    }

    /// When daylight saving time starts and ends in `year` (in UTC), or nil
    /// when the rule has none. In the southern hemisphere the end comes first.
    public func changes(in year: Int) -> (start: WallInstant, end: WallInstant)? {
        guard let daylightSaving, (Self.years).contains(year) else { return nil }
        let (start, end) = changes(in: year, daylightSaving)
        return (WallInstant(secondsSinceEpoch: start), WallInstant(secondsSinceEpoch: end))
    }

    // MARK: Calendar arithmetic

    /// The years `LocalDate` can hold.
    private static let years = -9999...9999

    /// The instant's UTC year, kept where `year - 2 ... year + 1` are all
    /// years `LocalDate` holds: instants beyond them get the rule of the
    /// years at the edge, which is as good as any. The instant is clamped
    /// first, as the calendar arithmetic would overflow near `Int64.min`.
    private static func clampedYear(_ instant: WallInstant) -> Int {
        let seconds = min(max(instant.secondsSinceEpoch, -300_000_000_000), 250_000_000_000)  // years -7537 to 9892
        return min(max(WallInstant(secondsSinceEpoch: seconds).utc.date.year, years.lowerBound + 2), years.upperBound - 1)
    }

    private func changes(in year: Int, _ daylightSaving: DaylightSaving) -> (start: Int64, end: Int64) {
        // Each change is read on the clock in force just before it: the start
        // on standard time, the end on daylight saving time.
        let start = Self.secondsAsIfUTC(daylightSaving.start, year) - Int64(standard.utcOffset)
        let end = Self.secondsAsIfUTC(daylightSaving.end, year) - Int64(daylightSaving.type.utcOffset)
        return (start, end)
    }

    /// The change's local date and time in `year`, as seconds on a UTC clock.
    private static func secondsAsIfUTC(_ change: Change, _ year: Int) -> Int64 {
        guard let newYear = LocalDate(year: year, month: 1, day: 1) else { return 0 }  // `year` is in `years`.
        var days: Int64
        switch change.day {
        case .julian(let n):
            days = newYear.daysSinceEpoch + Int64(n - 1)
            if LocalDate.isLeapYear(year) && n >= 60 { days += 1 }
        case .zeroBased(let n):
            days = newYear.daysSinceEpoch + Int64(n)
        case .weekdayOfMonth(let month, let week, let weekday):
            guard let first = LocalDate(year: year, month: month, day: 1) else { return 0 }  // Validated when parsed.
            let firstWeekday = first.weekday.rawValue % 7  // Sunday is 0, as in the string.
            var day = 1 + (weekday - firstWeekday + 7) % 7 + 7 * (week - 1)
            while day > LocalDate.daysIn(month: month, year: year) { day -= 7 }
            days = first.daysSinceEpoch + Int64(day - 1)
        }
        return days * WallInstant.secondsPerDay + Int64(change.secondsIntoDay)
    }
}

/// Reads a TZ string byte by byte; every read checks its bounds.
private struct Scanner {
    let bytes: [UInt8]
    var position = 0

    var current: UInt8? { position < bytes.count ? bytes[position] : nil }
    var atEnd: Bool { position >= bytes.count }

    mutating func skip(_ character: Unicode.Scalar) -> Bool {
        guard current == UInt8(ascii: character) else { return false }
        position += 1
        return true
    }

    /// `CET`, or `<+1030>` without its brackets.
    mutating func name() throws(PosixTZRule.ParseError) -> String {
        let start = position
        if skip("<") {
            let first = position
            while let byte = current, byte.isASCIILetterOrDigit || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-") { position += 1 }
            let name = bytes[first..<position]
            guard name.count >= 3, skip(">") else { throw .badName(position: start) }
            return String(decoding: name, as: UTF8.self)
        }
        while let byte = current, byte.isASCIILetter { position += 1 }
        guard position - start >= 3 else { throw .badName(position: start) }
        return String(decoding: bytes[start..<position], as: UTF8.self)
    }

    /// `[+|-]hh[:mm[:ss]]` in seconds, with the sign as written; nil when
    /// malformed or when the hours exceed `maxHours`.
    mutating func duration(maxHours: Int) -> Int? {
        var sign = 1
        if skip("-") { sign = -1 } else { _ = skip("+") }
        guard let hours = number(maxDigits: 3), hours <= maxHours else { return nil }
        var seconds = hours * 3600
        if skip(":") {
            guard let minutes = number(maxDigits: 2), minutes <= 59 else { return nil }
            seconds += minutes * 60
            if skip(":") {
                guard let more = number(maxDigits: 2), more <= 59 else { return nil }
                seconds += more
            }
        }
        return sign * seconds
    }

    /// `Mm.w.d`, `Jn` or `n`, then an optional `/time`.
    mutating func change() throws(PosixTZRule.ParseError) -> PosixTZRule.Change {
        let start = position
        let day: PosixTZRule.Day
        if skip("M") {
            guard let month = number(maxDigits: 2), (1...12).contains(month), skip("."),
                  let week = number(maxDigits: 1), (1...5).contains(week), skip("."),
                  let weekday = number(maxDigits: 1), (0...6).contains(weekday) else { throw .badDay(position: start) }
            day = .weekdayOfMonth(month: month, week: week, weekday: weekday)
        } else if skip("J") {
            guard let n = number(maxDigits: 3), (1...365).contains(n) else { throw .badDay(position: start) }
            day = .julian(n)
        } else {
            guard let n = number(maxDigits: 3), (0...365).contains(n) else { throw .badDay(position: start) }
            day = .zeroBased(n)
        }
        var seconds = 7200
        if skip("/") {
            let timeStart = position
            // POSIX allows 0 to 24 hours; RFC 8536 §3.3.1 (version 3) extends
            // that to -167 to 167, a week either way.
            guard let time = duration(maxHours: 167) else { throw .badTime(position: timeStart) }
            seconds = time
        }
        return PosixTZRule.Change(day: day, secondsIntoDay: seconds)
    }

    /// One to `maxDigits` decimal digits.
    mutating func number(maxDigits: Int) -> Int? {
        var value = 0, digits = 0
        while let byte = current, byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
            guard digits < maxDigits else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
            digits += 1
            position += 1
        }
        return digits > 0 ? value : nil
    }
}

extension UInt8 {
    fileprivate var isASCIILetter: Bool {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(self) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(self)
    }
    fileprivate var isASCIILetterOrDigit: Bool { isASCIILetter || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self) }
}
