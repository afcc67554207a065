import FoundationEssentials

/// How every typed body goes on the wire: compact JSON with sorted keys (so
/// that answers and events are stable) and slashes left as they are.
enum APIJSON {
    static func encode<Body: Encodable>(_ body: Body) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Array(try encoder.encode(body))
    }
}
