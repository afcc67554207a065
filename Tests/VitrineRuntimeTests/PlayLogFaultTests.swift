import Foundation
import Logging
import SystemPackage
import Testing
import VitrineCore
@testable import VitrineRuntime
import VitrineSystem

/// The play log with failures injected between it and the kernel
/// (`SystemCallFaults`), for the cases a real disk cannot be made to show on
/// demand: a signal during the append, an SD card that fails one flush, a full
/// disk at one exact write. (PlayLogFullDiskTests fills a real tmpfs.)
@Suite("Proof of play: injected faults")
struct PlayLogFaultTests {
    static func directory() -> String {
        NSTemporaryDirectory() + "vitrine-play-faults-" + UUID().uuidString
    }

    /// Shows `count` slides one second apart from `first`, then ends the last
    /// one, and waits for the log to write them: `count` plays.
    static func play(_ log: PlayLog, from first: Int, count: Int) {
        for index in first..<(first + count) { log.shown(PlayLogTests.shown(index % 3, at: Double(index))) }
        log.ended(at: MonotonicInstant(nanoseconds: Int64(first + count) * 1_000_000_000))
        log.flush()
    }

    static func sequences(_ log: PlayLog) -> [UInt64] {
        log.query(PlayQuery(limit: PlayQuery.maximumLimit)).records.map(\.sequence)
    }

    @Test func signalsDuringAnAppendAndItsFlushLoseNothing() throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let faults = SystemCallFaults()
        faults.fail(.write, with: .interrupted, times: 2)
        faults.fail(.datasync, with: .interrupted, after: 3)
        let log = try PlayLog(directory: directory, logger: Logger(label: "test"), system: faults.calls, hashFile: { _ in nil })

        Self.play(log, from: 0, count: 10)

        #expect(faults.injected == 3 && faults.pending == 0)
        #expect(log.status.recorded == 10 && log.status.writeFailures == 0)
        #expect(Self.sequences(log) == Array(1...10))
    }

    @Test func aFailedFlushLosesThatPlayAloneAndLeavesNoHalfOfIt() throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let faults = SystemCallFaults()
        // The fifth play's line reaches the file, then its fdatasync fails (EIO):
        // the line is cut off again, so it is neither torn nor counted later.
        faults.fail(.datasync, with: .ioError, after: 4)
        let log = try PlayLog(directory: directory, logger: Logger(label: "test"), system: faults.calls, hashFile: { _ in nil })

        Self.play(log, from: 0, count: 10)

        #expect(faults.injected == 1)
        let status = log.status
        #expect(status.recorded == 9 && status.writeFailures == 1, "\(status)")
        let kept = Self.sequences(log)
        #expect(kept.count == 9 && Set(kept).count == 9, "no play twice: \(kept)")
        #expect(kept == Array(1...9), "the next play took the lost one's sequence")
        #expect(status.kept == 9 && status.lastSequence == 9, "the status counts what is on disk: \(status)")
        // What a restart reads back is the same, with no torn line to skip.
        let reopened = try PlayLog(directory: directory, logger: Logger(label: "test"), hashFile: { _ in nil })
        #expect(Self.sequences(reopened) == kept)
        #expect(faults.openDescriptors == 0 && faults.strayCloses == 0, "every segment and directory closed exactly once")
    }

    @Test func aFullDiskAtOneWriteDropsTheOldestSegmentAndRecordsThePlay() throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let faults = SystemCallFaults()
        // Small segments, so that there are several to drop from.
        let bounds = PlayLogLayout.Bounds(segmentBytes: 1024, maxSegments: 64)
        let log = try PlayLog(directory: directory, bounds: bounds, logger: Logger(label: "test"), system: faults.calls, hashFile: { _ in nil })
        Self.play(log, from: 0, count: 40)
        let before = log.status
        #expect(before.recorded == 40 && before.droppedForSpace == 0)
        let oldest = try #require(Self.sequences(log).first)

        faults.fail(.write, with: .noSpace)
        Self.play(log, from: 41, count: 1)

        let after = log.status
        #expect(faults.injected == 1)
        #expect(after.recorded == 41 && after.writeFailures == 0, "the play is recorded: \(after)")
        #expect(after.droppedForSpace > 0, "the oldest segment made room")
        let kept = Self.sequences(log)
        #expect(kept.first! > oldest && kept.last == 41)
        #expect(kept == Array(kept.first!...41), "the newest plays, whole and in order")
    }

    @Test func aReadOnlyDiskCountsEachLostPlayAndRecordingResumesAfterIt() throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let faults = SystemCallFaults()
        let log = try PlayLog(directory: directory, logger: Logger(label: "test"), system: faults.calls, hashFile: { _ in nil })
        Self.play(log, from: 0, count: 3)

        faults.fail(.open, with: .readOnlyFileSystem, times: 4, pathContaining: "/plays-")
        Self.play(log, from: 4, count: 4)
        #expect(log.status.writeFailures == 4 && log.status.recorded == 3)

        Self.play(log, from: 9, count: 2)
        #expect(log.status.recorded == 5 && log.status.writeFailures == 4)
        #expect(Self.sequences(log) == Array(1...5))
        #expect(log.status.kept == 5 && log.status.lastSequence == 5)
        #expect(faults.openDescriptors == 0 && faults.strayCloses == 0)
    }
}
