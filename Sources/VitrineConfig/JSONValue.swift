import FoundationEssentials

/// A JSON value, for the free-form documents that mirror the configuration
/// file's grammar (the configuration's canonical form, a channel manifest, a
/// stored override) and for reading JSON whose shape is checked key by key.
/// Bodies with a fixed shape (the API's, play records, state files) are
/// Codable types of their own.
///
/// Why not `JSONSerialization`: it lives in full Foundation, which links ICU's
/// 34 MB of data into the binary; FoundationEssentials has only the Codable
/// coders. This type is what they encode and decode, with the few accessors
/// readers need. Integers stay integers (`Int64`), so a sequence number or a
/// millisecond count round-trips exactly.
public enum JSONValue: Hashable, Sendable {
    case null
    case bool(Bool)
    case integer(Int64)
    /// A whole number above `Int64.max` (a channel version may be any UInt64).
    case unsignedInteger(UInt64)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// How `encoded` writes.
    public struct WritingOptions: OptionSet, Sendable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }
        /// Keys in sorted order, so the same value always gives the same bytes.
        public static let sortedKeys = WritingOptions(rawValue: 1)
        /// Indented over several lines, for people.
        public static let prettyPrinted = WritingOptions(rawValue: 2)
        /// `/` as itself rather than `\/`, so URLs read as written.
        public static let withoutEscapingSlashes = WritingOptions(rawValue: 4)
    }

    /// A JSON text's value (UTF-8). Throws `DecodingError` when it is not JSON.
    public init(parsing bytes: some Collection<UInt8>) throws {
        self = try JSONDecoder().decode(JSONValue.self, from: Data(bytes))
    }

    /// The JSON text.
    public func encoded(_ options: WritingOptions = []) -> [UInt8] {
        // Every case encodes but a double that is not finite, which JSON has no form
        // for: a decoded document holds none, and the documents built by hand hold
        // only validated configuration values.
        (try? JSONText.encode(self, options)) ?? Array("null".utf8)
    }

    /// JSON allows DEL, the C1 controls and U+FFFE/U+FFFF raw inside strings;
    /// YAML 1.1, and so libyaml, refuses them anywhere in its input, except
    /// U+0085 (NEL), which it reads as a line break and so folds away. The
    /// configuration and override files are JSON read back through the YAML
    /// reader, so a string holding one (a YAML `"\u0080"` escape, say) would be
    /// stored in a form that no longer loads. Written as `\u` escapes, it
    /// reads back the same through either. These bytes occur only inside
    /// strings: JSON's structure is ASCII.
    static func escapingWhatYAMLRefuses(_ bytes: [UInt8]) -> [UInt8] {
        func escape(_ scalar: UInt32, into output: inout [UInt8]) {
            let hex = Array("0123456789abcdef".utf8)
            output += Array("\\u".utf8)
            for shift in [12, 8, 4, 0] { output.append(hex[Int((scalar >> UInt32(shift)) & 0xF)]) }
        }
        guard bytes.contains(where: { $0 == 0x7F || $0 == 0xC2 || $0 == 0xEF }) else { return bytes }
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count + 16)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == 0x7F {
                escape(0x7F, into: &output)
                index += 1
            } else if byte == 0xC2, index + 1 < bytes.count, (0x80...0x9F).contains(bytes[index + 1]) {
                escape(UInt32(bytes[index + 1]), into: &output)
                index += 2
            } else if byte == 0xEF, index + 2 < bytes.count, bytes[index + 1] == 0xBF, bytes[index + 2] == 0xBE || bytes[index + 2] == 0xBF {
                escape(bytes[index + 2] == 0xBE ? 0xFFFE : 0xFFFF, into: &output)
                index += 3
            } else {
                output.append(byte)
                index += 1
            }
        }
        return output
    }

    // MARK: Reading

    /// The member `key` of an object.
    public subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { members[key] } else { nil }
    }

    public var string: String? { if case .string(let text) = self { text } else { nil } }
    public var bool: Bool? { if case .bool(let flag) = self { flag } else { nil } }
    public var object: [String: JSONValue]? { if case .object(let members) = self { members } else { nil } }
    public var array: [JSONValue]? { if case .array(let items) = self { items } else { nil } }

    /// A whole number: an integer, or a double with no fraction that fits.
    public var int64: Int64? {
        switch self {
        case .integer(let number): number
        case .double(let number): Int64(exactly: number)
        default: nil
        }
    }

    /// A whole number that is not negative, as exactly as JSON wrote it.
    public var uint64: UInt64? {
        switch self {
        case .integer(let number): UInt64(exactly: number)
        case .unsignedInteger(let number): number
        case .double(let number): UInt64(exactly: number)
        default: nil
        }
    }

    public var int: Int? { int64.flatMap { Int(exactly: $0) } }

    /// Any number.
    public var double: Double? {
        switch self {
        case .integer(let number): Double(number)
        case .unsignedInteger(let number): Double(number)
        case .double(let number): number
        default: nil
        }
    }

    public var isNull: Bool { self == .null }
}

extension JSONValue: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let flag = try? container.decode(Bool.self) {
            self = .bool(flag)
        } else if let number = try? container.decode(Int64.self) {
            self = .integer(number)
        } else if let number = try? container.decode(UInt64.self) {
            self = .unsignedInteger(number)
        } else if let number = try? container.decode(Double.self) {
            self = .double(number)
        } else if let text = try? container.decode(String.self) {
            self = .string(text)
        } else if let items = try? container.decode([JSONValue].self) {
            self = .array(items)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let flag): try container.encode(flag)
        case .integer(let number): try container.encode(number)
        case .unsignedInteger(let number): try container.encode(number)
        case .double(let number): try container.encode(number)
        case .string(let text): try container.encode(text)
        case .array(let items): try container.encode(items)
        case .object(let members): try container.encode(members)
        }
    }
}
