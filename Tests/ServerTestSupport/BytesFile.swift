import Foundation

extension Array where Element == UInt8 {
    /// Writes the bytes to `path`, as a fixture file.
    package func write(to path: String) throws {
        try Data(self).write(to: URL(fileURLWithPath: path))
    }
}
