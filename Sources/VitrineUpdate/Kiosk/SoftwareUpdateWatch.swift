import Synchronization
import VitrineCore
import VitrineSystem

/// The kiosk's view of the update helper: its last report
/// (`/var/lib/vitrine-update/report.json`). The assembly reads it at start
/// and every minute, and logs each new outcome once (`takeNew`); the status
/// reads it again when asked, at most every `refreshInterval`, so that an
/// update shows there within seconds of the helper's writing it.
public final class SoftwareUpdateWatch: Sendable {
    public let reportPath: String
    /// How stale the status's copy may be: a burst of status requests reads the file once.
    public static let refreshInterval: Duration = .seconds(2)

    private struct Readings {
        var current: SoftwareUpdateReport?
        var announced: SoftwareUpdateReport?
        var readAt: MonotonicInstant?
    }
    private let readings = Mutex(Readings())

    public init(directory: String = SoftwareUpdateReport.standardDirectory) {
        reportPath = directory + "/" + SoftwareUpdateReport.fileName
    }

    /// The last report read; nil before the helper wrote one.
    public var current: SoftwareUpdateReport? { readings.withLock { $0.current } }

    /// Whether `refresh(now:)` would read the file: a status request checks
    /// this first, so that only one in `refreshInterval` leaves the event loop.
    public func isRefreshDue(now: MonotonicInstant) -> Bool {
        readings.withLock { state in state.readAt.map { now - $0 >= Self.refreshInterval } ?? true }
    }

    /// Reads the report again when the last reading is older than
    /// `refreshInterval` (`now`, passed in). A report that cannot be read
    /// leaves the last one in place.
    public func refresh(now: MonotonicInstant) {
        let due = readings.withLock { state in
            guard state.readAt.map({ now - $0 >= Self.refreshInterval }) ?? true else { return false }
            state.readAt = now
            return true
        }
        guard due, let report = read() else { return }
        readings.withLock { $0.current = report }
    }

    /// Reads the report now; returns it when it was not returned before, so
    /// that each outcome is logged once, nil otherwise.
    public func takeNew(now: MonotonicInstant) -> SoftwareUpdateReport? {
        guard let report = read() else { return nil }
        return readings.withLock { state in
            state.current = report
            state.readAt = now
            defer { state.announced = report }
            return state.announced == report ? nil : report
        }
    }

    private func read() -> SoftwareUpdateReport? {
        guard let bytes = try? FileIO.read(reportPath, limit: 64 << 10), case .success(let report) = SoftwareUpdateReport.parse(bytes) else {
            return nil
        }
        return report
    }
}
