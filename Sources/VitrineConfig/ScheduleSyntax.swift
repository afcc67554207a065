import VitrineCore

/// The textual forms of the schedule's times and dates.
public enum ScheduleSyntax {
    /// `07:00`, `7:00` or `07:00:30`: hour, minute, second as written (not range-checked).
    public static func timeParts(_ text: String) -> (hour: Int, minute: Int, second: Int)? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2 || parts.count == 3,
              (1...2).contains(parts[0].count), parts.dropFirst().allSatisfy({ $0.count == 2 }),
              parts.allSatisfy({ $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }) else { return nil }
        return (Int(parts[0])!, Int(parts[1])!, parts.count == 3 ? Int(parts[2])! : 0)
    }

    /// `2026-12-24`: year, month, day as written (not range-checked).
    public static func dateParts(_ text: Substring) -> (year: Int, month: Int, day: Int)? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
              parts.allSatisfy({ $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }) else { return nil }
        return (Int(parts[0])!, Int(parts[1])!, Int(parts[2])!)
    }

    /// `2026-12-24`, `2026-12-24 18:00` or `2026-12-24T18:00[:00]`: the date's
    /// and (if any) the time's parts.
    public static func dateTimeParts(_ text: String) -> (date: (year: Int, month: Int, day: Int), time: (hour: Int, minute: Int, second: Int)?)? {
        let pieces = text.split(whereSeparator: { $0 == "T" || $0 == " " })
        guard (1...2).contains(pieces.count), let date = dateParts(pieces[0]) else { return nil }
        guard pieces.count == 2 else { return (date, nil) }
        guard let time = timeParts(String(pieces[1])) else { return nil }
        return (date, time)
    }

    /// Why `year-month-day` is not a date, or nil when it is.
    public static func dateProblem(year: Int, month: Int, day: Int) -> String? {
        let written = "\(pad4(year))-\(pad2(month))-\(pad2(day))"
        guard (1...12).contains(month) else { return "there is no \(written): months go from 01 to 12" }
        let days = LocalDate.daysIn(month: month, year: year)
        guard (1...days).contains(day) else { return "there is no \(written): \(monthNames[month - 1]) \(year) has \(days) days" }
        return nil
    }

    /// Why `hour:minute:second` is not a time, or nil when it is; 24:00 is a
    /// time only where `endOfDay` allows it.
    public static func timeProblem(hour: Int, minute: Int, second: Int, endOfDay: Bool) -> String? {
        let written = "\(pad2(hour)):\(pad2(minute))" + (second == 0 ? "" : ":\(pad2(second))")
        if hour == 24, minute == 0, second == 0 {
            return endOfDay ? nil : "24:00 is only for until (the end of a day); from starts at 00:00 to 23:59"
        }
        guard (0...23).contains(hour), (0...59).contains(minute), (0...59).contains(second) else {
            return "there is no time \(written): hours go from 00 to 23, minutes from 00 to 59" + (endOfDay ? " (or 24:00, the end of the day)" : "")
        }
        return nil
    }

    static let monthNames = ["January", "February", "March", "April", "May", "June", "July", "August", "September",
                             "October", "November", "December"]

    private static func pad2(_ value: Int) -> String { value < 10 && value >= 0 ? "0\(value)" : "\(value)" }
    private static func pad4(_ value: Int) -> String {
        let digits = String(value)
        return value >= 0 && digits.count < 4 ? String(repeating: "0", count: 4 - digits.count) + digits : digits
    }
}
