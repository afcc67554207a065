/// A day of the week, numbered as ISO 8601 does: Monday is 1, Sunday 7.
public enum Weekday: Int, Hashable, Sendable, CaseIterable, Comparable, CustomStringConvertible {
    case monday = 1, tuesday, wednesday, thursday, friday, saturday, sunday

    /// Monday to Friday.
    public static let weekdays: Set<Weekday> = [.monday, .tuesday, .wednesday, .thursday, .friday]
    /// Saturday and Sunday.
    public static let weekend: Set<Weekday> = [.saturday, .sunday]

    /// The three-letter name the configuration uses: `mon` … `sun`.
    public var shortName: String {
        switch self {
        case .monday: return "mon"
        case .tuesday: return "tue"
        case .wednesday: return "wed"
        case .thursday: return "thu"
        case .friday: return "fri"
        case .saturday: return "sat"
        case .sunday: return "sun"
        }
    }

    /// `Mon` … `Sun`, for listings.
    public var displayName: String { shortName.prefix(1).uppercased() + shortName.dropFirst() }

    public var fullName: String {
        switch self {
        case .monday: return "monday"
        case .tuesday: return "tuesday"
        case .wednesday: return "wednesday"
        case .thursday: return "thursday"
        case .friday: return "friday"
        case .saturday: return "saturday"
        case .sunday: return "sunday"
        }
    }

    /// The day by its short (`mon`) or full (`monday`) name, lower case.
    public init?(name: String) {
        guard let day = Weekday.allCases.first(where: { $0.shortName == name || $0.fullName == name }) else { return nil }
        self = day
    }

    /// The day after this one (Sunday is followed by Monday).
    public var next: Weekday { Weekday(rawValue: rawValue % 7 + 1)! }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

    public var description: String { shortName }
}
