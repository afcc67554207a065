import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import Synchronization
import ServerTestSupport
import Testing
import VitrineChannel
import VitrineConfig
import VitrineCore
@testable import VitrineRuntime
@testable import VitrineAPI
@testable import VitrineChannelFollower
@testable import VitrineHTTP
@testable import VitrineState
import VitrineSystem

/// A static origin on loopback: serves a channel directory with ETags (the
/// SHA-256 of each file), answers `If-None-Match` with 304 and counts those,
/// answers `Range: bytes=N-` with 206 as nginx does, and can be taken down
/// (503 for everything) and brought back, or made to break each blob's
/// download off after some bytes.
final class ChannelOriginServer: Sendable {
    /// What the routes share with the tests.
    final class Record: Sendable {
        let notModified = Mutex(0)
        let down = Mutex(false)
        /// Blobs are cut off (the connection dropped) after this many bytes.
        let cutBlobsAfter = Mutex<Int?>(nil)
        /// Whether `Range` is ignored (a 200 with the whole file), as by an origin that cannot resume.
        let ignoreRanges = Mutex(false)
        /// The `Range` header of each blob request, or "" without one.
        let blobRanges = Mutex<[String]>([])
    }

    let directory: String
    let record = Record()
    private let server: LoopbackServer

    var port: Int { server.port ?? 0 }
    var url: String { "http://127.0.0.1:\(port)/lobby" }
    var notModifiedCount: Int { record.notModified.withLock { $0 } }
    func setDown(_ value: Bool) { record.down.withLock { $0 = value } }

    init(directory: String) async throws {
        self.directory = directory
        let router = Router()
        let record = self.record
        router.get("**") { request, _ -> Response in
            if record.down.withLock({ $0 }) { return Response(status: .serviceUnavailable) }
            let path = request.uri.path
            guard path.hasPrefix("/lobby/"), !path.contains(".."),
                  let data = FileManager.default.contents(atPath: directory + path) else {
                return Response(status: .notFound)
            }
            let etag = "\"\(ChannelDigest.sha256(Array(data)).prefix(16))\""
            if request.headers[.ifNoneMatch] == etag {
                record.notModified.withLock { $0 += 1 }
                return Response(status: .notModified, headers: [.eTag: etag])
            }
            guard path.contains("/blobs/") else {
                return Response(status: .ok, headers: [.eTag: etag], body: .init(byteBuffer: ByteBuffer(bytes: data)))
            }
            let range = request.headers[.range] ?? ""
            record.blobRanges.withLock { $0.append(range) }
            return RangeResponse.answer(Array(data), etag: etag, range: record.ignoreRanges.withLock { $0 } ? nil : range, ifRange: nil,
                                        cutAfter: record.cutBlobsAfter.withLock { $0 })
        }
        server = try await LoopbackServer(router)
    }

    func stop() async { await server.stop() }
}

/// A publisher's channel directory, its origin, and a kiosk's state directory
/// with a follower on it.
final class ChannelFixture: @unchecked Sendable {
    let root = NSTemporaryDirectory() + "vitrine-channel-follow-" + UUID().uuidString
    var channelDirectory: String { root + "/origin/lobby" }
    var stateDirectory: String { root + "/state" }
    let signer = SignifySecretKey.generate(comment: "lobby")
    let server: ChannelOriginServer
    /// What followers hand over, and the wall clock they see.
    final class Shared: Sendable {
        let applied = Mutex<[StoredConfiguration]>([])
        /// The wall clock the followers see: now, plus this many seconds.
        let clockOffset = Mutex<Int64>(0)
        /// Whether the followers see a synchronised system clock.
        let synchronized = Mutex(false)
    }
    let shared = Shared()
    static let policy = ChannelPollPolicy(interval: .milliseconds(100), jitter: .zero, backoffBase: .milliseconds(50),
                                          backoffLimit: .milliseconds(400))

    init() async throws {
        let root = self.root
        try FileManager.default.createDirectory(atPath: root + "/origin/lobby", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: root + "/kiosk", withIntermediateDirectories: true)
        for (name, color) in ServerHarness.colors { try ServerHarness.jpeg(color).write(to: root + "/\(name).jpg") }
        try Array("slides: [red.jpg]\napi: {allowAddresses: [loopback]}\n".utf8).write(to: root + "/kiosk/vitrine.yaml")
        try ServerHarness.jpeg(ServerHarness.colors["red"]!).write(to: root + "/kiosk/red.jpg")
        server = try await ChannelOriginServer(directory: root + "/origin")
    }

