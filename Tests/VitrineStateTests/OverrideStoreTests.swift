import Foundation
import Logging
import Testing
import VitrineConfig
import VitrineCore
@testable import VitrineState

@Suite("Override store")
struct OverrideStoreTests {
    static func directory() throws -> String {
        let path = NSTemporaryDirectory() + "vitrine-override-store-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    @Test(arguments: [nil, Duration.milliseconds(1500)])
    func whatIsStoredReadsBackEqualAfterARestart(interval: Duration?) throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let now = WallInstant(secondsSinceEpoch: 1_795_000_000)
        let override = KioskOverride(
            id: "1a2b3c4d",
            slides: [
                SlideConfiguration(path: "asset:" + String(repeating: "ab", count: 32)),
                SlideConfiguration(path: "/srv/alert.jpg", duration: .seconds(12), fit: .stretch, action: .goTo(0)),
                SlideConfiguration(path: "/srv/exit.png", action: .post(url: "http://127.0.0.1:9/tapped", timeout: .milliseconds(800))),
            ],
            interval: interval, since: now - 60, until: now + 600)
        try OverrideStore(directory: directory, now: now, logger: Logger(label: "test")).replace(with: override)

        let reopened = OverrideStore(directory: directory, now: now + 599, logger: Logger(label: "test"))
        #expect(reopened.active(at: now + 599) == override)
        #expect(reopened.active(at: now + 600) == nil, "active only before until")
        #expect(reopened.assetIDs(at: now) == [String(repeating: "ab", count: 32)])
        #expect(reopened.assetIDs(at: now + 600).isEmpty)

        // Reopened at or after its end, it is removed.
        _ = OverrideStore(directory: directory, now: now + 600, logger: Logger(label: "test"))
        #expect(!FileManager.default.fileExists(atPath: directory + "/override.json"))
    }

