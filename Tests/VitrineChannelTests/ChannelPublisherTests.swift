import Foundation
import Glibc
import Testing
import VitrineChannel
import VitrineConfig
import VitrineCore

@Suite struct ChannelPublisherTests {
    let scratch = Scratch("publish")
    let signer = key("publisher")

    init() {
        scratch.write("site/pictures/a.jpg", "picture A")
        scratch.write("site/pictures/b.jpg", "picture B")
        scratch.write("site/vitrine.yaml", """
            slides:
              - pictures/a.jpg
              - {path: pictures/b.jpg, duration: 9s}
              - https://example.com/remote.jpg
              - pictures/a.jpg
            interval: 6s
            """)
    }

    var channel: String { scratch.file("channel") }

    func publish(signing: ChannelPublisher.Signing? = nil, version: UInt64? = nil, expires: Int64? = nil,
                 now: WallInstant = publishedAt) throws -> ChannelPublisher.Outcome {
        try ChannelPublisher.publish(
            ChannelPublisher.Request(configurationFile: scratch.file("site/vitrine.yaml"), directory: channel,
                                     signing: signing ?? .key(signer, comment: "verify with publisher.pub"), version: version,
                                     expiresAfterSeconds: expires ?? ChannelPublisher.defaultValiditySeconds),
            now: now)
    }

    func verify(applied: UInt64? = nil, now: WallInstant = publishedAt + 60) throws -> VerifiedManifest {
        try ChannelVerifier(trustedKeys: [signer.publicKey]).verify(
            manifest: scratch.read("channel/channel.json"), signature: scratch.read("channel/channel.json.sig"),
            appliedVersion: applied, now: now)
    }

    func blobPath(_ text: String) -> String {
        let sha = ChannelDigest.sha256(Array(text.utf8))
        return channel + "/blobs/\(sha.prefix(2))/\(sha)"
    }