    func close() async {
        await server.stop()
        try? FileManager.default.removeItem(atPath: root)
    }

    var settings: ChannelConfiguration {
        ChannelConfiguration(url: server.url, keys: [.inline(String(String(decoding: signer.publicKey.fileBytes, as: UTF8.self)
                .split(separator: "\n")[1]))])
    }

    /// Publishes `colours` as the playlist; returns the version.
    @discardableResult
    func publish(_ colours: [String], key: SignifySecretKey? = nil, version: UInt64? = nil, expiresAfter: Int64? = nil,
                 at publishedAt: WallInstant? = nil) throws -> UInt64 {
        let yaml = root + "/publish.yaml"
        // A colour's picture, or a file of the fixture's root named with its extension.
        try Array("slides: [\(colours.map { $0.contains(".") ? $0 : "\($0).jpg" }.joined(separator: ", "))]\ninterval: 10m\n".utf8).write(to: yaml)
        let signing = ChannelPublisher.Signing.key(key ?? signer, comment: "verify with lobby.pub")
        return try ChannelPublisher.publish(.init(configurationFile: yaml, directory: channelDirectory, signing: signing, version: version,
                                                  expiresAfterSeconds: expiresAfter ?? ChannelPublisher.defaultValiditySeconds), now: publishedAt ?? WallClock.now()).version
    }

    /// The channel's two files, to serve again later (a replay).
    func snapshotFiles() -> [String: Data] {
        [ChannelManifest.fileName, ChannelManifest.signatureFileName].reduce(into: [:]) {
            $0[$1] = FileManager.default.contents(atPath: channelDirectory + "/" + $1)
        }
    }

    func restore(_ files: [String: Data]) throws {
        for (name, data) in files { try Array(data).write(to: channelDirectory + "/" + name) }
    }

    /// A kiosk's state store and a follower on it, as `vitrine run` makes them.
    func follower(settings: ChannelConfiguration? = nil,
                  pictures: any PictureInspector = InProcessPictureInspector()) throws -> (ChannelFollower, StateStore) {
        let logger = Logger(label: "test")
        let seedFile = root + "/kiosk/vitrine.yaml"
        let store = try StateStore(directory: stateDirectory, seedFile: seedFile,
                                   seed: Result { () throws(ConfigError) in try ConfigLoader.load(file: seedFile) }, logger: logger)
        let shared = self.shared
        let follower = ChannelFollower(settings: settings ?? self.settings, store: store, pictures: pictures, logger: logger, policy: Self.policy,
                                       wallClock: { WallClock.now() + shared.clockOffset.withLock { $0 } },
                                       clockSynchronized: { shared.synchronized.withLock { $0 } })
        follower.onApply { stored in shared.applied.withLock { $0.append(stored) } }
        return (follower, store)
    }

    var appliedCount: Int { shared.applied.withLock { $0.count } }

    /// The pictures the stored configuration shows, as colour names.
    func shownColours(_ store: StateStore) -> [String] {
        store.current.configuration.slides.map { slide -> String in
            guard case .asset(let id) = SlideSource(slide.path) else { return "not an asset: \(slide.path)" }
            return ServerHarness.colors.keys.first { (try? ServerHarness.jpeg(ServerHarness.colors[$0]!)).map(ContentDigest.sha256) == id } ?? id
        }
    }
}

@Suite("channel: a kiosk follows a channel", .serialized)
struct ChannelFollowerTests {
    @Test func appliesV1ThenAnswers304ThenAppliesV2() async throws {
        let fixture = try await ChannelFixture()
        let (follower, store) = try fixture.follower()
        try fixture.publish(["green"])
        await follower.poll()
        #expect(follower.snapshot.applied?.version == 1)
        #expect(fixture.shownColours(store) == ["green"])
        #expect(fixture.appliedCount == 1)
        #expect(follower.snapshot.lastReached != nil)
        #expect(FileManager.default.fileExists(atPath: fixture.stateDirectory + "/channel-state.json"))
        // The previous configuration (the file's) is the rollback target, as after a push.
        #expect(store.previous?.configuration.slides.map(\.path) == ["red.jpg"])

        // Unchanged: both files answer 304, nothing is applied again.
        await follower.poll()
        await follower.poll()
        #expect(fixture.server.notModifiedCount == 4)
        #expect(fixture.appliedCount == 1)

        try fixture.publish(["blue", "green"])
        await follower.poll()
        #expect(follower.snapshot.applied?.version == 2)
        #expect(fixture.shownColours(store) == ["blue", "green"])
        #expect(fixture.appliedCount == 2)
        #expect(follower.snapshot.lastRefusal == nil)
        let status = ChannelStatusBody(follower, wall: WallClock.now())
        #expect(status.version == 2)
        #expect(status.state == "waiting")
        #expect(status.refused == nil)
        #expect(try APIBodyTests.json(status)["refused"] == .null, "no refusal is written as null")
        await fixture.close()
    }

