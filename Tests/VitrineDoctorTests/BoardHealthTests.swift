import Glibc
import Testing
import VitrineCore
@testable import VitrineDoctor

/// The running kiosk's watch on the board: readings of the doctor's power and
/// storage checks on a made-up Raspberry Pi whose files change between
/// readings, and what is reported as a change.
@Suite("Board health")
struct BoardHealthTests {
    typealias Tree = DoctorChecksTests.Tree
    static let firmware = "/sys/devices/platform/soc/soc:firmware/get_throttled"
    static let mountinfo = "22 1 179:2 / / rw,noatime shared:1 - ext4 /dev/mmcblk0p2 rw\n"

    static func write(_ contents: String, to path: String, in tree: Tree) {
        let file = fopen(tree.root + path, "w")!
        fputs(contents, file)
        fclose(file)
    }

    static func at(_ seconds: Int64) -> WallInstant { WallInstant(secondsSinceEpoch: 1_795_000_000 + seconds) }

    @Test func underVoltageComingAndGoingIsReportedOnceEachWay() throws {
        let tree = try Tree([Self.firmware: "0x0\n", "/proc/self/mountinfo": Self.mountinfo,
                             "/sys/fs/ext4/mmcblk0p2/errors_count": "0\n"])
        let watch = BoardHealthWatch(stateDirectory: "/", system: tree.system)
        #expect(watch.current == nil)
        // A healthy board's first reading: nothing to report.
        #expect(watch.check(at: Self.at(0)).isEmpty)
        #expect(watch.current?.status == .ok)
        #expect(watch.current?.subjects.map(\.id) == ["power", "storage"])

        Self.write("0x50005\n", to: Self.firmware, in: tree)
        let worse = watch.check(at: Self.at(60))
        #expect(worse.map(\.subject.id) == ["power"])
        #expect(worse.first?.previous == .ok && worse.first?.subject.status == .problem && worse.first?.isWorse == true)
        #expect(worse.first?.subject.findings.first?.hasPrefix("Under-voltage now") == true)
        #expect(watch.current?.checkedAt == Self.at(60))

        // Still under-voltage a minute later: no change to report.
        #expect(watch.check(at: Self.at(120)).isEmpty)

        // The supply recovers; the firmware keeps the since-boot bit: a warning, better than before.
        Self.write("0x50000\n", to: Self.firmware, in: tree)
        let better = watch.check(at: Self.at(180))
        #expect(better.count == 1 && better.first?.subject.status == .warning && better.first?.isWorse == false)
    }

    @Test func storageErrorsAppearingAreAProblemAtOnce() throws {
        let tree = try Tree([Self.firmware: "0x0\n", "/proc/self/mountinfo": Self.mountinfo,
                             "/sys/fs/ext4/mmcblk0p2/errors_count": "0\n"])
        let watch = BoardHealthWatch(stateDirectory: "/", system: tree.system)
        watch.check(at: Self.at(0))
        Self.write("2\n", to: "/sys/fs/ext4/mmcblk0p2/errors_count", in: tree)
        let changes = watch.check(at: Self.at(60))
        #expect(changes.map(\.subject.id) == ["storage"])
        #expect(changes.first?.subject.status == .problem)
        // More errors: the same status, so no new report, though the finding's words changed.
        Self.write("5\n", to: "/sys/fs/ext4/mmcblk0p2/errors_count", in: tree)
        #expect(watch.check(at: Self.at(120)).isEmpty)
        #expect(watch.current?.subjects.last?.findings.first?.contains("5 errors") == true)
    }

    @Test func theDoctorsReportAtStartIsTheFirstReading() throws {
        let tree = try Tree([Self.firmware: "0x50000\n", "/proc/self/mountinfo": Self.mountinfo,
                             "/sys/fs/ext4/mmcblk0p2/errors_count": "0\n"])
        let watch = BoardHealthWatch(stateDirectory: "/", system: tree.system)
        let report = Doctor.report(Doctor.standardChecks(stateDirectory: "/"), on: tree.system, version: "test", now: Self.at(0))
        // The warning the doctor found (and logged) is the reading's; its other sections are left out.
        #expect(watch.record(report, at: Self.at(0)).map(\.subject.id) == ["power"])
        #expect(watch.current?.subjects.map(\.id) == ["power", "storage"])
        #expect(watch.current?.status == .warning)
        // A minute later the same files: nothing changed, nothing to log.
        #expect(watch.check(at: Self.at(60)).isEmpty)
    }

    @Test func theFirstReadingReportsOnlyWhatIsWrong() {
        let reading = BoardHealth(subjects: [
            .init(id: "power", status: .unavailable, summary: "no reporting", findings: []),
            .init(id: "storage", status: .warning, summary: "low space", findings: ["Only 10 MiB free"]),
        ], checkedAt: Self.at(0))
        #expect(reading.changes(since: nil).map(\.subject.id) == ["storage"])
        #expect(reading.status == .warning)
    }
}
