import Glibc
import Logging

/// One line per event on standard error, in a form journald stores well.
///
/// Under systemd (`JOURNAL_STREAM` set) each line starts with the `<N>` syslog
/// priority prefix that journald turns into the entry's priority, and carries
/// no timestamp, since the journal adds its own. Elsewhere, lines start with a
/// UTC timestamp. Metadata follows the message as `key=value` pairs.
public struct LineLogHandler: LogHandler {
    public var logLevel: Logger.Level
    public var metadata: Logger.Metadata = [:]
    private let label: String
    private let forJournal: Bool

    public init(label: String, level: Logger.Level, forJournal: Bool = getenv("JOURNAL_STREAM") != nil) {
        self.label = label
        self.logLevel = level
        self.forJournal = forJournal
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var line = forJournal ? "<\(Self.syslogPriority(event.level))>" : Self.timestamp() + " "
        line += "\(event.level.rawValue.uppercased()) \(label): \(event.message)"
        let merged = metadata.merging(event.metadata ?? [:]) { $1 }
        for key in merged.keys.sorted() {
            let value = "\(merged[key]!)"
            line += " \(key)=" + (value.contains(" ") || value.isEmpty ? "\"\(value)\"" : value)
        }
        // One write(2) per line keeps lines from different threads whole.
        line = line.replacingNewlines + "\n"
        _ = line.withCString { write(2, $0, strlen($0)) }
    }

    static func syslogPriority(_ level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: return 7
        case .info: return 6
        case .notice: return 5
        case .warning: return 4
        case .error: return 3
        case .critical: return 2
        }
    }

    static func timestamp() -> String {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        var time = tm()
        var seconds = spec.tv_sec
        gmtime_r(&seconds, &time)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let millis = Int(spec.tv_nsec / 1_000_000)
        let fraction = millis < 10 ? "00\(millis)" : millis < 100 ? "0\(millis)" : "\(millis)"
        return "\(time.tm_year + 1900)-\(two(time.tm_mon + 1))-\(two(time.tm_mday))T"
            + "\(two(time.tm_hour)):\(two(time.tm_min)):\(two(time.tm_sec)).\(fraction)Z"
    }
}

extension String {
    /// A log line must stay one line: embedded newlines become " | ".
    var replacingNewlines: String {
        split(separator: "\n", omittingEmptySubsequences: false).joined(separator: " | ")
    }
}