    /// Polls once with the origin serving what `change` made of v2, expecting
    /// `reason`, with v1 kept on screen and nothing applied.
    func expectRefusal(_ reason: String, version: UInt64?, clockOffset: Int64 = 0,
                       _ change: (ChannelFixture) throws -> Void) async throws {
        let fixture = try await ChannelFixture()
        let (follower, store) = try fixture.follower()
        try fixture.publish(["green"])
        await follower.poll()
        #expect(follower.snapshot.applied?.version == 1)
        let shown = store.current.version
        try change(fixture)
        fixture.shared.clockOffset.withLock { $0 = clockOffset }
        await follower.poll()
        let state = follower.snapshot
        #expect(state.lastRefusal?.refusal.code == reason)
        #expect(state.lastRefusal?.version == version)
        #expect(state.applied?.version == 1)
        #expect(store.current.version == shown)
        #expect(fixture.appliedCount == 1)
        #expect(state.refusalCounts == [reason: 1])
        let refused = ChannelStatusBody(follower, wall: WallClock.now()).refused
        #expect(refused?.reason == reason)
        #expect(refused?.message.isEmpty == false)
        #expect(ChannelStatusReport.metrics(follower).contains("vitrine_channel_refusals_total{reason=\"\(reason)\"} 1"))
        // Polled again, the same refusal is neither logged nor counted twice.
        await follower.poll()
        #expect(follower.snapshot.refusalCounts == [reason: 1])
        #expect(fixture.appliedCount == 1)
        await fixture.close()
    }

    @Test func aTamperedManifestIsABadSignature() async throws {
        try await expectRefusal("bad-signature", version: nil) { fixture in
            try fixture.publish(["blue"])
            let path = fixture.channelDirectory + "/channel.json"
            let text = try String(contentsOfFile: path, encoding: .utf8).replacingOccurrences(of: "\"version\" : 2", with: "\"version\" : 9")
            try Array(text.utf8).write(to: path)
        }
    }

    @Test func aReplayedOlderManifestIsNotNewer() async throws {
        let fixture = try await ChannelFixture()
        let (follower, store) = try fixture.follower()
        try fixture.publish(["green"])
        let v1 = fixture.snapshotFiles()
        try fixture.publish(["blue"])
        await follower.poll()
        #expect(follower.snapshot.applied?.version == 2)
        try fixture.restore(v1)
        await follower.poll()
        #expect(follower.snapshot.lastRefusal?.refusal == .notNewer(version: 1, applied: 2))
        #expect(follower.snapshot.lastRefusal?.version == 1)
        #expect(fixture.shownColours(store) == ["blue"])
        #expect(fixture.appliedCount == 1)
        await fixture.close()
    }

    @Test func anExpiredManifestIsRefused() async throws {
        try await expectRefusal("expired", version: 2, clockOffset: 7200) { fixture in
            try fixture.publish(["blue"], expiresAfter: 3600)
        }
    }

    /// A board with no real-time clock and no network time wakes in 1970:
    /// by that clock a manifest that expired a month before this release
    /// would pass. Judged by the release date instead, it is expired.
    @Test func aClockIn1970StillRefusesAManifestThatExpiredBeforeThisRelease() async throws {
        let release = WallInstant(secondsSinceEpoch: VitrineVersion.releaseFloorSecondsSinceEpoch)
        // A kiosk that has applied nothing yet, so the release date is its only floor.
        let fixture = try await ChannelFixture()
        let (follower, store) = try fixture.follower()
        fixture.shared.clockOffset.withLock { $0 = 3600 - WallClock.now().secondsSinceEpoch }
        try fixture.publish(["blue"], expiresAfter: 7 * 86_400, at: release - 30 * 86_400)
        await follower.poll()
        #expect(follower.snapshot.lastRefusal?.refusal.code == "expired")
        #expect(follower.snapshot.applied == nil)
        #expect(store.current.configuration.slides.map(\.path) == ["red.jpg"])
        // Published a day before the release and valid for a week, it is applied at the same 1970.
        try fixture.publish(["green"], expiresAfter: 7 * 86_400, at: release - 86_400)
        await follower.poll()
        #expect(follower.snapshot.applied?.version == 2)
        #expect(fixture.shownColours(store) == ["green"])
        await fixture.close()
    }

