import Foundation
import VitrineYAML

/// A YAML document as plain values, for tests that walk docs/api/openapi.yaml:
/// mappings become `[String: Any]`, sequences `[Any]`, and plain scalars
/// become what the YAML core schema makes of them (null, booleans, integers,
/// floats); everything else stays text.
func plainYAML(_ text: String) throws -> Any? {
    try YAMLComposer.compose(text).map(plainValue)
}

private func plainValue(_ node: YAMLNode) -> Any {
    switch node {
    case .mapping(let mapping):
        return Dictionary(mapping.map { ($0.key.scalar?.string ?? "\($0.key)", plainValue($0.value)) }, uniquingKeysWith: { first, _ in first })
    case .sequence(let items):
        return items.map(plainValue)
    case .scalar(let scalar):
        guard scalar.style == .plain else { return scalar.string }
        switch scalar.string {
        case "", "~", "null", "Null", "NULL": return NSNull()
        case "true", "True", "TRUE": return true
        case "false", "False", "FALSE": return false
        default: return Int(scalar.string) ?? Double(scalar.string).map { $0 as Any } ?? scalar.string
        }
    }
}
