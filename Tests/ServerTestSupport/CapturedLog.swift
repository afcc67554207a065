import Logging
import Synchronization

/// A logger that keeps every message it is given, rendered with its metadata,
/// so a test can check what reached the log (and what did not).
package final class CapturedLog: Sendable {
    private let lines = Mutex<[String]>([])

    package init() {}

    package var text: String { lines.withLock { $0.joined(separator: "\n") } }

    package var logger: Logger {
        Logger(label: "captured") { _ in Handler(log: self) }
    }

    private struct Handler: LogHandler {
        let log: CapturedLog
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let all = metadata.merging(event.metadata ?? [:]) { $1 }
            log.lines.withLock { $0.append("\(event.level) \(event.message) \(all)") }
        }
    }
}