    @Test func aManifestSignedWithAnUntrustedKeyIsAnUnknownKey() async throws {
        try await expectRefusal("unknown-key", version: nil) { fixture in
            try fixture.publish(["blue"], key: SignifySecretKey.generate(comment: "stranger"))
        }
    }

    @Test func aCorruptedBlobIsRefusedAndNeverStored() async throws {
        try await expectRefusal("blob-mismatch", version: 2) { fixture in
            try fixture.publish(["blue", "green"])
            let blue = ContentDigest.sha256(try ServerHarness.jpeg(ServerHarness.colors["blue"]!))
            var bytes = try ServerHarness.jpeg(ServerHarness.colors["blue"]!)
            bytes[bytes.count / 2] ^= 0xFF
            try bytes.write(to: fixture.channelDirectory + "/" + ChannelBlob.path(for: blue))
            #expect(!FileManager.default.fileExists(atPath: fixture.stateDirectory + "/assets/" + blue))
        }
    }

    @Test func offlineItBacksOffKeepsTheLastGoodVersionThenConverges() async throws {
        let fixture = try await ChannelFixture()
        let (follower, store) = try fixture.follower()
        try fixture.publish(["green"])
        await follower.poll()
        let reached = try #require(follower.snapshot.lastReached)
        fixture.server.setDown(true)
        let running = Task { await follower.run() }
        let deadline = Date().addingTimeInterval(10)
        while follower.snapshot.consecutiveFailures < 4, Date() < deadline { try await Task.sleep(for: .milliseconds(20)) }
        let offline = follower.snapshot
        #expect(offline.consecutiveFailures >= 4)
        #expect(offline.applied?.version == 1)
        #expect(offline.lastReached == reached)
        #expect(offline.lastFailure?.message.contains("503") == true)
        #expect(fixture.shownColours(store) == ["green"])
        let status = ChannelStatusBody(follower, wall: WallClock.now())
        #expect(status.lastError?.message == offline.lastFailure?.message)
        #expect(status.ageSeconds != nil)

        try fixture.publish(["blue"])
        fixture.server.setDown(false)
        while follower.snapshot.applied?.version != 2, Date() < deadline { try await Task.sleep(for: .milliseconds(20)) }
        running.cancel()
        await running.value
        #expect(follower.snapshot.applied?.version == 2)
        #expect(follower.snapshot.consecutiveFailures == 0)
        #expect(follower.snapshot.lastFailure == nil)
        #expect(fixture.shownColours(store) == ["blue"])
        await fixture.close()
    }

