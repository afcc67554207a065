import Foundation
import Glibc
import Logging
import Testing
import VitrineCore
@testable import VitrineRuntime

/// The play log on a real full disk: a 64 KiB tmpfs, mounted for the test
/// (the test runs as root, as `make test` does). ENOSPC drops the oldest plays
/// and counts them; no play is lost, nothing is torn, the kiosk carries on.
@Suite("Proof of play: a full disk", .serialized)
struct PlayLogFullDiskTests {
    /// Mounts a tmpfs of `size` on a new directory; the caller unmounts it.
    static func mountTmpfs(size: String) throws -> String {
        let directory = NSTemporaryDirectory() + "vitrine-full-disk-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        guard mount("tmpfs", directory, "tmpfs", 0, "size=\(size),mode=0700") == 0 else {
            let reason = String(cString: strerror(errno))
            try? FileManager.default.removeItem(atPath: directory)
            throw MountFailed(reason: "mount -t tmpfs on \(directory): \(reason) (this test needs root, as make test runs)")
        }
        return directory
    }

    struct MountFailed: Error, CustomStringConvertible {
        var reason: String
        var description: String { reason }
    }

    static func unmount(_ directory: String) {
        umount2(directory, Int32(MNT_DETACH))
        try? FileManager.default.removeItem(atPath: directory)
    }

    @Test func aFullDiskDropsTheOldestPlaysAndKeepsRecordingTheNewest() throws {
        let disk = try Self.mountTmpfs(size: "64k")
        defer { Self.unmount(disk) }
        // A bound far above what the disk holds (256 KiB against 64 KiB): the disk fills first.
        let bounds = PlayLogLayout.Bounds(segmentBytes: 4096, maxSegments: 64)
        let log = try PlayLog(directory: disk + "/plays", bounds: bounds, logger: Logger(label: "test"), hashFile: { _ in nil })
        let plays = 1000
        for index in 0..<plays { log.shown(PlayLogTests.shown(index % 3, at: Double(index))) }
        log.ended(at: MonotonicInstant(nanoseconds: Int64(plays) * 1_000_000_000))
        log.flush()
        let status = log.status
        #expect(status.recorded == plays, "every play was written")
        #expect(status.writeFailures == 0)
        #expect(status.droppedForSpace > 0, "the disk did fill")
        #expect(status.lastSequence == UInt64(plays))
        #expect(UInt64(status.kept) + status.dropped == UInt64(plays), "kept \(status.kept), dropped \(status.dropped)")
        #expect(status.droppedForSpace <= Int(status.dropped))
        // What is kept reads back whole and in order: the newest plays, no torn line.
        let kept = log.query(PlayQuery(limit: PlayQuery.maximumLimit)).records.map(\.sequence)
        #expect(kept == Array((UInt64(plays) - UInt64(kept.count) + 1)...UInt64(plays)))
        #expect(kept.count == status.kept && kept.count > 100)
        // And after a restart, the same.
        let reopened = try PlayLog(directory: disk + "/plays", bounds: bounds, logger: Logger(label: "test"), hashFile: { _ in nil })
        #expect(reopened.query(PlayQuery(limit: PlayQuery.maximumLimit)).records.map(\.sequence) == kept)
        #expect(reopened.status.lastSequence == UInt64(plays))
    }

    /// A disk that another file has filled to the last block: the log gives up
    /// its own old plays for the new ones; a play it cannot write even then is
    /// counted, never a crash.
    @Test func aDiskFullOfSomethingElseCostsPlaysNotTheKiosk() throws {
        let disk = try Self.mountTmpfs(size: "32k")
        defer { Self.unmount(disk) }
        let log = try PlayLog(directory: disk + "/plays", bounds: PlayLogLayout.Bounds(segmentBytes: 2048, maxSegments: 64),
                              logger: Logger(label: "test"), hashFile: { _ in nil })
        for index in 0..<20 { log.shown(PlayLogTests.shown(1, at: Double(index))) }
        log.flush()
        // Fill the rest of the disk with another file.
        let filler = open(disk + "/filler", O_WRONLY | O_CREAT, 0o600)
        let block = [UInt8](repeating: 7, count: 4096)
        while block.withUnsafeBytes({ write(filler, $0.baseAddress, $0.count) }) > 0 {}
        close(filler)
        for index in 20..<200 { log.shown(PlayLogTests.shown(1, at: Double(index))) }
        log.ended(at: MonotonicInstant(nanoseconds: 200_000_000_000))
        log.flush()
        let status = log.status
        #expect(status.recorded + status.writeFailures == 200, "every play was either written or counted as lost")
        #expect(status.droppedForSpace > 0)
        let kept = log.query(PlayQuery(limit: PlayQuery.maximumLimit)).records.map(\.sequence)
        #expect(kept == kept.sorted() && Set(kept).count == kept.count, "no torn or repeated records")
    }
}
