import Foundation
import Testing
import VitrineChannel
import VitrineCore

/// Against OpenBSD's own signify (Debian's signify-openbsd; `make unit-test`
/// installs it): keys and signatures must pass both ways, byte for byte.
@Suite(.enabled(if: signifyPath != nil, "signify-openbsd is not installed (apt-get install signify-openbsd)"))
struct SignifyInteropTests {
    let scratch = Scratch("signify")
    var signify: String { signifyPath! }

    @Test func aManifestSignedBySignifyVerifies() throws {
        let generated = try run(signify, ["-G", "-n", "-c", "offline", "-p", scratch.file("offline.pub"), "-s", scratch.file("offline.sec")])
        try #require(generated.status == 0, "\(generated.output)")
        let manifest = manifestBytes(version: 3)
        scratch.write("channel.json", manifest)
        let signed = try run(signify, ["-S", "-s", scratch.file("offline.sec"), "-m", scratch.file("channel.json"),
                                       "-x", scratch.file("channel.json.sig")])
        try #require(signed.status == 0, "\(signed.output)")

        let publicKey = try ChannelKeys.loadPublicKey(scratch.file("offline.pub"))
        #expect(publicKey.comment == "offline public key")
        let verified = try ChannelVerifier(trustedKeys: [publicKey]).verify(
            manifest: manifest, signature: scratch.read("channel.json.sig"), appliedVersion: 2, now: publishedAt)
        #expect(verified.manifest.version == 3)
        #expect(verified.keyNumber == publicKey.keyNumber)

        // signify's unencrypted secret key reads too, and Ed25519 being
        // deterministic, signs to the very same signature.
        let secret = try ChannelKeys.loadSecretKey(scratch.file("offline.sec"))
        #expect(secret.keyNumber == publicKey.keyNumber)
        let ours = try secret.sign(manifest, comment: ChannelKeys.signatureComment(secretKeyPath: scratch.file("offline.sec"), key: secret))
        #expect(ours.fileBytes == scratch.read("channel.json.sig"))

        // And a byte changed after signing is refused.
        var tampered = manifest
        tampered[tampered.count - 2] ^= 1
        #expect(throws: ChannelRefusal.self) {
            try ChannelVerifier(trustedKeys: [publicKey]).verify(
                manifest: tampered, signature: scratch.read("channel.json.sig"), appliedVersion: nil, now: publishedAt)
        }
    }

    @Test func signifyVerifiesWhatVitrineSignsWithItsOwnKeys() throws {
        try ChannelKeys.generate(publicKeyPath: scratch.file("vitrine.pub"), secretKeyPath: scratch.file("vitrine.sec"), comment: "vitrine")
        scratch.write("site/a.jpg", "picture A")
        scratch.write("site/vitrine.yaml", "slides: [a.jpg]\n")
        let secret = try ChannelKeys.loadSecretKey(scratch.file("vitrine.sec"))
        _ = try ChannelPublisher.publish(
            ChannelPublisher.Request(configurationFile: scratch.file("site/vitrine.yaml"), directory: scratch.file("channel"),
                                     signing: .key(secret, comment: ChannelKeys.signatureComment(secretKeyPath: scratch.file("vitrine.sec"), key: secret))),
            now: publishedAt)
        let verified = try run(signify, ["-V", "-p", scratch.file("vitrine.pub"), "-m", scratch.file("channel/channel.json"),
                                         "-x", scratch.file("channel/channel.json.sig")])
        #expect(verified.status == 0, "\(verified.output)")
        #expect(verified.output.contains("Signature Verified"))

        // signify signs with Vitrine's secret key file to the same signature.
        let resigned = try run(signify, ["-S", "-s", scratch.file("vitrine.sec"), "-m", scratch.file("channel/channel.json"),
                                         "-x", scratch.file("resigned.sig")])
        #expect(resigned.status == 0, "\(resigned.output)")
        #expect(scratch.read("resigned.sig") == scratch.read("channel/channel.json.sig"))

        // A changed manifest fails signify's check, as it fails ours.
        var manifest = scratch.read("channel/channel.json")
        manifest[manifest.count - 2] ^= 1
        scratch.write("channel/channel.json", manifest)
        let refused = try run(signify, ["-V", "-p", scratch.file("vitrine.pub"), "-m", scratch.file("channel/channel.json"),
                                        "-x", scratch.file("channel/channel.json.sig")])
        #expect(refused.status != 0)
    }

    /// The real binary end to end, when the debug build is there
    /// (`swift build --build-tests` makes it).
    @Test(.enabled(if: vitrineBinary != nil, "the debug vitrine binary is not built (swift build --build-tests)"))
    func theCommandLineAgreesWithSignify() throws {
        let vitrine = vitrineBinary!
        let keygen = try run(vitrine, ["channel", "keygen", "--public", scratch.file("cli.pub"), "--secret", scratch.file("cli.sec"),
                                       "--comment", "cli"])
        try #require(keygen.status == 0, "\(keygen.output)")
        scratch.write("site/a.jpg", "picture A")
        scratch.write("site/vitrine.yaml", "slides: [a.jpg]\n")
        let publish = try run(vitrine, ["channel", "publish", "--config", scratch.file("site/vitrine.yaml"), "--dir", scratch.file("channel"),
                                        "--key", scratch.file("cli.sec"), "--expires", "7d"])
        try #require(publish.status == 0, "\(publish.output)")
        #expect(publish.output.contains("version 1 (a new channel)"))

        let signifyCheck = try run(signify, ["-V", "-p", scratch.file("cli.pub"), "-m", scratch.file("channel/channel.json")])
        #expect(signifyCheck.status == 0, "\(signifyCheck.output)")

        let verify = try run(vitrine, ["channel", "verify", "--dir", scratch.file("channel"), "--key", scratch.file("cli.pub")])
        #expect(verify.status == 0, "\(verify.output)")
        #expect(verify.output.contains("verified: version 1"))
        #expect(verify.output.contains("blobs: all 1 present and matching"))

        let replay = try run(vitrine, ["channel", "verify", "--dir", scratch.file("channel"), "--key", scratch.file("cli.pub"),
                                       "--applied-version", "1"])
        #expect(replay.status == 1)
        #expect(replay.output.contains("refused: not newer: version 1 is the version already applied (nothing new) [not-newer]"))

        // Unsigned, then signed offline with signify: vitrine accepts it.
        let unsigned = try run(vitrine, ["channel", "publish", "--config", scratch.file("site/vitrine.yaml"), "--dir", scratch.file("channel"),
                                         "--unsigned"])
        try #require(unsigned.status == 0, "\(unsigned.output)")
        let missing = try run(vitrine, ["channel", "verify", "--dir", scratch.file("channel"), "--key", scratch.file("cli.pub")])
        #expect(missing.status == 1)
        #expect(missing.output.contains("[bad-signature]"))
        let offline = try run(signify, ["-S", "-s", scratch.file("cli.sec"), "-m", scratch.file("channel/channel.json"),
                                        "-x", scratch.file("channel/channel.json.sig")])
        try #require(offline.status == 0, "\(offline.output)")
        let signed = try run(vitrine, ["channel", "verify", "--dir", scratch.file("channel"), "--key", scratch.file("cli.pub"),
                                       "--applied-version", "1"])
        #expect(signed.status == 0, "\(signed.output)")
        #expect(signed.output.contains("verified: version 2"))

        // A blob damaged on the origin is named.
        let blobs = try FileManager.default.subpathsOfDirectory(atPath: scratch.file("channel/blobs")).filter { $0.count > 60 }
        scratch.write("channel/blobs/" + blobs[0], "not the picture")
        let damaged = try run(vitrine, ["channel", "verify", "--dir", scratch.file("channel"), "--key", scratch.file("cli.pub")])
        #expect(damaged.status == 1)
        #expect(damaged.output.contains("blob refused: blobs/" + blobs[0]))
    }
}
