import Foundation
import Testing
import VitrineCore
@testable import VitrineRuntime

/// `SystemWallClock` against file-system fixtures shaped like a Debian system's.
@Suite("SystemWallClock")
struct SystemWallClockTests {
    /// A fresh root with the given files (path relative to it, and contents), and `directories`.
    static func root(_ files: [String: String], directories: [String] = []) throws -> String {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("wallclock-\(UUID().uuidString)").path
        for directory in directories + [""] {
            try FileManager.default.createDirectory(atPath: root + "/" + directory, withIntermediateDirectories: true)
        }
        for (path, contents) in files {
            let full = root + "/" + path
            try FileManager.default.createDirectory(atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try contents.write(toFile: full, atomically: false, encoding: .utf8)
        }
        return root
    }

    /// systemd-timesyncd's runtime directory: it runs this boot.
    static let running = [SystemWallClock.timesyncdRuntime]

    @Test func withNoTimeServiceToWaitForTheClockIsTakenAsSet() throws {
        // A container: timesyncd's unit may be enabled, but its condition skips it, and nothing made its directory.
        let root = try Self.root(["etc/systemd/system/sysinit.target.wants/systemd-timesyncd.service": ""])
        defer { try? FileManager.default.removeItem(atPath: root) }
        #expect(SystemWallClock(root: root).trust() == .set(.unwatched))
    }

    @Test func timesyncdRunningButNotYetSynchronisedMeansNotSet() throws {
        let root = try Self.root(["sys/class/rtc/rtc0/hctosys": "0\n"], directories: Self.running)
        defer { try? FileManager.default.removeItem(atPath: root) }
        #expect(SystemWallClock(root: root).trust() == .notSet)
    }

    @Test func timesyncdsMarkMeansSetByATimeServer() throws {
        let root = try Self.root([SystemWallClock.synchronizedMark: ""], directories: Self.running)
        defer { try? FileManager.default.removeItem(atPath: root) }
        #expect(SystemWallClock(root: root).trust() == .set(.timeServer))
    }

    @Test func aRealTimeClockReadAtBootMeansSet() throws {
        let root = try Self.root(["sys/class/rtc/rtc0/hctosys": "0\n", "sys/class/rtc/rtc1/hctosys": "1\n"], directories: Self.running)
        defer { try? FileManager.default.removeItem(atPath: root) }
        #expect(SystemWallClock(root: root).trust() == .set(.realTimeClock))
    }
}
