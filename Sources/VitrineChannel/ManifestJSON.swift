/// A small, strict JSON reader for channel manifests.
///
/// Why not JSONSerialization: the manifest's `version` must be read exactly
/// as a UInt64 (JSONSerialization goes through Double or NSNumber guesses),
/// duplicate keys must be refused rather than silently resolved, nesting is
/// bounded, and every value keeps the byte range it came from, so the
/// `configuration` object reaches `ConfigLoader` as the exact bytes that were
/// signed rather than a re-serialisation of them.
struct ManifestJSON: Sendable {
    indirect enum Value: Sendable {
        case null
        case bool(Bool)
        /// The number's text as written (RFC 8259 grammar already checked).
        case number(String)
        case string(String)
        case array([ManifestJSON])
        /// Keys in document order; duplicates are refused while reading.
        case object([(key: String, value: ManifestJSON)])

        var typeName: String {
            switch self {
            case .null: "null"
            case .bool: "a boolean"
            case .number: "a number"
            case .string: "a string"
            case .array: "an array"
            case .object: "an object"
            }
        }
    }

    var value: Value
    /// Where the value's text is in the document.
    var range: Range<Int>

    struct SyntaxError: Error, Sendable {
        var offset: Int
        var message: String
    }

    /// Deep enough for any configuration (about six levels), shallow enough
    /// that a hostile document cannot exhaust the stack.
    static let maximumDepth = 64

    static func parse(_ bytes: [UInt8]) throws(SyntaxError) -> ManifestJSON {
        var reader = Reader(bytes: bytes)
        reader.skipWhitespace()
        let value = try reader.value(depth: 0)
        reader.skipWhitespace()
        guard reader.offset == bytes.count else { throw SyntaxError(offset: reader.offset, message: "unexpected text after the document") }
        return value
    }

    /// "line 3, column 7" for a byte offset.
    static func position(of offset: Int, in bytes: [UInt8]) -> String {
        var line = 1, column = 1
        for byte in bytes.prefix(offset) {
            if byte == 0x0A { line += 1; column = 1 } else { column += 1 }
        }
        return "line \(line), column \(column)"
    }

    private struct Reader {
        let bytes: [UInt8]
        var offset = 0

        init(bytes: [UInt8]) { self.bytes = bytes }

        var current: UInt8? { offset < bytes.count ? bytes[offset] : nil }

        mutating func skipWhitespace() {
            while let byte = current, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { offset += 1 }
        }

        func fail(_ message: String) -> SyntaxError { SyntaxError(offset: offset, message: message) }

        mutating func value(depth: Int) throws(SyntaxError) -> ManifestJSON {
            guard depth < ManifestJSON.maximumDepth else { throw fail("nested deeper than \(ManifestJSON.maximumDepth) levels") }
            let start = offset
            guard let byte = current else { throw fail("unexpected end of the document") }
            let value: Value
            switch byte {
            case UInt8(ascii: "{"): value = try object(depth: depth)
            case UInt8(ascii: "["): value = try array(depth: depth)
            case UInt8(ascii: "\""): value = .string(try string())
            case UInt8(ascii: "t"): try literal("true"); value = .bool(true)
            case UInt8(ascii: "f"): try literal("false"); value = .bool(false)
            case UInt8(ascii: "n"): try literal("null"); value = .null
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): value = .number(try number())
            default: throw fail("unexpected character '\(Character(Unicode.Scalar(byte)))'")
            }
            return ManifestJSON(value: value, range: start..<offset)
        }

        mutating func literal(_ word: String) throws(SyntaxError) {
            let utf8 = Array(word.utf8)
            guard bytes.count - offset >= utf8.count, Array(bytes[offset..<offset + utf8.count]) == utf8 else {
                throw fail("unexpected word (expected \(word))")
            }
            offset += utf8.count
        }

        mutating func object(depth: Int) throws(SyntaxError) -> Value {
            offset += 1
            var members: [(key: String, value: ManifestJSON)] = []
            var seen = Set<String>()
            skipWhitespace()
            if current == UInt8(ascii: "}") { offset += 1; return .object(members) }
            while true {
                skipWhitespace()
                guard current == UInt8(ascii: "\"") else { throw fail("expected a key in double quotes") }
                let keyOffset = offset
                let key = try string()
                guard seen.insert(key).inserted else {
                    throw SyntaxError(offset: keyOffset, message: "duplicate key \"\(key)\" in the same object")
                }
                skipWhitespace()
                guard current == UInt8(ascii: ":") else { throw fail("expected ':' after the key \"\(key)\"") }
                offset += 1
                skipWhitespace()
                members.append((key, try value(depth: depth + 1)))
                skipWhitespace()
                switch current {
                case UInt8(ascii: ","): offset += 1
                case UInt8(ascii: "}"): offset += 1; return .object(members)
                default: throw fail("expected ',' or '}' in an object")
                }
            }
        }

