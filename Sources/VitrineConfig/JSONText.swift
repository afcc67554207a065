import FoundationEssentials

/// The JSON text of a Codable value, written as `JSONValue.encoded` writes:
/// the same formatting options, and the characters YAML refuses escaped (see
/// `JSONValue.escapingWhatYAMLRefuses`), so a typed body and the same value
/// built as a `JSONValue` give the same bytes.
public enum JSONText {
    /// Throws `EncodingError` for a value JSON has no form for (a NaN, say).
    public static func encode<Value: Encodable>(_ value: Value, _ options: JSONValue.WritingOptions = []) throws -> [UInt8] {
        let encoder = JSONEncoder()
        var formatting: JSONEncoder.OutputFormatting = []
        if options.contains(.sortedKeys) { formatting.insert(.sortedKeys) }
        if options.contains(.prettyPrinted) { formatting.insert(.prettyPrinted) }
        if options.contains(.withoutEscapingSlashes) { formatting.insert(.withoutEscapingSlashes) }
        encoder.outputFormatting = formatting
        return JSONValue.escapingWhatYAMLRefuses(Array(try encoder.encode(value)))
    }
}
