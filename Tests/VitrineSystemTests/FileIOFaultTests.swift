import Foundation
import Glibc
import SystemPackage
import Testing
import VitrineSystem

/// `FileIO` under the failures a kiosk meets in the field, injected between it
/// and the kernel (`SystemCallFaults`): a signal in the middle of a write, a
/// full disk, an SD card that fails its flush. The promise under test: the
/// file being replaced is either the old one or the new one, never a torn one,
/// no temporary file is left behind, and the error names the call and the file.
@Suite("FileIO under injected faults")
struct FileIOFaultTests {
    /// A new directory holding `state.json` with `old` in it.
    static func directory(holding old: [UInt8]) throws -> (directory: String, target: String) {
        let directory = NSTemporaryDirectory() + "vitrine-faults-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let target = directory + "/state.json"
        try FileIO.writeAtomically(old, to: target, durable: false)
        return (directory, target)
    }

    /// Everything in `directory` but the target: temporary files left behind.
    static func leftovers(in directory: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0 != "state.json" }.sorted()
    }

    static let old = Array("{\"version\": 1}\n".utf8)
    /// Large enough (15 KiB) that a real write of it is not a single byte.
    static let new = Array(repeating: Array("{\"version\": 2}\n".utf8), count: 1000).flatMap { $0 }

    /// Runs `body`, which must throw a `SystemError`, and returns it.
    static func failure(_ body: () throws -> Void) -> SystemError? {
        do {
            try body()
        } catch let error as SystemError {
            return error
        } catch {
            Issue.record("not a SystemError: \(error)")
        }
        return nil
    }

    @Test func signalsDuringWritesAndTheFlushAreRetriedAndTheFileIsReplaced() throws {
        let (directory, target) = try Self.directory(holding: Self.old)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let faults = SystemCallFaults()
        faults.fail(.write, with: .interrupted, times: 3)
        faults.fail(.fsync, with: .interrupted, pathContaining: ".tmp-")

        try FileIO.writeAtomically(Self.new, to: target, system: faults.calls)

        #expect(faults.injected == 4 && faults.pending == 0, "every planned EINTR happened")
        #expect(try FileIO.read(target) == Self.new)
        #expect(try Self.leftovers(in: directory) == [])
    }

    @Test(arguments: [
        (SystemCallFaults.Call.write, Errno.noSpace, "write"),
        (.write, .diskQuotaExceeded, "write"),
        (.write, .ioError, "write"),
        // A descriptor opened without O_NONBLOCK never answers EAGAIN; if one
        // does, it is an error to report, not a loop to spin in.
        (.write, .resourceTemporarilyUnavailable, "write"),
        (.fsync, .ioError, "fsync"),
        (.fsync, .noSpace, "fsync"),
    ])
    func aFailureBeforeTheRenameLeavesTheOldFileAndNoTemporary(call: SystemCallFaults.Call, errno: Errno, named: String) throws {
        let (directory, target) = try Self.directory(holding: Self.old)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let faults = SystemCallFaults()
        // The first write is interrupted by a signal and made again; then the fault.
        faults.fail(.write, with: .interrupted)
        faults.fail(call, with: errno, pathContaining: ".tmp-")

        let error = try #require(Self.failure { try FileIO.writeAtomically(Self.new, to: target, system: faults.calls) })

        #expect(error.call == named)
        #expect(error.errno == errno)
        #expect(error.subject?.hasPrefix(target + ".tmp-") == true, "names the file written: \(error)")
        #expect(error.description.contains(errno.description))
        #expect(try FileIO.read(target) == Self.old, "the target is untouched")
        #expect(try Self.leftovers(in: directory) == [], "the temporary file is removed")
        #expect(faults.openDescriptors == 0 && faults.strayCloses == 0, "every descriptor closed exactly once")
    }

    @Test func aFailedRenameNamesTheTargetAndRemovesTheTemporary() throws {
        let (directory, target) = try Self.directory(holding: Self.old)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let faults = SystemCallFaults()
        faults.fail(.rename, with: .readOnlyFileSystem)

        let error = try #require(Self.failure { try FileIO.writeAtomically(Self.new, to: target, system: faults.calls) })

        #expect(error == SystemError("rename", errno: .readOnlyFileSystem, subject: target))
        #expect(try FileIO.read(target) == Self.old)
        #expect(try Self.leftovers(in: directory) == [])
        #expect(faults.openDescriptors == 0 && faults.strayCloses == 0)
    }

    @Test func aFailedFlushOfTheDirectoryIsReportedAfterTheNewFileIsInPlace() throws {
        let (directory, target) = try Self.directory(holding: Self.old)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let faults = SystemCallFaults()
        // The first fsync is the temporary file's; the second, the directory's.
        faults.fail(.fsync, with: .ioError, after: 1)

        let error = try #require(Self.failure { try FileIO.writeAtomically(Self.new, to: target, system: faults.calls) })

        // The rename happened: the file is the new one, but its name may not
        // survive a power cut, and the caller is told so.
        #expect(error == SystemError("fsync", errno: .ioError, subject: directory))
        #expect(try FileIO.read(target) == Self.new)
        #expect(try Self.leftovers(in: directory) == [])
        #expect(faults.openDescriptors == 0 && faults.strayCloses == 0)
    }

    @Test func readsInterruptedBySignalsReturnTheWholeFileAndAnIOErrorNamesIt() throws {
        let (directory, target) = try Self.directory(holding: Self.new)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let faults = SystemCallFaults()
        faults.fail(.read, with: .interrupted, times: 2)
        #expect(try FileIO.read(target, system: faults.calls) == Self.new)

        var chunks: [[UInt8]] = []
        faults.fail(.read, with: .interrupted, after: 1)
        try FileIO.forEachChunk(of: target, chunkSize: 4096, system: faults.calls) { chunks.append($0) }
        #expect(chunks.flatMap { $0 } == Self.new && chunks.count == 4)

        faults.fail(.read, with: .ioError)
        let error = Self.failure { _ = try FileIO.read(target, system: faults.calls) }
        #expect(error == SystemError("read", errno: .ioError, subject: target))
        #expect(faults.pending == 0)
        #expect(faults.openDescriptors == 0 && faults.strayCloses == 0)
    }

    @Test func aFaultAimedAtOneFileLeavesTheOthersAlone() throws {
        let (directory, target) = try Self.directory(holding: Self.old)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let faults = SystemCallFaults()
        faults.fail(.write, with: .noSpace, pathContaining: "/other.json")

        try FileIO.writeAtomically(Self.new, to: target, system: faults.calls)
        #expect(faults.injected == 0 && faults.pending == 1)
        #expect(try FileIO.read(target) == Self.new)

        let other = directory + "/other.json"
        let error = Self.failure { try FileIO.writeAtomically(Self.old, to: other, system: faults.calls) }
        #expect(error?.errno == .noSpace && faults.pending == 0)
        #expect(access(other, F_OK) != 0)
    }
}
