import Foundation
import ServerTestSupport
import Testing
@testable import VitrineAPI
@testable import VitrineChannelFollower
import VitrineChannel
import VitrineConfig
import VitrineCore
@testable import VitrineRuntime
@testable import VitrineState
import VitrineSystem

extension ChannelFixture {
    /// Publishes `base` as the channel's playlist, each group's colours as its
    /// playlist, and `devices` (YAML) as the per-device values.
    @discardableResult
    func publish(base: [String], groups: [String: [String]], devices: String? = nil) throws -> UInt64 {
        func playlist(_ colours: [String]) -> String { "slides: [\(colours.map { "\($0).jpg" }.joined(separator: ", "))]\ninterval: 10m\n" }
        try Array(playlist(base).utf8).write(to: root + "/publish.yaml")
        var groupFiles: [(name: String, file: String)] = []
        for (name, colours) in groups.sorted(by: { $0.key < $1.key }) {
            try Array(playlist(colours).utf8).write(to: root + "/group-\(name).yaml")
            groupFiles.append((name, root + "/group-\(name).yaml"))
        }
        if let devices { try Array(devices.utf8).write(to: root + "/devices.yaml") }
        return try ChannelPublisher.publish(.init(configurationFile: root + "/publish.yaml", directory: channelDirectory,
                                                  signing: .key(signer, comment: "verify with lobby.pub"), groupFiles: groupFiles,
                                                  devicesFile: devices == nil ? nil : root + "/devices.yaml"),
                                            now: WallClock.now()).version
    }

    /// The kiosk's local file follows the channel as `group` and `device`; returns the settings.
    func followAs(group: String?, device: String?) throws -> ChannelConfiguration {
        var settings = self.settings
        settings.group = group
        settings.device = device
        guard case .inline(let key) = settings.keys[0] else { fatalError("the fixture's key is inline") }
        var yaml = "slides: [red.jpg]\napi: {allowAddresses: [loopback]}\nchannel:\n  url: \(settings.url)\n  keys: [\(key)]\n"
        if let group { yaml += "  group: \(group)\n" }
        if let device { yaml += "  device: \(device)\n" }
        try Array(yaml.utf8).write(to: root + "/kiosk/vitrine.yaml")
        return settings
    }

    func hasAsset(_ colour: String, in store: StateStore) throws -> Bool {
        store.assets.contains(ContentDigest.sha256(try ServerHarness.jpeg(ServerHarness.colors[colour]!)))
    }
}

@Suite("channel: groups and per-device values", .serialized)
struct ChannelGroupsFollowerTests {
    @Test func aKioskShowsItsGroupsPlaylistWithItsDevicesValues() async throws {
        let fixture = try await ChannelFixture()
        let settings = try fixture.followAs(group: "cafe", device: "cafe-1")
        let (follower, store) = try fixture.follower(settings: settings)
        try fixture.publish(base: ["green"], groups: ["cafe": ["blue"], "lobby": ["red"]], devices: """
            cafe-1: {output: {rotation: 90}, touch: {calibration: [0, 1, 0, -1, 0, 1]}}
            lobby-1: {output: {rotation: 180}}
            """)
        await follower.poll()
        #expect(follower.snapshot.applied?.version == 1)
        #expect(fixture.shownColours(store) == ["blue"])
        // Only the group's pictures are downloaded.
        #expect(try fixture.hasAsset("blue", in: store))
        #expect(try !fixture.hasAsset("green", in: store))
        #expect(try !fixture.hasAsset("red", in: store))
        // The device's calibration is stored as a push's would be; its rotation waits for the next start.
        #expect(store.current.configuration.touch.calibration == [0, 1, 0, -1, 0, 1])
        #expect(store.current.configuration.output.rotation == 0)
        #expect(FileManager.default.fileExists(atPath: fixture.stateDirectory + "/device.json"))
        #expect(fixture.appliedCount == 1)

        // A version that changes only another group's playlist: recorded, not re-applied.
        let shown = store.current.version
        try fixture.publish(base: ["green"], groups: ["cafe": ["blue"], "lobby": ["green"]], devices: """
            cafe-1: {output: {rotation: 90}, touch: {calibration: [0, 1, 0, -1, 0, 1]}}
            """)
        await follower.poll()
        #expect(follower.snapshot.applied?.version == 2)
        #expect(follower.snapshot.lastRefusal == nil)
        #expect(store.current.version == shown)
        #expect(fixture.appliedCount == 1)

        // The next start has the device's rotation. The stored configuration's version changed with it,
        // so the recorded version is applied once more, which changes nothing on screen.
        let (restartedFollower, restarted) = try fixture.follower(settings: settings)
        #expect(restarted.current.configuration.output.rotation == 90)
        #expect(fixture.shownColours(restarted) == ["blue"])
        #expect(restartedFollower.snapshot.reapplyAllowed)
        let shownAfterRestart = restarted.current.version
        await restartedFollower.poll()
        #expect(restartedFollower.snapshot.applied?.version == 2)
        #expect(!restartedFollower.snapshot.reapplyAllowed)
        #expect(restarted.current.version == shownAfterRestart)
        #expect(fixture.appliedCount == 1)

        // A version without this device's values: the local file's rotation again at the next start.
        try fixture.publish(base: ["green"], groups: ["cafe": ["blue"]])
        await follower.poll()
        #expect(follower.snapshot.applied?.version == 3)
        #expect(FileManager.default.contents(atPath: fixture.stateDirectory + "/device.json") == Data("{}\n".utf8))
        #expect(store.current.configuration.touch.calibration == [1, 0, 0, 0, 1, 0])
        let (_, again) = try fixture.follower(settings: settings)
        #expect(again.current.configuration.output.rotation == 0)
        await fixture.close()
    }

    @Test func aGroupTheChannelLacksIsRefusedAndTheScreenKept() async throws {
        let fixture = try await ChannelFixture()
        let settings = try fixture.followAs(group: "kitchen", device: nil)
        let (follower, store) = try fixture.follower(settings: settings)
        // A channel without groups serves its playlist to every kiosk, whatever its group.
        try fixture.publish(["green"])
        await follower.poll()
        #expect(follower.snapshot.applied?.version == 1)
        #expect(fixture.shownColours(store) == ["green"])

        try fixture.publish(base: ["blue"], groups: ["cafe": ["red"]])
        await follower.poll()
        let refused = follower.snapshot.lastRefusal
        #expect(refused?.refusal.code == "malformed")
        #expect(refused?.version == 2)
        #expect((refused.map { "\($0.refusal)" } ?? "").contains(#"has no group "kitchen" (this kiosk's channel.group); it has "cafe""#))
        #expect(follower.snapshot.applied?.version == 1)
        #expect(fixture.shownColours(store) == ["green"])
        #expect(try !fixture.hasAsset("blue", in: store))
        // Polled again: the same refusal, counted once.
        await follower.poll()
        #expect(follower.snapshot.refusalCounts == ["malformed": 1])

        // A kiosk with no group gets the channel's own playlist.
        let (groupless, other) = try fixture.follower(settings: try fixture.followAs(group: nil, device: nil))
        await groupless.poll()
        #expect(groupless.snapshot.applied?.version == 2)
        #expect(fixture.shownColours(other) == ["blue"])
        await fixture.close()
    }
}