    @Test func aPublishWritesBlobsAndASignedManifest() throws {
        let outcome = try publish(expires: 7 * 86_400)
        #expect(outcome.version == 1)
        #expect(outcome.previousVersion == nil)
        #expect(outcome.blobsWritten.count == 2)  // a.jpg twice is one blob
        #expect(outcome.blobsKept.isEmpty)
        #expect(scratch.read(String(blobPath("picture A").dropFirst(scratch.path.count + 1))) == Array("picture A".utf8))

        let manifest = try verify().manifest
        #expect(manifest.version == 1)
        #expect(manifest.published == publishedAt)
        #expect(manifest.expires == publishedAt + 7 * 86_400)
        let slides = manifest.configuration.slides
        #expect(slides.map(\.path) == [
            "blob:" + ChannelDigest.sha256(Array("picture A".utf8)), "blob:" + ChannelDigest.sha256(Array("picture B".utf8)),
            "https://example.com/remote.jpg", "blob:" + ChannelDigest.sha256(Array("picture A".utf8)),
        ])
        #expect(slides[1].duration == .seconds(9))
        #expect(manifest.configuration.interval == .seconds(6))
        // Every blob the manifest names is in the directory, with the bytes it says.
        for blob in manifest.blobs.values {
            try blob.check(scratch.read("channel/" + blob.path))
        }
        // The signature file is signify's, with signify's comment.
        #expect(String(decoding: scratch.read("channel/channel.json.sig"), as: UTF8.self).hasPrefix("untrusted comment: verify with publisher.pub\n"))
        // No temporary files are left for the origin to serve.
        let names = try FileManager.default.subpathsOfDirectory(atPath: channel)
        #expect(!names.contains { $0.contains(".tmp-") })
    }

    @Test func publishingAgainWithOnePictureChangedRewritesOnlyThatBlob() throws {
        _ = try publish()
        let keptBefore = try #require(identity(blobPath("picture A")))
        let oldB = blobPath("picture B")
        // A coarse-timestamp filesystem could hide a rewrite in the same tick; the inode cannot.
        usleep(20_000)
        scratch.write("site/pictures/b.jpg", "picture B, retouched")

        let second = try publish(now: publishedAt + 3600)
        #expect(second.version == 2)
        #expect(second.previousVersion == 1)
        #expect(second.blobsWritten.map(\.sha256) == [ChannelDigest.sha256(Array("picture B, retouched".utf8))])
        #expect(second.blobsKept.map(\.sha256) == [ChannelDigest.sha256(Array("picture A".utf8))])

        let keptAfter = try #require(identity(blobPath("picture A")))
        #expect(keptAfter.inode == keptBefore.inode)
        #expect(keptAfter.modified.tv_sec == keptBefore.modified.tv_sec && keptAfter.modified.tv_nsec == keptBefore.modified.tv_nsec)
        #expect(FileManager.default.fileExists(atPath: blobPath("picture B, retouched")))
        // The old blob stays: a kiosk that fetched version 1 a moment ago may still want it.
        #expect(FileManager.default.fileExists(atPath: oldB))

        let manifest = try verify(applied: 1, now: publishedAt + 3660).manifest
        #expect(manifest.version == 2)
        #expect(manifest.configuration.slides[1].path == "blob:" + ChannelDigest.sha256(Array("picture B, retouched".utf8)))
        // A kiosk that applied version 2 refuses a replay of it.
        #expect(throws: ChannelRefusal.notNewer(version: 2, applied: 2)) { try verify(applied: 2) }
    }

    /// nginx's ETag is the modification time in whole seconds and the size:
    /// two publishes in one second, with manifests of one size, must still
    /// differ in it, or kiosks would be told 304 for the second.
    @Test func aManifestPublishedInTheSameSecondIsDatedLater() throws {
        func modified(_ name: String) -> Int {
            var info = stat()
            return stat(channel + "/" + name, &info) == 0 ? info.st_mtim.tv_sec : -1
        }
        _ = try publish()
        let first = (modified("channel.json"), modified("channel.json.sig"))
        _ = try publish()
        let second = (modified("channel.json"), modified("channel.json.sig"))
        #expect(second.0 > first.0 && second.1 > first.1, "\(first) -> \(second)")
        #expect(try verify().manifest.version == 2)
    }

    @Test func aGivenVersionMustBeGreater() throws {
        _ = try publish(version: 10)
        let error = try #require(throws: ChannelPublishError.self) { try publish(version: 10) }
        #expect(error.description == "version 10 is not newer than the channel's current version 10: kiosks would refuse it")
        #expect(try publish().version == 11)
        #expect(try publish(version: 20).version == 20)
    }

    @Test func unsignedLeavesNoStaleSignature() throws {
        _ = try publish()
        let outcome = try publish(signing: .unsigned)
        #expect(outcome.signature == nil)
        #expect(outcome.version == 2)
        #expect(!FileManager.default.fileExists(atPath: channel + "/channel.json.sig"))
        // Signed afterwards (offline, here in-process), it verifies.
        let manifest = scratch.read("channel/channel.json")
        scratch.write("channel/channel.json.sig", try sign(manifest, with: signer))
        #expect(try verify(applied: 1).manifest.version == 2)
    }

    @Test func missingPicturesAndAssetsAreRefusedBeforeAnythingIsWritten() throws {
        scratch.write("site/vitrine.yaml", """
            slides: [pictures/a.jpg, pictures/gone.jpg, "asset:\(String(repeating: "b", count: 64))"]
            """)
        let error = try #require(throws: ChannelPublishError.self) { try publish() }
        let lines = error.description.split(separator: "\n").map(String.init)
        #expect(lines.count == 2)
        #expect(lines.contains { $0.contains("slides[1].path: file not found") })
        #expect(lines.contains { $0.contains("slides[2].path: an asset: reference cannot be published") })
        #expect(!FileManager.default.fileExists(atPath: channel))
    }

    @Test func anUnreadableCurrentManifestStopsTheVersionGuess() throws {
        scratch.write("channel/channel.json", "{broken")
        let error = try #require(throws: ChannelPublishError.self) { try publish() }
        #expect(error.description.contains("the next version is unknown"))
        #expect(try publish(version: 5).version == 5)
    }

    @Test func schedulePlaylistsAndThePlaceholderBecomeBlobsToo() throws {
        scratch.write("site/pictures/night.jpg", "night")
        scratch.write("site/pictures/wait.jpg", "wait")
        scratch.write("site/vitrine.yaml", """
            placeholder: pictures/wait.jpg
            schedule:
              timezone: UTC
              playlists:
                night: [pictures/night.jpg, pictures/a.jpg]
              entries:
                - {playlist: night, days: [mon], from: "22:00", until: "23:00"}
              otherwise: off
            """)
        let outcome = try publish()
        #expect(outcome.blobsWritten.count == 3)
        let manifest = try verify().manifest
        #expect(manifest.configuration.placeholder == "blob:" + ChannelDigest.sha256(Array("wait".utf8)))
        let night = try #require(manifest.configuration.schedule?.playlist(named: "night"))
        #expect(night.slides.map(\.slide.path) == [
            "blob:" + ChannelDigest.sha256(Array("night".utf8)), "blob:" + ChannelDigest.sha256(Array("picture A".utf8)),
        ])
    }
}

