/// The textual form of durations in configuration files.
public enum DurationSyntax {
    /// Parses `5`, `0.4` (seconds), `400ms`, `5s`, `1.5s`, `2m` or `2min`; nil if malformed.
    public static func parse(_ text: String) -> Duration? {
        let trimmed = text.trimmingCharacters(in: " ")
        let units: [(suffix: String, nanoseconds: Double)] = [("ms", 1e6), ("min", 60e9), ("s", 1e9), ("m", 60e9)]
        for unit in units where trimmed.hasSuffix(unit.suffix) {
            return number(String(trimmed.dropLast(unit.suffix.count)).trimmingCharacters(in: " "), scale: unit.nanoseconds)
        }
        return number(trimmed, scale: 1e9)
    }

    private static func number(_ text: String, scale: Double) -> Duration? {
        guard !text.isEmpty, text.allSatisfy({ $0.isNumber || $0 == "." || $0 == "-" }),
              let value = Double(text), value.isFinite else { return nil }
        return .nanoseconds(Int64((value * scale).rounded()))
    }

    /// `400ms`, `5s`, `1.5s`: the shortest exact form.
    public static func format(_ duration: Duration) -> String {
        let nanoseconds = duration.nanoseconds
        if nanoseconds % 1_000_000_000 == 0 { return "\(nanoseconds / 1_000_000_000)s" }
        if nanoseconds % 1_000_000 == 0 { return "\(nanoseconds / 1_000_000)ms" }
        return "\(Double(nanoseconds) / 1e9)s"
    }
}

extension String {
    func trimmingCharacters(in character: Character) -> String {
        String(drop { $0 == character }.reversed().drop { $0 == character }.reversed())
    }
}
