import Foundation
import Logging
import SystemPackage
import ServerTestSupport
import Testing
import VitrineConfig
import VitrineSystem
@testable import VitrineState

/// The state directory when the disk fails a push half way: the full disk or
/// the dying SD card is injected at one exact call (`SystemCallFaults`). The
/// kiosk must go on with the configuration it had, in memory and on disk, and
/// say which file could not be written.
@Suite("State directory under injected faults")
struct StateStoreFaultTests {
    let directory = NSTemporaryDirectory() + "vitrine-state-faults-" + UUID().uuidString

    func open(system: SystemCalls = .live) throws -> StateStore {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let file = directory + "/vitrine.yaml"
        if !FileManager.default.fileExists(atPath: file) { try Array("interval: 5s\n".utf8).write(to: file) }
        let seed = Result { () throws(ConfigError) in try ConfigLoader.load(file: file) }
        return try StateStore(directory: directory + "/state", seedFile: file, seed: seed, logger: Logger(label: "test"), system: system)
    }

    /// The error `body` throws, which must be a SystemError.
    func failure(_ body: () throws -> Void) -> SystemError? {
        do { try body() } catch let error as SystemError { return error } catch { Issue.record("not a SystemError: \(error)") }
        return nil
    }

    @Test(arguments: [
        // config.previous.json is written first, then config.json: fail each.
        (0, Errno.noSpace, "write"), (1, .noSpace, "write"),
        (0, .ioError, "fsync"), (1, .ioError, "fsync"),
    ])
    func aPushTheDiskRefusesKeepsTheConfigurationItHad(failingWrite: Int, errno: Errno, call: String) throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let faults = SystemCallFaults()
        let store = try open(system: faults.calls)
        let first = try store.replace(with: try ConfigLoader.parse("interval: 7s"), ifMatch: nil)
        let onDisk = try FileIO.read(directory + "/state/config.json")

        let file = failingWrite == 0 ? "config.previous.json" : "config.json"
        faults.fail(call == "write" ? .write : .fsync, with: errno, pathContaining: "/\(file).tmp-")
        let error = try #require(failure { _ = try store.replace(with: try ConfigLoader.parse("interval: 9s"), ifMatch: nil) })

        #expect(faults.injected == 1)
        #expect(error.call == call && error.errno == errno)
        #expect(error.subject?.contains("/state/\(file).tmp-") == true, "names the file: \(error)")
        #expect(store.current.version == first.current.version, "the kiosk keeps what it had")
        #expect(try FileIO.read(directory + "/state/config.json") == onDisk, "config.json is untouched")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory + "/state").filter { $0.contains(".tmp-") }
        #expect(leftovers == [])
        #expect(faults.openDescriptors == 0 && faults.strayCloses == 0, "every file closed exactly once")

        // A restart comes up on the same configuration; the next push, with the disk well, lands.
        let restarted = try open()
        #expect(restarted.current.version == first.current.version)
        #expect(restarted.current.configuration.interval == .seconds(7))
        let next = try restarted.replace(with: try ConfigLoader.parse("interval: 9s"), ifMatch: first.current.version)
        #expect(next.changed && restarted.current.configuration.interval == .seconds(9))
    }
}
