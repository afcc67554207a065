import Foundation
import SystemPackage
import Testing
import VitrineSystem
@testable import VitrineChannel

/// The publisher's two-step writes under injected faults: a failed write,
/// fsync or rename leaves the file that was there, no temporary, and an error
/// naming the file.
@Suite("Channel files under injected faults")
struct ChannelFilesFaultTests {
    let directory = NSTemporaryDirectory() + "vitrine-channel-files-" + UUID().uuidString

    private func temporaries() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter { $0.contains(".tmp-") }
    }

    @Test("a write or fsync that fails leaves the old file and no temporary", arguments: [
        (SystemCallFaults.Call.write, Errno.noSpace), (.fsync, .ioError), (.rename, .ioError),
    ])
    func aFailedStepKeepsTheOldFile(call: SystemCallFaults.Call, errno: Errno) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/manifest.json"
        try Data("old".utf8).write(to: URL(fileURLWithPath: path))
        let faults = SystemCallFaults()
        faults.fail(call, with: errno)
        var thrown: SystemError?
        do {
            try ChannelFiles.commit(try ChannelFiles.writeTemporary(Array("new".utf8), for: path, system: faults.calls), to: path,
                                    system: faults.calls)
        } catch {
            thrown = error
        }
        #expect(thrown?.errno == errno)
        #expect(thrown.map { "\($0)".contains("manifest.json") } == true, "\(thrown.map { "\($0)" } ?? "no error")")
        #expect(try ChannelFiles.read(path) == Array("old".utf8))
        #expect(temporaries().isEmpty, "\(temporaries())")
        #expect(faults.openDescriptors == 0)
    }

    @Test("a pair whose first rename fails leaves neither temporary")
    func aPairLeavesNoTemporary() throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let faults = SystemCallFaults()
        faults.fail(.rename, with: .ioError)
        #expect(throws: SystemError.self) {
            try ChannelFiles.commitPair(Array("root".utf8), to: directory + "/root.json", Array("sig".utf8), to: directory + "/root.json.sig",
                                        directory: directory, system: faults.calls)
        }
        #expect(temporaries().isEmpty, "\(temporaries())")
        #expect(!ChannelFiles.exists(directory + "/root.json") && !ChannelFiles.exists(directory + "/root.json.sig"))
    }
}
