import Testing
import VitrineChannel
import VitrineConfig
import VitrineCore
import VitrineUpdate

@Suite struct UpdateRequestCheckTests {
    let signer = SignifySecretKey.generate(comment: "channel")
    let rootKey = SignifySecretKey.generate(comment: "root")
    let published = WallInstant(secondsSinceEpoch: 1_795_478_400)

    func request(version: UInt64 = 5, key: SignifySecretKey? = nil, expires: Int64 = 86_400) throws -> UpdateRequest {
        var configuration = KioskConfiguration()
        configuration.slides = [SlideConfiguration(path: "https://example.com/a.jpg", duration: .seconds(8))]
        let manifest = ChannelManifest.document(version: version, published: published, expires: published + expires, epoch: nil,
                                                configuration: configuration, blobs: [], software: ChannelSoftware(version: "1.1.0"))
        return UpdateRequest(manifest: manifest, signature: try (key ?? signer).sign(manifest, comment: "t").fileBytes)
    }

    @Test func verifiesWithTheConfiguredKeys() throws {
        let verified = try UpdateRequestCheck.verify(try request(), channelKeys: [signer.publicKey], rootKeys: [],
                                                     state: UpdateHelperState(), now: published + 60).get()
        #expect(verified.manifest.software == ChannelSoftware(version: "1.1.0"))
    }

    @Test func refusesAnotherKeyAnExpiredManifestAndAReplay() throws {
        let stranger = SignifySecretKey.generate(comment: "stranger")
        let forged = UpdateRequestCheck.verify(try request(key: stranger), channelKeys: [signer.publicKey], rootKeys: [],
                                               state: UpdateHelperState(), now: published + 60)
        #expect(throws: UpdateFileError.self) { try forged.get() }
        let expired = UpdateRequestCheck.verify(try request(), channelKeys: [signer.publicKey], rootKeys: [],
                                                state: UpdateHelperState(), now: published + 86_400)
        #expect((try? expired.get()) == nil)
        let replay = UpdateRequestCheck.verify(try request(version: 4), channelKeys: [signer.publicKey], rootKeys: [],
                                               state: UpdateHelperState(manifestVersion: 5), now: published + 60)
        guard case .failure(let error) = replay else { Issue.record("a replay was taken"); return }
        #expect(error.message.contains("older than version 5"))
        // The same version again (the helper restarted after a reboot) is taken.
        #expect((try? UpdateRequestCheck.verify(try request(version: 5), channelKeys: [signer.publicKey], rootKeys: [],
                                                 state: UpdateHelperState(manifestVersion: 5), now: published + 60).get()) != nil)
    }

    @Test func aRootNamesTheKeysAndCannotBeDroppedOnceSeen() throws {
        let rotated = SignifySecretKey.generate(comment: "rotated")
        let line = String(decoding: rotated.publicKey.fileBytes, as: UTF8.self).split(separator: "\n")[1]
        let root = ChannelRoot(version: 2, published: published, expires: published + 86_400 * 30, keyLines: [String(line)])
        var signed = try request(key: rotated)
        signed.root = root.json
        signed.rootSignature = try rootKey.sign(root.json, comment: "root").fileBytes

        // channel.keys alone would refuse the rotated key; the root vouches for it.
        #expect((try? UpdateRequestCheck.verify(signed, channelKeys: [signer.publicKey], rootKeys: [], state: UpdateHelperState(),
                                                 now: published + 60).get()) == nil)
        let verified = try UpdateRequestCheck.verify(signed, channelKeys: [signer.publicKey], rootKeys: [rootKey.publicKey],
                                                     state: UpdateHelperState(), now: published + 60).get()
        #expect(verified.rootVersion == 2)

        // Once root 2 was seen, a request signed with channel.keys and no root is refused,
        var bare = try request()
        bare.root = nil
        guard case .failure(let error) = UpdateRequestCheck.verify(bare, channelKeys: [signer.publicKey], rootKeys: [rootKey.publicKey],
                                                                   state: UpdateHelperState(rootVersion: 2), now: published + 60) else {
            Issue.record("a request without the root was taken after root 2"); return
        }
        #expect(error.message.contains("took root version 2 before"))
        // and so is an older root, but the same one is taken again.
        #expect((try? UpdateRequestCheck.verify(signed, channelKeys: [], rootKeys: [rootKey.publicKey],
                                                 state: UpdateHelperState(rootVersion: 3), now: published + 60).get()) == nil)
        #expect((try? UpdateRequestCheck.verify(signed, channelKeys: [], rootKeys: [rootKey.publicKey],
                                                 state: UpdateHelperState(rootVersion: 2), now: published + 60).get()) != nil)
        // A root signed by another key is refused whatever it names.
        signed.rootSignature = try rotated.sign(root.json, comment: "root").fileBytes
        #expect((try? UpdateRequestCheck.verify(signed, channelKeys: [], rootKeys: [rootKey.publicKey],
                                                 state: UpdateHelperState(), now: published + 60).get()) == nil)
    }
}
