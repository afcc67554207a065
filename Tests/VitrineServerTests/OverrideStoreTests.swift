import Foundation
import Logging
import Testing
import VitrineConfig
import VitrineCore
@testable import VitrineServer

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
}
