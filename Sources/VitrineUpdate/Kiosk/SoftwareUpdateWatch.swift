import Synchronization
import VitrineSystem

/// The kiosk's view of the update helper: its last report
/// (`/var/lib/vitrine-update/report.json`), read at start and every minute
/// with the board's health, for the status and the log.
public final class SoftwareUpdateWatch: Sendable {
    public let reportPath: String
    private let last = Mutex<SoftwareUpdateReport?>(nil)

    public init(directory: String = SoftwareUpdateReport.standardDirectory) {
        reportPath = directory + "/" + SoftwareUpdateReport.fileName
    }

    /// The last report read; nil before the helper wrote one.
    public var current: SoftwareUpdateReport? { last.withLock { $0 } }

    /// Reads the report again; returns it when it is new since the last read
    /// (so that each outcome is logged once), nil otherwise. A report that
    /// cannot be read leaves the last one in place.
    public func check() -> SoftwareUpdateReport? {
        guard let bytes = try? FileIO.read(reportPath, limit: 64 << 10), case .success(let report) = SoftwareUpdateReport.parse(bytes) else {
            return nil
        }
        return last.withLock { previous in
            defer { previous = report }
            return previous == report ? nil : report
        }
    }
}