    /// TUF's answer to a leaked signing key, end to end: the thief publishes
    /// the largest version there is, which no later version can exceed; the
    /// owner brings out the offline root key and names a new signing key in
    /// root.json; kiosks refuse the thief's manifests from then on, apply the
    /// new key's version 1, and keep all of that over a restart.
    @Test func anOfflineRootKeyRecoversFromALeakedSigningKey() async throws {
        let fixture = try await ChannelFixture()
        let rootKey = SignifySecretKey.generate(comment: "lobby root")
        var settings = fixture.settings
        settings.rootKeys = [.inline(String(String(decoding: rootKey.publicKey.fileBytes, as: UTF8.self).split(separator: "\n")[1]))]
        let (follower, store) = try fixture.follower(settings: settings)
        try fixture.publish(["green"])
        await follower.poll()
        // No root.json on the origin yet: channel.keys sign.
        #expect(follower.snapshot.applied?.version == 1)
        #expect(follower.snapshot.root == nil)

        try fixture.publish(["blue"], version: .max)
        let stolen = fixture.snapshotFiles()
        await follower.poll()
        #expect(follower.snapshot.applied?.version == .max)
        #expect(fixture.shownColours(store) == ["blue"])

        let newKey = SignifySecretKey.generate(comment: "lobby 2")
        let root = try ChannelRootPublisher.publish(directory: fixture.channelDirectory, rootKey: rootKey, signatureComment: "verify with root.pub",
                                                    signingKeys: [newKey.publicKey], version: nil, now: WallClock.now())
        #expect(root.version == 1)
        await follower.poll()
        #expect(follower.snapshot.root?.version == 1)
        #expect(follower.snapshot.lastRefusal?.refusal == .unknownKey(fixture.signer.keyNumber))
        #expect(fixture.shownColours(store) == ["blue"], "a refusal keeps what is on screen")
        #expect(ChannelStatusBody(follower, wall: WallClock.now()).rootVersion == 1)
        #expect(ChannelStatusReport.metrics(follower).contains("vitrine_channel_root_version 1"))

        // The owner replaces the thief's manifest with the new key's version 1.
        try FileManager.default.removeItem(atPath: fixture.channelDirectory + "/channel.json")
        try FileManager.default.removeItem(atPath: fixture.channelDirectory + "/channel.json.sig")
        try fixture.publish(["red"], key: newKey, version: 1)
        await follower.poll()
        #expect(follower.snapshot.applied?.version == 1)
        #expect(follower.snapshot.applied?.rootVersion == 1)
        #expect(follower.snapshot.lastRefusal == nil)
        #expect(fixture.shownColours(store) == ["red"])

        // The thief serves its manifest again: refused, by key.
        try fixture.restore(stolen)
        await follower.poll()
        #expect(follower.snapshot.lastRefusal?.refusal.code == "unknown-key")
        #expect(fixture.shownColours(store) == ["red"])

        // A restart keeps the new key, the root and the floor under it.
        let (restarted, _) = try fixture.follower(settings: settings)
        #expect(restarted.snapshot.root?.version == 1)
        #expect(restarted.snapshot.versionToExceed == 1)
        await restarted.poll()
        #expect(restarted.snapshot.lastRefusal?.refusal.code == "unknown-key")
        #expect(fixture.shownColours(store) == ["red"])

        // A root signed by anyone but the root key (here the leaked key) is ignored.
        let forged = Array(ChannelRoot(version: 5, published: WallClock.now(), keyLines: [
            String(String(decoding: fixture.signer.publicKey.fileBytes, as: UTF8.self).split(separator: "\n")[1])]).json)
        try Array(forged).write(to: fixture.channelDirectory + "/root.json")
        try fixture.signer.sign(forged, comment: "x").fileBytes.write(to: fixture.channelDirectory + "/root.json.sig")
        await restarted.poll()
        #expect(restarted.snapshot.root?.version == 1)
        await fixture.close()
    }

