import Foundation
import Logging
import PictureTestSupport
import Testing
import VitrineChannel
import VitrineConfig
import VitrineCore
@testable import VitrineAPI
@testable import VitrineChannelFollower
@testable import VitrineRuntime
import VitrineSandbox
import VitrineSystem
@testable import VitrineState
import VitrineSandboxHelper

/// A channel's blobs are staged to disk as they arrive, hashed on the way: a
/// download broken off is resumed where it stopped, and a video is kept as a
/// video.
@Suite("channel: blob downloads", .serialized)
struct ChannelBlobDownloadTests {
    static func blueJPEG() throws -> [UInt8] { try ServerHarness.jpeg(ServerHarness.colors["blue"]!) }

    static func fileSize(_ path: String) -> Int? {
        (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? nil
    }

    static func partialPath(_ fixture: ChannelFixture, _ sha256: String) -> String {
        fixture.stateDirectory + "/assets/partial-blob-" + sha256
    }

    @Test func aBlobDownloadBrokenOffIsResumedFromWhereItStopped() async throws {
        let fixture = try await ChannelFixture()
        let (follower, store) = try fixture.follower()
        try fixture.publish(["blue"])
        let blue = try Self.blueJPEG()
        let digest = ContentDigest.sha256(blue)
        let cut = blue.count / 2
        fixture.server.record.cutBlobsAfter.withLock { $0 = cut }
        await follower.poll()
        #expect(follower.snapshot.applied == nil)
        let failure = follower.snapshot.lastFailure?.message ?? ""
        #expect(failure.contains("the download broke off after \(cut) of \(blue.count) bytes"), "\(failure)")
        #expect(Self.fileSize(Self.partialPath(fixture, digest)) == cut)
        #expect(store.assets.list().isEmpty, "a part is not an asset")

        fixture.server.record.cutBlobsAfter.withLock { $0 = nil }
        await follower.poll()
        #expect(follower.snapshot.applied?.version == 1)
        #expect(fixture.shownColours(store) == ["blue"])
        #expect(fixture.server.record.blobRanges.withLock { $0 } == ["", "bytes=\(cut)-"])
        #expect(try FileIO.read(store.assets.path(digest)) == blue)
        #expect(Self.fileSize(Self.partialPath(fixture, digest)) == nil)
        await fixture.close()
    }

    /// Each attempt that gets further is followed soon (as after a first
    /// failure), not after a backoff that grows with every attempt.
    @Test func attemptsThatGetFurtherDoNotBackOff() async throws {
        let fixture = try await ChannelFixture()
        let (follower, store) = try fixture.follower()
        try fixture.publish(["blue"])
        let blue = try Self.blueJPEG()
        let third = blue.count / 3
        fixture.server.record.cutBlobsAfter.withLock { $0 = third }
        for attempt in 1...2 {
            await follower.poll()
            #expect(Self.fileSize(Self.partialPath(fixture, ContentDigest.sha256(blue))) == attempt * third)
            #expect(follower.snapshot.consecutiveFailures == 1, "attempt \(attempt)")
        }
        fixture.server.record.cutBlobsAfter.withLock { $0 = nil }
        await follower.poll()
        #expect(follower.snapshot.applied?.version == 1 && follower.snapshot.consecutiveFailures == 0)
        #expect(fixture.server.record.blobRanges.withLock { $0 } == ["", "bytes=\(third)-", "bytes=\(2 * third)-"])
        #expect(try FileIO.read(store.assets.path(ContentDigest.sha256(blue))) == blue)
        await fixture.close()
    }

    @Test func anOriginThatIgnoresRangesSendsTheWholeBlobAgain() async throws {
        let fixture = try await ChannelFixture()
        let (follower, store) = try fixture.follower()
        try fixture.publish(["blue"])
        let blue = try Self.blueJPEG()
        fixture.server.record.cutBlobsAfter.withLock { $0 = 100 }
        await follower.poll()
        #expect(Self.fileSize(Self.partialPath(fixture, ContentDigest.sha256(blue))) == 100)
        fixture.server.record.cutBlobsAfter.withLock { $0 = nil }
        fixture.server.record.ignoreRanges.withLock { $0 = true }
        await follower.poll()
        #expect(follower.snapshot.applied?.version == 1)
        #expect(fixture.server.record.blobRanges.withLock { $0 } == ["", "bytes=100-"])
        #expect(try FileIO.read(store.assets.path(ContentDigest.sha256(blue))) == blue, "the 200 replaced the kept part, not appended to it")
        await fixture.close()
    }

    /// The part kept is wrong (the origin's file was replaced under it): the
    /// whole does not match the manifest, so it is fetched again from its first
    /// byte, and only a whole download that does not match is refused.
    @Test func aResumedBlobThatDoesNotMatchIsDownloadedAgainWhole() async throws {
        let fixture = try await ChannelFixture()
        let (follower, store) = try fixture.follower()
        try fixture.publish(["blue"])
        let blue = try Self.blueJPEG()
        let digest = ContentDigest.sha256(blue)
        try FileManager.default.createDirectory(atPath: fixture.stateDirectory + "/assets", withIntermediateDirectories: true)
        try [UInt8](repeating: 0x55, count: 64).write(to: Self.partialPath(fixture, digest))
        await follower.poll()
        #expect(follower.snapshot.applied?.version == 1)
        #expect(follower.snapshot.lastRefusal == nil)
        #expect(fixture.server.record.blobRanges.withLock { $0 } == ["bytes=64-", ""])
        #expect(try FileIO.read(store.assets.path(digest)) == blue)
        await fixture.close()
    }

    /// A part that outlived what the channel wants (a version that replaced
    /// it) goes once a version's blobs are all stored.
    @Test func partsOfBlobsNoVersionWantsAreRemoved() async throws {
        let fixture = try await ChannelFixture()
        let (follower, store) = try fixture.follower()
        try fixture.publish(["blue"])
        fixture.server.record.cutBlobsAfter.withLock { $0 = 100 }
        await follower.poll()
        let part = Self.partialPath(fixture, ContentDigest.sha256(try Self.blueJPEG()))
        #expect(Self.fileSize(part) == 100)
        fixture.server.record.cutBlobsAfter.withLock { $0 = nil }
        try fixture.publish(["green"])
        await follower.poll()
        #expect(follower.snapshot.applied?.version == 2)
        #expect(fixture.shownColours(store) == ["green"])
        #expect(Self.fileSize(part) == nil)
        await fixture.close()
    }

    /// A video in a channel: downloaded to disk, opened in a video helper
    /// (the built `vitrine-video`), and kept as a video asset the playlist names.
    @Test func aChannelVideoIsStoredAsAVideoAsset() async throws {
        let fixture = try await ChannelFixture()
        let clip = try NumberedClip(codec: .h264, framesPerSecond: 25, seconds: 0.4)
        defer { clip.remove() }
        try FileManager.default.copyItem(atPath: clip.path, toPath: fixture.root + "/promo.mp4")
        let built = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        let inspector = SandboxedPictureInspector(pool: DecodePool(executable: built.appendingPathComponent("vitrine").path, size: 1, limits: HelperLimits()),
                                                  videos: SandboxedVideoOpener(executable: built.appendingPathComponent("vitrine-video").path))
        let (follower, store) = try fixture.follower(pictures: inspector)
        try fixture.publish(["promo.mp4", "blue"])
        // A small cut: the video too arrives in two attempts.
        fixture.server.record.cutBlobsAfter.withLock { $0 = 4096 }
        await follower.poll()
        fixture.server.record.cutBlobsAfter.withLock { $0 = nil }
        await follower.poll()
        #expect(follower.snapshot.applied?.version == 1, "\(String(describing: follower.snapshot.lastFailure)) \(String(describing: follower.snapshot.lastRefusal))")
        let video = try FileIO.read(clip.path)
        let asset = store.assets.asset(ContentDigest.sha256(video))
        #expect(asset?.kind == .mp4 && asset?.width == 320 && asset?.height == 240 && asset?.size == video.count)
        #expect(store.current.configuration.slides.first?.path == "asset:" + ContentDigest.sha256(video))
        await fixture.close()
    }
}
