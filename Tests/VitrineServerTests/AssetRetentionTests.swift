import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
@testable import VitrineState

/// Which unused pictures go (pure, on virtual time), the store removing them
/// under its lock, and the free-space floor refusing an upload with 507.
@Suite("Assets: retention and the free-space floor")
struct AssetRetentionTests {
    static let day = 86_400.0

    @Test func inUseNeverGoesGraceProtectsFreshUploadsAgeAndTheCapDecide() {
        let retention = AssetRetention(grace: 3600, maximumAge: 30 * Self.day, byteCap: 300)
        let now = 100 * Self.day
        let assets: [(id: String, size: Int, added: Double)] = [
            ("old-used", 500, now - 90 * Self.day), ("ancient", 10, now - 31 * Self.day), ("week-old", 200, now - 7 * Self.day),
            ("yesterday", 200, now - Self.day), ("fresh", 5000, now - 60),
        ]
        // Unused: ancient (past the maximum age), then the cap (300 bytes) over 5,410 unused bytes: the oldest past
        // their grace go until it fits or none is left; "fresh" is in its grace whatever the cap says.
        #expect(retention.victims(assets, inUse: ["old-used"], now: now) == ["ancient", "week-old", "yesterday"])
        // Under the cap, only age decides.
        let roomy = AssetRetention(grace: 3600, maximumAge: 30 * Self.day, byteCap: 1 << 30)
        #expect(roomy.victims(assets, inUse: ["old-used"], now: now) == ["ancient"])
        #expect(roomy.victims(assets, inUse: Set(assets.map(\.id)), now: now).isEmpty, "nothing in use goes")
    }

    @Test func theFloorRefusesWhatWouldLeaveTooLittleAndSaysHowMuchThereIs() {
        let floor = DiskFloor(minimumFreeBytes: 64 << 20)
        #expect(floor.refusal(storing: 1 << 20, free: 100 << 20) == nil)
        #expect(floor.refusal(storing: 40 << 20, free: 100 << 20)
                == "the kiosk's disk has 100.0 MiB free; storing 40.0 MiB more would leave less than its floor of 64.0 MiB (api.minimumFreeSpace)")
    }

    /// With a floor above what the disk has free, an upload is 507 with the
    /// reason, nothing is stored, and the screen keeps its playlist.
    @Test func anUploadBelowTheFloorIs507AndStoresNothing() async throws {
        let yaml = ServerHarness.defaultYAML.replacingOccurrences(of: "token:", with: "minimumFreeSpace: 900GB, token:")
        let harness = try ServerHarness(yaml: yaml)
        defer { harness.close() }
        let picture = try ServerHarness.jpeg(ServerHarness.colors["blue"]!)
        try await harness.application().test(.router) { client in
            try await client.execute(uri: "/api/v1/assets?name=blue.jpg", method: .post, headers: authorized([.contentType: "image/jpeg"]),
                                     body: ByteBuffer(bytes: picture)) { response in
                #expect(response.status.code == 507)
                let message = json(response.body)["error"] as? String ?? ""
                #expect(message.hasPrefix("blue.jpg was not stored: the kiosk's disk has ") && message.contains("api.minimumFreeSpace"), "\(message)")
            }
        }
        #expect(harness.store.assets.list().isEmpty)
        #expect(harness.api.link.status.slideCount == 2)
    }

    /// The store removes what retention lets go, and keeps what the current
    /// configuration names even when the cap says nothing may stay.
    @Test func theStoreRemovesUnusedAssetsAndKeepsThoseInUse() async throws {
        let harness = try ServerHarness()
        defer { harness.close() }
        let ids = try await harness.application().test(.router) { client in
            var ids: [String] = []
            for color in ["red", "green", "blue"] {
                let picture = try ServerHarness.jpeg(ServerHarness.colors[color]!, size: .init(width: 40 + ids.count, height: 30))
                try await client.execute(uri: "/api/v1/assets?name=\(color).jpg", method: .post, headers: authorized([.contentType: "image/jpeg"]),
                                         body: ByteBuffer(bytes: picture)) { response in
                    #expect(response.status == .created)
                    ids.append(json(response.body)["id"] as? String ?? "")
                }
            }
            let (status, _) = try await sendJSON(client, .put, "/api/v1/config", #"{"slides": ["asset:\#(ids[1])"], "autoplay": false}"#)
            #expect(status == .ok)
            return ids
        }
        // Straight after upload they are in their grace: nothing goes.
        #expect(harness.store.collectUnusedAssets(downloads: [:]).isEmpty)
        let removed = harness.store.collectUnusedAssets(downloads: [:], retention: AssetRetention(grace: 0, byteCap: 0),
                                                        now: Date().timeIntervalSince1970 + 1)
        #expect(Set(removed) == [ids[0], ids[2]])
        #expect(harness.store.assets.list().map(\.id) == [ids[1]], "the one the configuration names stays")
    }
}
