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
              let value = Double(text), value.isFinite,
              // Int64(_:) traps beyond ±292 years of nanoseconds; such a value is malformed here.
              let nanoseconds = Int64(exactly: (value * scale).rounded()) else { return nil }
        return .nanoseconds(nanoseconds)
    }

    /// `400ms`, `5s`, `1.5s`: whole seconds, whole milliseconds under a second, or
    /// else exact decimal seconds; always a form `parse` reads back.
    public static func format(_ duration: Duration) -> String {
        let nanoseconds = duration.nanoseconds
        if nanoseconds % 1_000_000_000 == 0 { return "\(nanoseconds / 1_000_000_000)s" }
        if nanoseconds % 1_000_000 == 0, nanoseconds.magnitude < 1_000_000_000 { return "\(nanoseconds / 1_000_000)ms" }
        // Digits rather than Double's description, which turns to exponents (1e-06) that `parse` refuses.
        let magnitude = nanoseconds.magnitude
        var fraction = String(magnitude % 1_000_000_000)
        fraction = String(repeating: "0", count: 9 - fraction.count) + fraction
        while fraction.hasSuffix("0") { fraction.removeLast() }
        return "\(nanoseconds < 0 ? "-" : "")\(magnitude / 1_000_000_000).\(fraction)s"
    }
}

extension String {
    func trimmingCharacters(in character: Character) -> String {
        String(drop { $0 == character }.reversed().drop { $0 == character }.reversed())
    }
}
