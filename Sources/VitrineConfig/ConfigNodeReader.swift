import VitrineCore
import VitrineYAML

/// Reads typed values out of a YAML/JSON node tree, keeping the key path of
/// each value so that every problem can be reported where it is, and carrying
/// on after a problem so that one run reports them all.
final class ConfigNodeReader {
    private(set) var issues: [ConfigIssue] = []
    /// Whether pictures may be `blob:` references (a channel manifest's configuration only).
    var allowsBlobReferences = false

    func report(_ path: String, _ message: String) {
        issues.append(ConfigIssue(path: path, message: message))
    }

    /// A mapping at `path`, or nil (reported) if the node is something else.
    func object(_ node: YAMLNode, at path: String) -> ObjectReader? {
        guard case .mapping(let mapping) = node else {
            report(path, "must be a mapping of keys to values, found \(describe(node))")
            return nil
        }
        var entries: [(key: String, value: YAMLNode)] = []
        for (key, value) in mapping {
            guard case .scalar(let scalar) = key else {
                report(path, "keys must be plain strings, found \(describe(key))")
                continue
            }
            entries.append((scalar.string, value))
        }
        return ObjectReader(reader: self, path: path, entries: entries)
    }

    func sequence(_ node: YAMLNode, at path: String) -> [YAMLNode]? {
        guard case .sequence(let sequence) = node else {
            report(path, "must be a list, found \(describe(node))")
            return nil
        }
        return Array(sequence)
    }

    func string(_ node: YAMLNode, at path: String) -> String? {
        guard case .scalar(let scalar) = node, !isNull(scalar) else {
            report(path, "must be a string, found \(describe(node))")
            return nil
        }
        return scalar.string
    }

    func bool(_ node: YAMLNode, at path: String) -> Bool? {
        if case .scalar(let scalar) = node, scalar.style == .plain {
            switch scalar.string {
            case "true", "True", "TRUE": return true
            case "false", "False", "FALSE": return false
            default: break
            }
        }
        report(path, "must be true or false, found \(describe(node))")
        return nil
    }

    func integer(_ node: YAMLNode, at path: String, in range: ClosedRange<Int>) -> Int? {
        guard case .scalar(let scalar) = node, scalar.style == .plain, let value = Int(scalar.string.replacingUnderscores) else {
            report(path, "must be a whole number, found \(describe(node))")
            return nil
        }
        guard range.contains(value) else {
            report(path, "must be between \(range.lowerBound) and \(range.upperBound), found \(value)")
            return nil
        }
        return value
    }

    /// A duration: a number of seconds (`5`, `0.4`) or a string with a unit (`400ms`, `5s`, `2m`).
    /// It must be greater than zero unless `allowZero`.
    func duration(_ node: YAMLNode, at path: String, allowZero: Bool = false, maximum: Duration = .seconds(86_400)) -> Duration? {
        guard case .scalar(let scalar) = node, !isNull(scalar), let value = DurationSyntax.parse(scalar.string) else {
            report(path, "must be a duration: seconds as a number (5, 0.4) or with a unit (400ms, 5s, 2m), found \(describe(node))")
            return nil
        }
        if value < .zero || (!allowZero && value == .zero) {
            report(path, allowZero ? "must not be negative" : "must be greater than 0")
            return nil
        }
        guard value <= maximum else {
            report(path, "must be at most \(DurationSyntax.format(maximum))")
            return nil
        }
        return value
    }

    /// A number (whole or not) within `range`.
    func number(_ node: YAMLNode, at path: String, in range: ClosedRange<Double>) -> Double? {
        guard case .scalar(let scalar) = node, scalar.style == .plain, let value = Double(scalar.string.replacingUnderscores),
              value.isFinite else {
            report(path, "must be a number, found \(describe(node))")
            return nil
        }
        guard range.contains(value) else {
            report(path, "must be between \(range.lowerBound) and \(range.upperBound), found \(scalar.string)")
            return nil
        }
        return value
    }

    /// A size in bytes: a whole number, or with a unit `KB`, `MB`, `GB` (powers of 1000) or `KiB`, `MiB`, `GiB`.
    func byteSize(_ node: YAMLNode, at path: String, in range: ClosedRange<Int>) -> Int? {
        let units: [(suffix: String, factor: Int)] = [
            ("KiB", 1 << 10), ("MiB", 1 << 20), ("GiB", 1 << 30), ("KB", 1000), ("MB", 1_000_000), ("GB", 1_000_000_000), ("B", 1),
        ]
        guard case .scalar(let scalar) = node, !isNull(scalar) else {
            report(path, "must be a size such as 50MB, 512KiB or a number of bytes, found \(describe(node))")
            return nil
        }
        var text = scalar.string.trimmingCharacters(in: " ")
        var factor = 1
        if let unit = units.first(where: { text.hasSuffix($0.suffix) }) {
            factor = unit.factor
            text = String(text.dropLast(unit.suffix.count)).trimmingCharacters(in: " ")
        }
        guard let number = Int(text.replacingUnderscores), number >= 0 else {
            report(path, "must be a size such as 50MB, 512KiB or a number of bytes, found \(scalar.string)")
            return nil
        }
        let (bytes, overflow) = number.multipliedReportingOverflow(by: factor)
        guard !overflow, range.contains(bytes) else {
            report(path, "must be between \(range.lowerBound) and \(range.upperBound) bytes, found \(scalar.string)")
            return nil
        }
        return bytes
    }

