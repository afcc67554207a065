import VitrineCore

/// RFC 3339 timestamps, the manifest's `published`, `expires` and `epoch`:
/// `2026-03-28T12:00:00Z`, or with an offset (`2026-03-28T13:00:00+01:00`)
/// and fractional seconds, which are dropped (times are whole seconds, as
/// `WallInstant` is). Written always in UTC with `Z`.
public enum RFC3339 {
    public static func format(_ instant: WallInstant) -> String { instant.description }

    /// Nil if `text` is not an RFC 3339 date-time.
    public static func parse(_ text: String) -> WallInstant? {
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
        if bytes[index] == UInt8(ascii: ".") {
            index += 1
            let digitsStart = index
            while index < bytes.count, (0x30...0x39).contains(bytes[index]) { index += 1 }
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
        return WallInstant(utc: date, time) - Int64(offsetSeconds) + leap
    }
}