    @Test func clearingRemovesTheFileAndSaysWhatWasThere() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let now = WallInstant(secondsSinceEpoch: 1_795_000_000)
        let store = OverrideStore(directory: directory, now: now, logger: Logger(label: "test"))
        #expect(try store.clear() == nil)
        let override = KioskOverride(id: "feedf00d", slides: [SlideConfiguration(path: "/srv/a.jpg")], since: now, until: now + 5)
        try store.replace(with: override)
        #expect(try store.clear() == override)
        #expect(store.active(at: now) == nil)
        #expect(!FileManager.default.fileExists(atPath: directory + "/override.json"))
        #expect(OverrideStore(directory: directory, now: now, logger: Logger(label: "test")).active(at: now) == nil)
    }

    /// - Parameter since: nil: a minute before `until`.
    static func override(_ id: String, until: WallInstant, since: WallInstant? = nil) -> KioskOverride {
        KioskOverride(id: id, slides: [SlideConfiguration(path: "asset:" + String(repeating: String(id.prefix(2)), count: 32))],
                      since: since ?? until - 60, until: until)
    }

    /// An output's own left on disk from before the one for every output (its
    /// removal failed, or the power went between the two writes) does not show
    /// above it, and is not listed; one set after it does.
    @Test func anOutputsOwnOlderThanTheOneForEveryOutputIsALeftoverAndDoesNotShow() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let now = WallInstant(secondsSinceEpoch: 1_795_000_000)
        let older = Self.override("bb000002", until: now + 600, since: now - 120)
        let all = Self.override("aa000001", until: now + 600, since: now - 60)
        let newer = Self.override("cc000003", until: now + 600, since: now - 30)
        let store = OverrideStore(directory: directory, outputs: ["HDMI-A-1", "DSI-1"], now: now, logger: Logger(label: "test"))
        // As a cut between writing override.json and removing DSI-1's file leaves them.
        try store.update { $0 = StoredOverrides(all: all, outputs: ["DSI-1": older]) }
        let reopened = OverrideStore(directory: directory, outputs: ["HDMI-A-1", "DSI-1"], now: now, logger: Logger(label: "test"))
        #expect(reopened.overrides(at: now).shown(on: "DSI-1", at: now) == StoredOverrides.Shown(override: all, fallback: nil))
        #expect(reopened.overrides(at: now) == StoredOverrides(all: all), "not listed either")
        try store.update { $0.outputs["DSI-1"] = newer }
        #expect(store.overrides(at: now).shown(on: "DSI-1", at: now) == StoredOverrides.Shown(override: newer, fallback: all))
    }

    /// Each output's own in its own file beside override.json, read back by a new store;
    /// override.json stays byte for byte what a store without outputs writes.
    @Test func eachOutputsOwnIsKeptInItsOwnFileAndReadBack() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let now = WallInstant(secondsSinceEpoch: 1_795_000_000)
        // The one for every output set first (since now - 60), DSI-1's own after it (since now).
        let all = Self.override("aa000001", until: now + 600, since: now - 60), own = Self.override("bb000002", until: now + 60)
        let store = OverrideStore(directory: directory, outputs: ["HDMI-A-1", "DSI-1"], now: now, logger: Logger(label: "test"))
        try store.update { $0 = StoredOverrides(all: all, outputs: ["DSI-1": own]) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory).sorted() == ["override-DSI-1.json", "override.json"])
        #expect(Array(try Data(contentsOf: URL(fileURLWithPath: directory + "/override.json"))) == OverrideDocument.json(all),
                "the file an older version reads")

        let reopened = OverrideStore(directory: directory, outputs: ["HDMI-A-1", "DSI-1"], now: now, logger: Logger(label: "test"))
        #expect(reopened.overrides(at: now) == StoredOverrides(all: all, outputs: ["DSI-1": own]))
        #expect(reopened.overrides(at: now).shown(on: "DSI-1", at: now) == StoredOverrides.Shown(override: own, fallback: all))
        #expect(reopened.overrides(at: now).shown(on: "HDMI-A-1", at: now) == StoredOverrides.Shown(override: all, fallback: nil))
        #expect(reopened.overrides(at: now).shown(on: "DSI-1", at: now + 60) == StoredOverrides.Shown(override: all, fallback: nil),
                "its own ended: the one for every output")
        #expect(reopened.assetIDs(at: now) == [String(repeating: "aa", count: 32), String(repeating: "bb", count: 32)])
        #expect(reopened.assetIDs(at: now + 60) == [String(repeating: "aa", count: 32)])

        // A store that knows no outputs (as before) reads override.json alone; one reopened after DSI-1's own ended removes its file.
        #expect(OverrideStore(directory: directory, now: now, logger: Logger(label: "test")).overrides(at: now) == StoredOverrides(all: all))
        _ = OverrideStore(directory: directory, outputs: ["HDMI-A-1", "DSI-1"], now: now + 60, logger: Logger(label: "test"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["override.json"])

        // Replacing the one for every output ends each output's own, and clear ends them all.
        try store.update { $0.outputs["DSI-1"] = own }
        try store.replace(with: all)
        #expect(store.overrides(at: now) == StoredOverrides(all: all))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["override.json"])
        try store.update { $0.outputs["HDMI-A-1"] = own }
        #expect(try store.clear() == all)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory).isEmpty)
    }

    /// Only the outputs the store was given, and only names that stay a plain file name in the directory.
    @Test(arguments: ["DP-3", "../escape", "a/b", "..", "", String(repeating: "A", count: 65)])
    func anOutputTheStoreDoesNotKnowOrCannotNameAFileIsRefusedBeforeAnythingIsWritten(name: String) throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let now = WallInstant(secondsSinceEpoch: 1_795_000_000)
        let store = OverrideStore(directory: directory, outputs: ["HDMI-A-1", "../escape", "a/b", "..", ""], now: now,
                                  logger: Logger(label: "test"))
        #expect(throws: OverrideStore.UnstorableOutput.self) {
            try store.update { $0 = StoredOverrides(all: Self.override("aa000001", until: now + 60), outputs: [name: Self.override("bb000002", until: now + 60)]) }
        }
        #expect((OverrideStore.path(directory: directory, output: name) == nil) == (name != "DP-3"), "DP-3 is fit for a file, but unknown")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory).isEmpty)
        #expect(store.overrides(at: now).isEmpty)
        #expect(OverrideStore.path(directory: directory, output: "HDMI-A-1") == directory + "/override-HDMI-A-1.json")
    }
}
