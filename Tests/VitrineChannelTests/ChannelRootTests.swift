import Testing
import VitrineChannel
import VitrineCore

/// `root.json`: the offline root key names the keys that sign manifests.
@Suite struct ChannelRootTests {
    let rootKey = key("root")
    let newSigner = key("new signer")

    var verifier: ChannelRootVerifier { ChannelRootVerifier(rootKeys: [rootKey.publicKey]) }

    func published(_ version: UInt64? = nil, keys: [SignifySecretKey]? = nil, in scratch: Scratch) throws -> ChannelRoot {
        try ChannelRootPublisher.publish(directory: scratch.path, rootKey: rootKey, signatureComment: "verify with root.pub",
                                         signingKeys: (keys ?? [newSigner]).map(\.publicKey), version: version, now: publishedAt)
    }

    func refusal(_ root: [UInt8], _ signature: [UInt8], current: UInt64 = 0) -> ChannelRootRefusal? {
        do {
            _ = try verifier.verify(root: root, signature: signature, currentVersion: current)
            return nil
        } catch {
            return error
        }
    }

    @Test func aPublishedRootVerifiesAndNamesItsKeys() throws {
        let scratch = Scratch("root")
        let root = try published(in: scratch)
        #expect(root.version == 1)
        let verified = try verifier.verify(root: scratch.read("root.json"), signature: scratch.read("root.json.sig"), currentVersion: 0)
        #expect(verified == root)
        #expect(verified.keys.map(\.keyNumber) == [newSigner.keyNumber])
        #expect(verified.published == publishedAt)
        // The next rotation counts on from the file; a --version must be greater.
        #expect(try published(keys: [newSigner, key()], in: scratch).version == 2)
        #expect(throws: ChannelPublishError.self) { try published(2, in: scratch) }
        #expect(try published(9, in: scratch).version == 9)
    }

    @Test func signifyVerifiesTheRootsSignature() throws {
        guard let signify = signifyPath else { return }
        let scratch = Scratch("root")
        _ = try published(in: scratch)
        scratch.write("root.pub", rootKey.publicKey.fileBytes)
        let (status, output) = try run(signify, ["-V", "-p", scratch.file("root.pub"), "-m", scratch.file("root.json")])
        #expect(status == 0, "\(output)")
    }

    @Test func onlyARootKeysSignatureOverTheExactBytesIsTaken() throws {
        let scratch = Scratch("root")
        _ = try published(in: scratch)
        let bytes = scratch.read("root.json"), signature = scratch.read("root.json.sig")
        // Signed by the (leaked) signing key instead of the root key.
        let bySigner = try newSigner.sign(bytes, comment: "x").fileBytes
        #expect(refusal(bytes, bySigner) == .unknownKey(newSigner.keyNumber))
        // One byte changed: the version raised by someone without the root key.
        let tampered = Array(String(decoding: bytes, as: UTF8.self).replacingOccurrences(of: "\"version\" : 1", with: "\"version\" : 7").utf8)
        if case .badSignature = refusal(tampered, signature) {} else { Issue.record("a tampered root was not a bad signature") }
        if case .badSignature = refusal(bytes, Array("not a signature".utf8)) {} else { Issue.record("garbage was not a bad signature") }
    }

    @Test func aRootNoNewerThanTheOneTakenIsRefused() throws {
        let scratch = Scratch("root")
        _ = try published(3, in: scratch)
        let bytes = scratch.read("root.json"), signature = scratch.read("root.json.sig")
        #expect(refusal(bytes, signature, current: 3) == .notNewer(version: 3, current: 3))
        #expect(refusal(bytes, signature, current: 5) == .notNewer(version: 3, current: 5))
        #expect(refusal(bytes, signature, current: 2) == nil)
        #expect(ChannelRootRefusal.notNewer(version: 3, current: 5).description.contains("rollback"))
    }

    @Test func malformedRootsAreNamedByField() throws {
        let goodKey = String(String(decoding: newSigner.publicKey.fileBytes, as: UTF8.self).split(separator: "\n")[1])
        let cases: [(String, String)] = [
            (#"{"type":"vitrine-channel","format":1,"version":1,"published":"2026-11-24T00:00:00Z","keys":["\#(goodKey)"]}"#, "type must be"),
            (#"{"type":"vitrine-channel-root","format":2,"version":1,"published":"2026-11-24T00:00:00Z","keys":["\#(goodKey)"]}"#, "format must be 1"),
            (#"{"type":"vitrine-channel-root","format":1,"version":0,"published":"2026-11-24T00:00:00Z","keys":["\#(goodKey)"]}"#, "version must be"),
            (#"{"type":"vitrine-channel-root","format":1,"version":1,"published":"yesterday","keys":["\#(goodKey)"]}"#, "published must be"),
            (#"{"type":"vitrine-channel-root","format":1,"version":1,"published":"2026-11-24T00:00:00Z","keys":[]}"#, "keys must list"),
            (#"{"type":"vitrine-channel-root","format":1,"version":1,"published":"2026-11-24T00:00:00Z","keys":["RWQnotakey"]}"#, "keys[0]"),
            (#"{"type":"vitrine-channel-root","format":1,"version":1,"published":"2026-11-24T00:00:00Z","keys":["\#(goodKey)"],"threshold":2}"#, "threshold is not"),
            (#"{"type":"vitrine-channel-root","#, "line 1"),
        ]
        for (text, expected) in cases {
            let bytes = Array(text.utf8)
            let signature = try rootKey.sign(bytes, comment: "x").fileBytes
            guard case .malformed(let message) = refusal(bytes, signature) else {
                Issue.record("not refused as malformed: \(text)")
                continue
            }
            #expect(message.contains(expected) && message.contains("root.json"), "\(message)")
        }
    }
}
