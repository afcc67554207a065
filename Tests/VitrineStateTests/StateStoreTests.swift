import Foundation
import Logging
import Testing
import VitrineConfig
import VitrineSystem
@testable import VitrineRuntime
import ServerTestSupport
@testable import VitrineState

/// The state directory on its own: which configuration wins at start, crash
/// leftovers, and the generated token.
@Suite("State directory")
struct StateStoreTests {
    let directory = NSTemporaryDirectory() + "vitrine-state-test-" + UUID().uuidString

    func open(_ yaml: String?, logger: Logger = Logger(label: "test")) throws -> StateStore {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let file = directory + "/vitrine.yaml"
        if let yaml { try Array(yaml.utf8).write(to: file) } else { try? FileManager.default.removeItem(atPath: file) }
        let seed = Result { () throws(ConfigError) in try ConfigLoader.load(file: file) }
        return try StateStore(directory: directory + "/state", seedFile: file,
                              seed: seed, logger: logger)
    }

    @Test func theFileSeedsThenPushesWinUntilTheFileChanges() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let first = try open("interval: 5s")
        #expect(first.origin == .seeded)
        #expect(first.current.configuration.interval == .seconds(5))
        let pushed = try first.replace(with: try ConfigLoader.parse("interval: 7s"), ifMatch: nil)
        #expect(pushed.changed)

        let restarted = try open("interval: 5s")
        #expect(restarted.origin == .stored, "the same file again: the push wins")
        #expect(restarted.current.configuration.interval == .seconds(7))
        #expect(restarted.previous?.configuration.interval == .seconds(5))

        let tokenRotated = try open("# a comment\ninterval: 5s\napi: {token: rotated-token-0123456789}\noutput: {width: 640, height: 480}")
        #expect(tokenRotated.origin == .stored, "the token, the output and comments are not what the kiosk shows")
        #expect(tokenRotated.current.configuration.interval == .seconds(7))
        #expect(tokenRotated.current.configuration.output.width == 640, "the file's output applies to the stored configuration")

        let edited = try open("interval: 9s")
        #expect(edited.origin == .fileChanged, "an edited file is newer intent")
        #expect(edited.current.configuration.interval == .seconds(9))
        #expect(edited.previous?.configuration.interval == .seconds(7), "the push becomes the rollback target")

        let invalid = try open("interval: -1s")
        #expect(invalid.origin == .storedAfterInvalidFile)
        #expect(invalid.current.configuration.interval == .seconds(9))

        let missing = try open(nil)
        #expect(missing.origin == .storedAfterInvalidFile)
    }

    @Test func withoutStateAnInvalidFileIsTheError() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(throws: ConfigError.self) { try open("interval: -1s") }
    }

    @Test func aCrashLeavesNoTornFileBehind() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try open("interval: 5s")
        _ = try store.replace(with: try ConfigLoader.parse("interval: 6s"), ifMatch: nil)
        // What a SIGKILL mid-write leaves: a half-written temporary, never the real file.
        try Array("{\"interv".utf8).write(to: directory + "/state/config.json.tmp-123-456")
        try Array("\u{FF}".utf8).write(to: directory + "/state/assets/\(String(repeating: "a", count: 64)).tmp-1-2")
        let reopened = try open("interval: 5s")
        #expect(reopened.current.configuration.interval == .seconds(6))
        let leftovers = try FileManager.default.subpathsOfDirectory(atPath: directory + "/state").filter { $0.contains(".tmp-") }
        #expect(leftovers.isEmpty)
    }

    @Test func aDamagedCurrentFileFallsBackToThePreviousOne() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try open("interval: 5s")
        _ = try store.replace(with: try ConfigLoader.parse("interval: 6s"), ifMatch: nil)
        try Array("not: [valid".utf8).write(to: directory + "/state/config.json")
        let reopened = try open("interval: 5s")
        #expect(reopened.current.configuration.interval == .seconds(5))
    }

    @Test func theTokenIsGeneratedOnceWithMode0600() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try open("{}")
        let token = try store.apiToken(configured: nil)
        #expect(token.count == 43)
        #expect(try store.apiToken(configured: nil) == token, "read back, not generated again")
        var info = stat()
        #expect(stat(directory + "/state/api-token", &info) == 0)
        #expect(info.st_mode & 0o777 == 0o600)
        #expect(try store.apiToken(configured: "configured-token-123456") == "configured-token-123456")
    }

    /// A generated token is never written to the log, only the file that
    /// holds it; on a read-only state directory it goes to the runtime
    /// directory, and without one it is still not logged.
    @Test func theGeneratedTokenIsNeverLoggedOnlyItsFile() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let log = CapturedLog()
        let store = try open("{}", logger: log.logger)
        let token = try store.apiToken(configured: nil)
        #expect(!log.text.contains(token), "\(log.text)")
        #expect(log.text.contains(directory + "/state/api-token"), "\(log.text)")

        let runtime = directory + "/run"
        try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: true)
        let readOnlyLog = CapturedLog()
        let readOnly = try open("{}", logger: readOnlyLog.logger)
        let reason = "\(directory)/state cannot be written (Read-only file system)"
        try readOnly.keep(generated: "runtime-token-0123456789", readOnlyReason: reason, runtimeDirectory: runtime)
        #expect(try FileIO.read(runtime + "/api-token") == Array("runtime-token-0123456789\n".utf8))
        try readOnly.keep(generated: "nowhere-token-0123456789", readOnlyReason: reason, runtimeDirectory: nil)
        #expect(readOnlyLog.text.contains(runtime + "/api-token") && readOnlyLog.text.contains("set api.token"), "\(readOnlyLog.text)")
        #expect(!readOnlyLog.text.contains("runtime-token") && !readOnlyLog.text.contains("nowhere-token"), "\(readOnlyLog.text)")
    }

    /// `vitrine push --token -abc...` would read the token as an option.
    @Test func aGeneratedTokenNeverStartsWithADash() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try open("{}")
        var firsts = Set<Character>()
        for _ in 0..<300 {
            try? FileManager.default.removeItem(atPath: directory + "/state/api-token")
            let token = try store.apiToken(configured: nil)
            firsts.insert(token.first!)
            #expect(token.count == 43 && token.dropFirst().allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" })
        }
        // 300 draws from 62 letters and digits: all but a few of them come up.
        #expect(!firsts.contains("-") && !firsts.contains("_") && firsts.count > 40)
    }
}
