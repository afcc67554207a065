import VitrineCore

/// RFC 3339 timestamps, the manifest's `published`, `expires` and `epoch`:
/// `2026-03-28T12:00:00Z`, or with an offset (`2026-03-28T13:00:00+01:00`)
/// and fractional seconds, which `parse` drops (times are whole seconds, as
/// `WallInstant` is) and `parseNanoseconds` keeps. Written always in UTC with `Z`.
public enum RFC3339 {
    public static func format(_ instant: WallInstant) -> String { instant.description }

    /// Nil if `text` is not an RFC 3339 date-time.
    public static func parse(_ text: String) -> WallInstant? { parseWithFraction(text)?.instant }

    /// Nanoseconds since the epoch, keeping up to nine digits of the
    /// fraction (more are dropped); nil if `text` is not an RFC 3339
    /// date-time. Instants beyond what 64-bit nanoseconds hold (before 1678,
    /// after 2262) become the nearest one that fits: still before or after
    /// every instant a kiosk records.
    public static func parseNanoseconds(_ text: String) -> Int64? {
        guard let (instant, fraction) = parseWithFraction(text) else { return nil }
        let (seconds, overflow) = instant.secondsSinceEpoch.multipliedReportingOverflow(by: 1_000_000_000)
        let (nanoseconds, overflowAgain) = seconds.addingReportingOverflow(fraction)
        guard !overflow, !overflowAgain else { return instant.secondsSinceEpoch < 0 ? .min : .max }
        return nanoseconds
    }

    private static func parseWithFraction(_ text: String) -> (instant: WallInstant, fraction: Int64)? {
        let bytes = Array(text.utf8)
        // yyyy-mm-ddThh:mm:ss is 19 bytes; then fractions, then Z or ±hh:mm.
        guard bytes.count >= 20 else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for byte in bytes[range] {
                guard (0x30...0x39).contains(byte) else { return nil }
                value = value * 10 + Int(byte - 0x30)
            }
            return value
        }
        guard bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
              [UInt8(ascii: "T"), UInt8(ascii: "t"), UInt8(ascii: " ")].contains(bytes[10]),
              bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"),
              let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
              let hour = number(11..<13), let minute = number(14..<16), var second = number(17..<19),
              let date = LocalDate(year: year, month: month, day: day)
        else { return nil }
        var index = 19
        var fraction: Int64 = 0
        if bytes[index] == UInt8(ascii: ".") {
            index += 1
            let digitsStart = index
            var scale: Int64 = 100_000_000
            while index < bytes.count, (0x30...0x39).contains(bytes[index]) {
                fraction += Int64(bytes[index] - 0x30) * scale
                scale /= 10
                index += 1
            }
            guard index > digitsStart else { return nil }
        }
        guard index < bytes.count else { return nil }
        let offsetSeconds: Int
        switch bytes[index] {
        case UInt8(ascii: "Z"), UInt8(ascii: "z"):
            guard index + 1 == bytes.count else { return nil }
            offsetSeconds = 0
        case UInt8(ascii: "+"), UInt8(ascii: "-"):
            guard index + 6 == bytes.count, bytes[index + 3] == UInt8(ascii: ":"),
                  let hours = number(index + 1..<index + 3), let minutes = number(index + 4..<index + 6),
                  hours < 24, minutes < 60 else { return nil }
            offsetSeconds = (bytes[index] == UInt8(ascii: "-") ? -1 : 1) * (hours * 3600 + minutes * 60)
        default:
            return nil
        }
        // A leap second (23:59:60) is counted as the second after, as Unix time does.
        var leap: Int64 = 0
        if second == 60 { second = 59; leap = 1 }
        guard let time = LocalTime(hour: hour, minute: minute, second: second), time < .endOfDay else { return nil }
        return (WallInstant(utc: date, time) - Int64(offsetSeconds) + leap, fraction)
    }
}
