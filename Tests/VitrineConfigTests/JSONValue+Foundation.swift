import Foundation
import VitrineConfig

extension JSONValue {
    /// As `JSONSerialization` takes it (`NSNull` for null): for the tests that
    /// check our bytes against what it writes.
    var foundationObject: Any {
        switch self {
        case .null: NSNull()
        case .bool(let flag): flag
        case .integer(let number): Int(exactly: number).map { $0 as Any } ?? number
        case .unsignedInteger(let number): number
        case .double(let number): number
        case .string(let text): text
        case .array(let items): items.map(\.foundationObject)
        case .object(let members): members.mapValues(\.foundationObject)
        }
    }
}