    /// With `channel.root`, the trusted root's expiry bounds how long the origin
    /// can withhold a rotation: past it no update is taken (root-expired, in the
    /// status), and a 404 for root.json does not help, until a newer root comes.
    /// A clock that steps back without synchronisation takes none either
    /// (clock-untrusted). A restart that lost the stored root does not trust
    /// channel.keys again, nor an older root. Before, a root never expired and a 404 was always fine.
    @Test func theRootsExpiryBoundsAWithheldRotationAndAnUntrustedClockTakesNothing() async throws {
        let fixture = try await ChannelFixture()
        let rootKey = SignifySecretKey.generate(comment: "lobby root")
        var settings = fixture.settings
        settings.rootKeys = [.inline(String(String(decoding: rootKey.publicKey.fileBytes, as: UTF8.self).split(separator: "\n")[1]))]
        let newKey = SignifySecretKey.generate(comment: "lobby 2")
        let day: Int64 = 86_400
        func rotate(at now: WallInstant, lifetime: Int64) throws -> ChannelRoot {
            try ChannelRootPublisher.publish(directory: fixture.channelDirectory, rootKey: rootKey, signatureComment: "verify with root.pub",
                                             signingKeys: [newKey.publicKey], version: nil, now: now, lifetimeSeconds: lifetime)
        }
        func rootFiles() -> [String: Data] {
            [ChannelRoot.fileName, ChannelRoot.signatureFileName].reduce(into: [:]) {
                $0[$1] = FileManager.default.contents(atPath: fixture.channelDirectory + "/" + $1)
            }
        }
        let firstRoot = try rotate(at: WallClock.now(), lifetime: 2 * day)
        let firstRootFiles = rootFiles()
        try fixture.publish(["green"], key: newKey)
        let (follower, store) = try fixture.follower(settings: settings)
        await follower.poll()
        #expect(follower.snapshot.root?.version == 1 && follower.snapshot.applied?.version == 1)
        #expect(ChannelStatusBody(follower, wall: WallClock.now()).rootExpires == firstRoot.expires.map(RFC3339.format))

        // Three days on, the origin withholds the rotation (404): nothing newer is taken.
        fixture.shared.clockOffset.withLock { $0 = 3 * day }
        try FileManager.default.removeItem(atPath: fixture.channelDirectory + "/root.json")
        try FileManager.default.removeItem(atPath: fixture.channelDirectory + "/root.json.sig")
        try fixture.publish(["blue"], key: newKey, at: WallClock.now() + 3 * day)
        await follower.poll()
        #expect(follower.snapshot.lastRefusal?.refusal == .rootExpired(version: 1, at: firstRoot.expires!, assumed: false))
        #expect(follower.snapshot.applied?.version == 1)
        #expect(fixture.shownColours(store) == ["green"], "the screen keeps what it shows")
        #expect(ChannelStatusBody(follower, wall: WallClock.now()).refused?.reason == "root-expired")
        // The old root served again does not help either: not newer.
        try fixture.restore(firstRootFiles)
        await follower.poll()
        #expect(follower.snapshot.lastRefusal?.refusal.code == "root-expired")

        // The owner signs a newer root: updates flow again.
        _ = try rotate(at: WallClock.now() + 3 * day, lifetime: 365 * day)
        await follower.poll()
        #expect(follower.snapshot.root?.version == 2)
        #expect(follower.snapshot.applied?.version == 2 && fixture.shownColours(store) == ["blue"])

        // The clock steps back two days, unsynchronised: nothing is taken, and the status says why.
        fixture.shared.clockOffset.withLock { $0 = 1 * day }
        try fixture.publish(["red"], key: newKey, at: WallClock.now())
        await follower.poll()
        #expect(follower.snapshot.lastRefusal?.refusal.code == "clock-untrusted")
        #expect(follower.snapshot.applied?.version == 2)
        // Synchronised, it is believed.
        fixture.shared.synchronized.withLock { $0 = true }
        await follower.poll()
        #expect(follower.snapshot.applied?.version == 3 && fixture.shownColours(store) == ["red"])

        // The stored root is lost and the origin serves the old root 1: neither it nor channel.keys is trusted.
        try FileManager.default.removeItem(atPath: fixture.stateDirectory + "/channel-root.json")
        try fixture.restore(firstRootFiles)
        try fixture.publish(["blue"])
        let (restarted, _) = try fixture.follower(settings: settings)
        #expect(restarted.snapshot.root == nil)
        await restarted.poll()
        #expect(restarted.snapshot.root == nil, "root 1 is below the floor of 2")
        #expect(restarted.snapshot.lastRefusal?.refusal.code == "unknown-key", "channel.keys do not come back")
        #expect(fixture.shownColours(store) == ["red"])
        await fixture.close()
    }

    @Test func theAppliedVersionSurvivesARestartWithoutBeingAppliedAgain() async throws {
        let fixture = try await ChannelFixture()
        let v1: [String: Data]
        do {
            let (follower, _) = try fixture.follower()
            try fixture.publish(["green"])
            v1 = fixture.snapshotFiles()
            try fixture.publish(["blue"])
            await follower.poll()
            #expect(follower.snapshot.applied?.version == 2)
        }
        #expect(fixture.appliedCount == 1)
        // A new process on the same state directory: it knows version 2 and its ETags.
        let (restarted, store) = try fixture.follower()
        #expect(restarted.snapshot.applied?.version == 2)
        #expect(!restarted.snapshot.reapplyAllowed)
        let before = fixture.server.notModifiedCount
        await restarted.poll()
        #expect(fixture.server.notModifiedCount == before + 2)
        #expect(fixture.appliedCount == 1)
        // And still refuses the older one.
        try fixture.restore(v1)
        await restarted.poll()
        #expect(restarted.snapshot.lastRefusal?.refusal.code == "not-newer")
        #expect(fixture.shownColours(store) == ["blue"])
        #expect(fixture.appliedCount == 1)
        await fixture.close()
    }