@Suite struct SignifyKeyTests {
    @Test func aSecretKeyFileReadsBack() throws {
        let original = key("round trip")
        let parsed = try SignifySecretKey(parsing: original.fileBytes)
        #expect(parsed.keyNumber == original.keyNumber)
        #expect(parsed.key.rawRepresentation == original.key.rawRepresentation)
        #expect(parsed.comment == "round trip secret key")
        #expect(parsed.publicKey.comment == "round trip public key")
        let publicKey = try SignifyPublicKey(parsing: original.publicKey.fileBytes)
        #expect(publicKey.keyNumber == original.keyNumber)
        let message = Array("message".utf8)
        #expect(publicKey.isValid(try parsed.sign(message, comment: "c"), for: message))
    }

    @Test func anEncryptedOrDamagedSecretKeyIsRefused() throws {
        let lines = String(decoding: key().fileBytes, as: UTF8.self).split(separator: "\n")
        var record = Array(Data(base64Encoded: String(lines[1]))!)
        var encrypted = record
        encrypted[7] = 42  // kdfrounds 42, signify's default with a passphrase
        let passphrase = "untrusted comment: x\n" + Data(encrypted).base64EncodedString() + "\n"
        let error = try #require(throws: SignifyFileError.self) { try SignifySecretKey(parsing: Array(passphrase.utf8), file: "k.sec") }
        #expect(error.description.hasPrefix("k.sec: the key is protected by a passphrase (42 KDF rounds)"))
        record[50] ^= 1
        let damaged = "untrusted comment: x\n" + Data(record).base64EncodedString() + "\n"
        #expect(throws: SignifyFileError.self) { try SignifySecretKey(parsing: Array(damaged.utf8)) }
    }

    @Test func keygenWritesBothFilesOnceWithTheSecretKeyPrivate() throws {
        let scratch = Scratch("keys")
        let made = try ChannelKeys.generate(publicKeyPath: scratch.file("k.pub"), secretKeyPath: scratch.file("k.sec"), comment: "lobby")
        var info = stat()
        #expect(stat(scratch.file("k.sec"), &info) == 0)
        #expect(info.st_mode & 0o777 == 0o600)
        #expect(String(decoding: scratch.read("k.pub"), as: UTF8.self).hasPrefix("untrusted comment: lobby public key\n"))
        #expect(String(decoding: scratch.read("k.sec"), as: UTF8.self).hasPrefix("untrusted comment: lobby secret key\n"))
        #expect(try ChannelKeys.loadPublicKey(scratch.file("k.pub")).keyNumber == made.keyNumber)
        #expect(try ChannelKeys.loadSecretKey(scratch.file("k.sec")).keyNumber == made.keyNumber)
        // A key is never overwritten.
        #expect(throws: SignifyFileError.self) {
            try ChannelKeys.generate(publicKeyPath: scratch.file("other.pub"), secretKeyPath: scratch.file("k.sec"), comment: "again")
        }
        #expect(!FileManager.default.fileExists(atPath: scratch.file("other.pub")))
    }
}

/// Pictures and videos larger than the publisher's chunk: hashed and copied a
/// chunk at a time, never held whole.
@Suite struct ChannelPublisherLargeFileTests {
    let scratch = Scratch("publish-large")

    /// `count` bytes that differ from chunk to chunk, so that a chunk copied twice or skipped shows.
    static func bytes(_ count: Int) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: ($0 &* 2_654_435_761) >> 13) }
    }

    @Test func aFileOfSeveralChunksIsPublishedWithTheDigestOfItsWholeBytes() throws {
        let video = Self.bytes(3 * (1 << 20) + 12_345)
        scratch.write("site/clip.mp4", video)
        scratch.write("site/vitrine.yaml", "slides:\n  - clip.mp4\n")
        let outcome = try ChannelPublisher.publish(
            ChannelPublisher.Request(configurationFile: scratch.file("site/vitrine.yaml"), directory: scratch.file("channel"),
                                     signing: .unsigned, version: nil, expiresAfterSeconds: ChannelPublisher.defaultValiditySeconds),
            now: publishedAt)
        let blob = try #require(outcome.blobsWritten.first)
        #expect(blob == ChannelBlob(sha256: ChannelDigest.sha256(video), size: UInt64(video.count)))
        #expect(scratch.read("channel/" + blob.path) == video)
        #expect(try ChannelFiles.blob(of: scratch.file("channel/" + blob.path)) == blob)
    }
}
