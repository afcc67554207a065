import Foundation
import Testing
import VitrineSystem

/// `FileIO.read` returns a file's bytes exactly, whatever its size against
/// the 4 KiB first read of files that report no size (procfs, sysfs).
@Suite("FileIO.read")
struct FileIOTests {
    @Test(arguments: [0, 1, 4095, 4096, 4097, 200_000])
    func aRegularFileReadsBackExactly(size: Int) throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-fileio-\(UUID().uuidString)").path
        defer { unlink(path) }
        let bytes = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        try FileIO.writeAtomically(bytes, to: path, durable: false)
        #expect(try FileIO.read(path) == bytes)
    }

    @Test func aProcfsFileThatReportsNoSizeIsReadToItsEnd() throws {
        // /proc/self/maps reports a size of 0 and is longer than 4 KiB for a Swift test process.
        let maps = try FileIO.read("/proc/self/maps")
        #expect(maps.count > 4096)
        #expect(maps.last == UInt8(ascii: "\n"))
    }

    @Test func aFileOverTheLimitIsRefusedAndADirectoryIsNamed() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-fileio-\(UUID().uuidString)").path
        defer { unlink(path) }
        try FileIO.writeAtomically([UInt8](repeating: 1, count: 100), to: path, durable: false)
        #expect(throws: SystemError("read", errno: .fileTooLarge, subject: path)) { try FileIO.read(path, limit: 99) }
        let directory = FileManager.default.temporaryDirectory.path
        #expect(throws: SystemError("read", errno: .isDirectory, subject: directory)) { try FileIO.read(directory) }
    }
}