    @Test func aKeyFileThatCannotBeReadTurnsFollowingOffNamingIt() async throws {
        let fixture = try await ChannelFixture()
        var settings = fixture.settings
        settings.keys = [.file(fixture.root + "/missing.pub")]
        let (follower, _) = try fixture.follower(settings: settings)
        guard case .off(let reason) = follower.snapshot.activity else { Issue.record("\(follower.snapshot.activity)"); return }
        #expect(reason.contains("channel.keys[0]"))
        #expect(reason.contains("missing.pub"))
        await follower.run()  // returns at once
        await fixture.close()
    }
}

@Suite("channel: the kiosk and its API", .serialized)
struct ChannelKioskTests {
    @Test func theScreenShowsTheChannelAndLocalPushesAre409() async throws {
        let fixture = try await ChannelFixture()
        try fixture.publish(["blue"])
        let key = String(decoding: fixture.signer.publicKey.fileBytes, as: UTF8.self).split(separator: "\n")[1]
        let yaml = ServerHarness.defaultYAML + "\nchannel: {url: \"\(fixture.server.url)\", keys: [\"\(key)\"], group: lobby, device: left}"
        let harness = try ServerHarness(yaml: yaml, channelPolicy: ChannelFixture.policy)
        defer { harness.close() }
        let follower = try #require(harness.api.channel)
        await follower.poll()
        #expect(follower.snapshot.applied?.version == 1)
        #expect(try await URLImageTests().waitForScreen(harness, ServerHarness.colors["blue"]!))
        try await harness.application().test(.router) { client in
            let (status, answer) = try await sendJSON(client, .put, "/api/v1/config", #"{"slides": ["red.jpg"]}"#)
            #expect(status == .conflict)
            #expect((answer["error"] as? String)?.contains(fixture.server.url) == true)
            #expect(answer["channel"] as? String == fixture.server.url)
            try await client.execute(uri: "/api/v1/config/rollback", method: .post, headers: authorized()) { #expect($0.status == .conflict) }
            // A push to one output is refused the same way, before the output is looked for.
            let (outputStatus, outputAnswer) = try await sendJSON(client, .put, "/api/v1/config?output=HDMI-A-1", #"{"slides": ["red.jpg"]}"#)
            #expect(outputStatus == .conflict && outputAnswer["channel"] as? String == fixture.server.url, "\(outputAnswer)")
            try await client.execute(uri: "/api/v1/status", method: .get, headers: authorized()) { response in
                let channel = json(response.body)["channel"] as? [String: Any]
                #expect(channel?["version"] as? Int == 1)
                #expect(channel?["group"] as? String == "lobby")
                #expect(channel?["device"] as? String == "left")
                #expect(channel?["url"] as? String == fixture.server.url)
            }
            try await client.execute(uri: "/metrics", method: .get) { response in
                let text = String(buffer: response.body)
                #expect(text.contains("vitrine_channel_version 1"))
                #expect(text.contains("vitrine_channel_refusals_total{reason=\"bad-signature\"} 0"))
            }
            // A push may not carry a channel section either.
            let (pushStatus, _) = try await sendJSON(client, .put, "/api/v1/config", #"{"channel": {"url": "https://evil.example/c", "keys": ["x.pub"]}}"#)
            #expect(pushStatus == .conflict)
        }
        #expect(try await URLImageTests().waitForScreen(harness, ServerHarness.colors["blue"]!))
        await fixture.close()
    }

    @Test func withAllowLocalPushAPushStandsAndAChannelSectionInItIs422() async throws {
        let fixture = try await ChannelFixture()
        let key = String(decoding: fixture.signer.publicKey.fileBytes, as: UTF8.self).split(separator: "\n")[1]
        let yaml = ServerHarness.defaultYAML + "\nchannel: {url: \"\(fixture.server.url)\", keys: [\"\(key)\"], allowLocalPush: true}"
        let harness = try ServerHarness(yaml: yaml)
        defer { harness.close() }
        try await harness.application().test(.router) { client in
            let (status, _) = try await sendJSON(client, .put, "/api/v1/config", #"{"slides": ["green.jpg"]}"#)
            #expect(status == .ok)
            let (refused, answer) = try await sendJSON(client, .put, "/api/v1/config", #"{"slides": ["green.jpg"], "channel": {"url": "https://evil.example/c", "keys": ["x.pub"]}}"#)
            #expect(refused == .unprocessableContent)
            #expect((answer["issues"] as? [[String: Any]])?.contains { $0["path"] as? String == "channel" } == true)
        }
        await fixture.close()
    }
}
