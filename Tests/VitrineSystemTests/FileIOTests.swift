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

/// `FileIO.overwriteWithZeros`: in place (a second name of the file sees the
/// zeros), every byte, through no link, and nothing for a file that is gone.
@Suite("FileIO.overwriteWithZeros")
struct FileOverwriteTests {
    @Test(arguments: [0, 31, 65536, 200_001])
    func everyByteIsZeroedInPlace(size: Int) throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-zero-\(UUID().uuidString)").path
        let second = path + "-blocks"
        defer { unlink(path); unlink(second) }
        try FileIO.writeAtomically([UInt8](repeating: 0x5A, count: size), to: path, durable: false)
        #expect(link(path, second) == 0)
        try FileIO.overwriteWithZeros(path)
        #expect(try FileIO.read(second) == [UInt8](repeating: 0, count: size))
    }

    @Test func aLinkIsNotFollowedAndAMissingFileIsFine() throws {
        let target = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-zero-\(UUID().uuidString)").path
        let link = target + "-link"
        defer { unlink(target); unlink(link) }
        try FileIO.writeAtomically(Array("keep".utf8), to: target, durable: false)
        #expect(symlink(target, link) == 0)
        #expect(throws: SystemError.self) { try FileIO.overwriteWithZeros(link) }
        #expect(try FileIO.read(target) == Array("keep".utf8))
        try FileIO.overwriteWithZeros(target + "-absent")
    }
}
