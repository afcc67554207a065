import VitrineConfig

/// How every typed body goes on the wire: compact JSON with sorted keys (so
/// that answers and events are stable), slashes left as they are, and the
/// characters YAML refuses escaped (`JSONText`), so an answer sent back as a
/// request body (an override, a configuration) reads through the YAML reader.
package enum APIJSON {
    package static func encode<Body: Encodable>(_ body: Body) throws -> [UInt8] {
        try JSONText.encode(body, [.sortedKeys, .withoutEscapingSlashes])
    }
}
