import Synchronization
import VitrineCore

/// Reads the board's health (`BoardHealth`) when asked, and keeps the last
/// reading for the status and `/metrics`. The kiosk's assembly asks every
/// `interval`, off the display thread; reading is a handful of small sysfs
/// and procfs files and one `statvfs`.
public final class BoardHealthWatch: Sendable {
    /// How often the kiosk reads again: under-voltage comes and goes with
    /// the load, and a card that failed stays failed.
    public static let interval: Duration = .seconds(60)

    private let checks: [any DoctorCheck]
    /// The doctor sections its checks make (`power`, `storage`).
    private let subjects: Set<String>
    private let system: DoctorSystem
    private let last = Mutex<BoardHealth?>(nil)

    /// Watches power (`PowerCheck`) and the storage under `/` and `stateDirectory` (`StorageCheck`).
    public convenience init(stateDirectory: String, system: DoctorSystem = DoctorSystem()) {
        self.init(checks: [PowerCheck(), StorageCheck(stateDirectory: stateDirectory)], subjects: ["power", "storage"],
                  system: system)
    }

    init(checks: [any DoctorCheck], subjects: Set<String>, system: DoctorSystem) {
        self.checks = checks
        self.subjects = subjects
        self.system = system
    }

    /// The last reading; nil before the first.
    public var current: BoardHealth? { last.withLock { $0 } }

    /// Reads now (wall time `now`, passed in), keeps the reading, and returns what changed since the last.
    @discardableResult
    public func check(at now: WallInstant) -> [BoardHealth.Change] {
        keep(BoardHealth(sections: checks.map { $0.run(on: system) }, checkedAt: now))
    }

    /// Takes the watched subjects of a report made at `now` (the doctor's at
    /// start, which reads the same files) as a reading, so that they are not
    /// read twice; returns what changed since the last.
    @discardableResult
    public func record(_ report: DoctorReport, at now: WallInstant) -> [BoardHealth.Change] {
        keep(BoardHealth(sections: report.sections.filter { subjects.contains($0.id) }, checkedAt: now))
    }

    private func keep(_ reading: BoardHealth) -> [BoardHealth.Change] {
        last.withLock { previous in
            defer { previous = reading }
            return reading.changes(since: previous)
        }
    }
}