        mutating func array(depth: Int) throws(SyntaxError) -> Value {
            offset += 1
            var items: [ManifestJSON] = []
            skipWhitespace()
            if current == UInt8(ascii: "]") { offset += 1; return .array(items) }
            while true {
                skipWhitespace()
                items.append(try value(depth: depth + 1))
                skipWhitespace()
                switch current {
                case UInt8(ascii: ","): offset += 1
                case UInt8(ascii: "]"): offset += 1; return .array(items)
                default: throw fail("expected ',' or ']' in an array")
                }
            }
        }

        mutating func number() throws(SyntaxError) -> String {
            let start = offset
            func digits(_ reader: inout Reader) -> Int {
                var count = 0
                while let byte = reader.current, (0x30...0x39).contains(byte) { reader.offset += 1; count += 1 }
                return count
            }
            if current == UInt8(ascii: "-") { offset += 1 }
            if current == UInt8(ascii: "0") {
                offset += 1
            } else if digits(&self) == 0 {
                throw fail("a number must have digits")
            }
            if current == UInt8(ascii: ".") {
                offset += 1
                guard digits(&self) > 0 else { throw fail("a number needs digits after '.'") }
            }
            if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
                offset += 1
                if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { offset += 1 }
                guard digits(&self) > 0 else { throw fail("a number needs digits in its exponent") }
            }
            return String(decoding: bytes[start..<offset], as: UTF8.self)
        }

        mutating func string() throws(SyntaxError) -> String {
            offset += 1
            var scalars: [UInt8] = []
            while true {
                guard let byte = current else { throw fail("unterminated string") }
                switch byte {
                case UInt8(ascii: "\""):
                    offset += 1
                    guard let text = String(validating: scalars, as: UTF8.self) else { throw fail("a string is not valid UTF-8") }
                    return text
                case UInt8(ascii: "\\"):
                    offset += 1
                    guard let escape = current else { throw fail("unterminated string") }
                    offset += 1
                    switch escape {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scalars.append(escape)
                    case UInt8(ascii: "b"): scalars.append(0x08)
                    case UInt8(ascii: "f"): scalars.append(0x0C)
                    case UInt8(ascii: "n"): scalars.append(0x0A)
                    case UInt8(ascii: "r"): scalars.append(0x0D)
                    case UInt8(ascii: "t"): scalars.append(0x09)
                    case UInt8(ascii: "u"):
                        var code = try hex4()
                        if (0xD800...0xDBFF).contains(code) {
                            // A surrogate pair: the low half must follow as another \u escape.
                            guard current == UInt8(ascii: "\\"), offset + 1 < bytes.count, bytes[offset + 1] == UInt8(ascii: "u") else {
                                throw fail("a lone UTF-16 surrogate in a string")
                            }
                            offset += 2
                            let low = try hex4()
                            guard (0xDC00...0xDFFF).contains(low) else { throw fail("a lone UTF-16 surrogate in a string") }
                            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                        } else if (0xDC00...0xDFFF).contains(code) {
                            throw fail("a lone UTF-16 surrogate in a string")
                        }
                        guard let scalar = Unicode.Scalar(code) else { throw fail("an invalid \\u escape") }
                        scalars.append(contentsOf: Array(String(Character(scalar)).utf8))
                    default:
                        throw fail("an invalid escape '\\\(Character(Unicode.Scalar(escape)))' in a string")
                    }
                case 0x00..<0x20:
                    throw fail("a control character in a string (write it as an escape)")
                default:
                    scalars.append(byte)
                    offset += 1
                }
            }
        }

        mutating func hex4() throws(SyntaxError) -> UInt32 {
            guard bytes.count - offset >= 4 else { throw fail("a \\u escape needs four hex digits") }
            var code: UInt32 = 0
            for byte in bytes[offset..<offset + 4] {
                let digit: UInt8
                switch byte {
                case 0x30...0x39: digit = byte - 0x30
                case 0x41...0x46: digit = byte - 0x41 + 10
                case 0x61...0x66: digit = byte - 0x61 + 10
                default: throw fail("a \\u escape needs four hex digits")
                }
                code = code << 4 | UInt32(digit)
            }
            offset += 4
            return code
        }
    }
}