    /// A display mode: `WIDTHxHEIGHT` or `WIDTHxHEIGHT@HZ`.
    func displayMode(_ node: YAMLNode, at path: String) -> DisplayModeSpec? {
        guard let text = string(node, at: path) else { return nil }
        guard let mode = DisplayModeSpec(parsing: text) else {
            report(path, "must be WIDTHxHEIGHT or WIDTHxHEIGHT@HZ, for example 1920x1080@60, found \(text)")
            return nil
        }
        return mode
    }

    /// How a panel is mounted: 0, 90, 180 or 270 degrees.
    func rotation(_ node: YAMLNode, at path: String) -> DisplayRotation? {
        guard let degrees = integer(node, at: path, in: 0...270) else { return nil }
        guard let rotation = DisplayRotation(rawValue: degrees) else {
            report(path, "must be 0, 90, 180 or 270, found \(degrees)")
            return nil
        }
        return rotation
    }

    func stringList(_ node: YAMLNode, at path: String) -> [String]? {
        guard let items = sequence(node, at: path) else { return nil }
        let strings = items.enumerated().compactMap { string($1, at: "\(path)[\($0)]") }
        return strings.count == items.count ? strings : nil
    }

    func color(_ node: YAMLNode, at path: String) -> RGBAColor? {
        if case .scalar(let scalar) = node, !isNull(scalar), let color = RGBAColor(hex: scalar.string) {
            return color
        }
        var message = "must be a colour \"#RRGGBB\" or \"#RRGGBBAA\", found \(describe(node))"
        if case .scalar(let scalar) = node, isNull(scalar) {
            message += " (quote the colour: an unquoted # starts a YAML comment)"
        }
        report(path, message)
        return nil
    }

    func choice<T: RawRepresentable & CaseIterable>(_ node: YAMLNode, at path: String, as type: T.Type) -> T? where T.RawValue == String {
        if case .scalar(let scalar) = node, let value = T(rawValue: scalar.string) { return value }
        let options = T.allCases.map(\.rawValue).joined(separator: ", ")
        report(path, "must be one of \(options), found \(describe(node))")
        return nil
    }

    func isNull(_ scalar: YAMLScalar) -> Bool {
        scalar.style == .plain && ["", "~", "null", "Null", "NULL"].contains(scalar.string)
    }

    /// How a node reads in an error message: its value for scalars, its kind otherwise.
    func describe(_ node: YAMLNode) -> String {
        switch node {
        case .scalar(let scalar):
            if isNull(scalar) { return "nothing (null)" }
            return scalar.style == .plain ? "\(scalar.string)" : "\"\(scalar.string)\""
        case .mapping: return "a mapping"
        case .sequence: return "a list"
        }
    }
}

/// The keys of one mapping: each read marks its key as known; `finish()` reports the rest.
struct ObjectReader {
    let reader: ConfigNodeReader
    let path: String
    let entries: [(key: String, value: YAMLNode)]
    private var known: Set<String> = []

    init(reader: ConfigNodeReader, path: String, entries: [(key: String, value: YAMLNode)]) {
        self.reader = reader
        self.path = path
        self.entries = entries
    }

    func child(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    /// Whether the mapping has `key` at all (whatever its value).
    func has(_ key: String) -> Bool { entries.contains { $0.key == key } }

    /// The node for `key`, if present; `key` becomes a known key either way.
    mutating func take(_ key: String) -> (node: YAMLNode, path: String)? {
        known.insert(key)
        return entries.first { $0.key == key }.map { ($0.value, child($0.key)) }
    }

    mutating func read<T>(_ key: String, _ parse: (ConfigNodeReader, YAMLNode, String) -> T?) -> T? {
        guard let (node, path) = take(key) else { return nil }
        return parse(reader, node, path)
    }

    /// Reports every key that was never asked for, with the closest known key as a hint
    /// (the alphabetically first of equally close ones, so the message is always the same).
    func finish() {
        for entry in entries where !known.contains(entry.key) {
            var message = "unknown key"
            if let suggestion = known.sorted().min(by: { editDistance($0, entry.key) < editDistance($1, entry.key) }),
               editDistance(suggestion, entry.key) <= max(2, entry.key.count / 3) {
                message += " (did you mean \"\(suggestion)\"?)"
            } else {
                message += " (known keys: \(known.sorted().joined(separator: ", ")))"
            }
            reader.report(child(entry.key), message)
        }
    }
}

/// Levenshtein distance, for "did you mean" hints.
func editDistance(_ a: String, _ b: String) -> Int {
    let a = Array(a.lowercased()), b = Array(b.lowercased())
    guard !a.isEmpty else { return b.count }
    var previous = Array(0...b.count)
    for i in 1...a.count {
        var current = [i] + Array(repeating: 0, count: b.count)
        for j in stride(from: 1, through: b.count, by: 1) {
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
        }
        previous = current
    }
    return previous[b.count]
}

extension String {
    var replacingUnderscores: String { filter { $0 != "_" } }
}
