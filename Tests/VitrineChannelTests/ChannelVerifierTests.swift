import Testing
import VitrineChannel
import VitrineConfig
import VitrineCore

@Suite struct ChannelVerifierTests {
    let signer = key("signer")

    var verifier: ChannelVerifier { ChannelVerifier(trustedKeys: [signer.publicKey]) }

    func refusal(_ manifest: [UInt8], _ signature: [UInt8], verifier: ChannelVerifier? = nil, applied: UInt64? = nil,
                 now: WallInstant = publishedAt + 60) -> ChannelRefusal? {
        do {
            _ = try (verifier ?? self.verifier).verify(manifest: manifest, signature: signature, appliedVersion: applied, now: now)
            return nil
        } catch {
            return error
        }
    }

    /// A manifest that never expires would look current for ever if someone kept
    /// serving it (a freeze attack): refused, with what to do about it.
    @Test func aManifestWithoutAnExpiryIsRefused() throws {
        let manifest = manifestBytes(version: 7, expires: nil)
        let refused = refusal(manifest, try sign(manifest, with: signer))
        #expect(refused?.code == "malformed")
        #expect(refused?.description.contains("expires: is required") == true && refused?.description.contains("--expires") == true,
                "\(refused.map(\.description) ?? "accepted")")
    }

    /// A board without a clock (1970) judges expiry by what it knows has
    /// happened: the publication it applied last, and this release's date.
    @Test func aClockBehindWhatHasHappenedCountsAsUnknown() throws {
        let nineteenSeventy = WallInstant(secondsSinceEpoch: 3600)
        let applied = publishedAt + 30 * 86_400
        let (now, behind) = ChannelClock.trustedNow(clock: nineteenSeventy, floors: [applied, WallInstant(secondsSinceEpoch: 1_700_000_000)])
        #expect(now == applied && behind)
        // So the week-long manifest published a month before the one applied is expired, not current.
        let old = manifestBytes(version: 9)
        #expect(refusal(old, try sign(old, with: signer), now: nineteenSeventy) == nil, "by the bare clock it would pass")
        #expect(refusal(old, try sign(old, with: signer), now: now) == .expired(at: weekLater))
        // A clock ahead of every floor is believed, and the floors are not a maximum.
        let later = applied + 86_400
        #expect(ChannelClock.trustedNow(clock: later, floors: [applied]) == (later, false))
        #expect(ChannelClock.trustedNow(clock: later, floors: []) == (later, false))
    }

    @Test func aGoodSignatureVerifies() throws {
        let manifest = manifestBytes(version: 7)
        let verified = try verifier.verify(manifest: manifest, signature: try sign(manifest, with: signer), appliedVersion: 6,
                                           now: publishedAt + 60)
        #expect(verified.keyNumber == signer.keyNumber)
        #expect(verified.manifest.version == 7)
        #expect(verified.manifest.published == publishedAt)
        #expect(verified.manifest.configuration.slides.count == 1)
        let reference = verified.manifest.configuration.slides[0].path
        #expect(verified.manifest.blob(for: reference)?.size == 7)
        #expect(verified.manifest.configuration.slides[0].duration == .seconds(8))
    }

    @Test func aFlippedByteInTheManifestIsABadSignature() throws {
        let manifest = manifestBytes()
        let signature = try sign(manifest, with: signer)
        // Every byte matters, including whitespace that no parser would notice.
        for index in [0, manifest.count / 2, manifest.count - 1] {
            var tampered = manifest
            tampered[index] ^= 0x01
            let refused = try #require(refusal(tampered, signature))
            guard case .badSignature = refused else { Issue.record("expected a bad signature, got \(refused)"); continue }
            #expect(refused.code == "bad-signature")
        }
    }

    @Test func aTamperedSignatureIsABadSignature() throws {
        let manifest = manifestBytes()
        var signature = try SignifySignature(parsing: try sign(manifest, with: signer))
        var bytes = signature.bytes
        bytes[10] ^= 0x80
        signature = SignifySignature(keyNumber: signature.keyNumber, bytes: bytes, comment: signature.comment)
        #expect(refusal(manifest, signature.fileBytes)?.code == "bad-signature")
    }

    @Test func aSignatureFileThatIsNotSignifysIsABadSignature() throws {
        let manifest = manifestBytes()
        for garbage in ["", "hello\n", "untrusted comment: x\nnot base64!\n", "untrusted comment: x\nRWQ=\n"] {
            let refused = try #require(refusal(manifest, Array(garbage.utf8)))
            #expect(refused.code == "bad-signature", "\(garbage.debugDescription)")
            #expect(refused.description.contains("channel.json.sig"))
        }
    }

    @Test func aKeyNotTrustedIsAnUnknownKey() throws {
        let stranger = key("stranger")
        let manifest = manifestBytes()
        let refused = try #require(refusal(manifest, try sign(manifest, with: stranger)))
        #expect(refused == .unknownKey(stranger.keyNumber))
        #expect(refused.code == "unknown-key")
        #expect(refused.description.contains(stranger.keyNumber.description))
    }

    @Test func aForeignKeyClaimingATrustedKeyNumberIsABadSignature() throws {
        // An attacker may copy a trusted keynum into their signature; the key decides.
        let stranger = key("stranger")
        let impostor = SignifySecretKey(keyNumber: signer.keyNumber, key: stranger.key, comment: "impostor secret key")
        let manifest = manifestBytes()
        #expect(refusal(manifest, try sign(manifest, with: impostor))?.code == "bad-signature")
    }

    @Test func twoTrustedKeysBothVerifyForRotation() throws {
        let old = key("2025"), new = key("2026")
        let verifier = ChannelVerifier(trustedKeys: [old.publicKey, new.publicKey])
        let manifest = manifestBytes()
        for signer in [old, new] {
            let verified = try verifier.verify(manifest: manifest, signature: try sign(manifest, with: signer), appliedVersion: nil,
                                               now: publishedAt)
            #expect(verified.keyNumber == signer.keyNumber)
        }
        // Once the old key is dropped, its signatures are refused.
        let afterRotation = ChannelVerifier(trustedKeys: [new.publicKey])
        #expect(refusal(manifest, try sign(manifest, with: old), verifier: afterRotation) == .unknownKey(old.keyNumber))
    }

    @Test func aVersionNotNewerIsRefused() throws {
        let manifest = manifestBytes(version: 5)
        let signature = try sign(manifest, with: signer)
        let same = try #require(refusal(manifest, signature, applied: 5))
        #expect(same == .notNewer(version: 5, applied: 5))
        #expect(same.code == "not-newer")
        #expect(same.description.contains("nothing new"))
        let older = try #require(refusal(manifest, signature, applied: 9))
        #expect(older == .notNewer(version: 5, applied: 9))
        #expect(older.description.contains("rollback"))
        #expect(refusal(manifest, signature, applied: 4) == nil)
        #expect(refusal(manifest, signature, applied: nil) == nil)
    }

    @Test func anExpiredManifestIsRefused() throws {
        let expires = publishedAt + 7 * 86_400
        let manifest = manifestBytes(expires: expires)
        let signature = try sign(manifest, with: signer)
        #expect(refusal(manifest, signature, now: expires - 1) == nil)
        let refused = try #require(refusal(manifest, signature, now: expires))
        #expect(refused == .expired(at: expires))
        #expect(refused.code == "expired")
        #expect(refused.description.contains("2026-04-04T12:00:00Z"))
        // Expiry is reported before "nothing new": a stale channel must be heard of.
        #expect(refusal(manifest, signature, applied: 7, now: expires + 1)?.code == "expired")
    }

    @Test func everyRefusalIsOneLine() throws {
        let refusals: [ChannelRefusal] = [
            .badSignature("x"), .unknownKey(signer.keyNumber), .notNewer(version: 1, applied: 2), .expired(at: publishedAt),
            .malformed(ChannelManifestError(file: "channel.json", issues: [
                ConfigIssue(path: "version", message: "a"), ConfigIssue(path: "format", message: "b"),
            ])),
        ]
        #expect(Set(refusals.map(\.code)) == ["bad-signature", "unknown-key", "not-newer", "expired", "malformed"])
        for refusal in refusals { #expect(!refusal.description.contains("\n")) }
    }
}

@Suite struct ManifestParsingTests {
    let signer = key("signer")

    /// The issues of `json`, signed properly: the signature is good, the content is not.
    func issues(_ json: String) throws -> [String] {
        let bytes = Array(json.utf8)
        let signature = try sign(bytes, with: signer)
        do {
            _ = try ChannelVerifier(trustedKeys: [signer.publicKey])
                .verify(manifest: bytes, signature: signature, appliedVersion: nil, now: publishedAt)
        } catch {
            guard case .malformed(let error) = error else {
                Issue.record("expected malformed, got \(error)")
                return []
            }
            #expect(error.file == "channel.json")
            #expect(error.lines.allSatisfy { $0.hasPrefix("channel.json: ") })
            return error.issues.map(\.description)
        }
        Issue.record("expected a refusal")
        return []
    }

    let sha = ChannelDigest.sha256(Array("picture".utf8))

    func manifest(version: String = "3", format: String = "1", extra: String = "", slides: String? = nil,
                  blobs: String? = nil) -> String {
        """
        {"format": \(format), "version": \(version), "published": "2026-03-28T12:00:00Z"\(extra),
         "configuration": {"slides": \(slides ?? "[{\"path\": \"blob:\(sha)\"}]")},
         "blobs": \(blobs ?? "{\"\(sha)\": {\"path\": \"blobs/\(sha.prefix(2))/\(sha)\", \"size\": 7}}")}
        """
    }

    @Test func aMinimalManifestReads() throws {
        let bytes = Array(manifest().utf8)
        let parsed = try ChannelManifest.parse(bytes)
        #expect(parsed.version == 3)
        #expect(parsed.expires == nil)
        #expect(parsed.blobs[sha]?.path == "blobs/\(sha.prefix(2))/\(sha)")
        // The configuration's bytes are the signed ones, not a re-serialisation.
        #expect(String(decoding: parsed.configurationJSON, as: UTF8.self).hasPrefix("{\"slides\": [{\"path\""))
    }

    @Test func aVersionThatIsNotAWholeNumberNamesTheField() throws {
        #expect(try issues(manifest(version: "\"3\"")) == ["version: must be a whole number from 0 to 18446744073709551615, found \"3\""])
        #expect(try issues(manifest(version: "3.5")).first?.hasPrefix("version: must be a whole number") == true)
        #expect(try issues(manifest(version: "-1")).first?.hasPrefix("version: must be a whole number") == true)
        #expect(try issues(manifest(version: "18446744073709551616")).first?.hasPrefix("version: must be a whole number") == true)
        // The largest version reads exactly (a Double would round it).
        #expect(try ChannelManifest.parse(Array(manifest(version: "18446744073709551615").utf8)).version == .max)
    }

    @Test func anUnknownFormatIsRefusedAlone() throws {
        #expect(try issues(manifest(version: "\"x\"", format: "4")) == ["format: unsupported format 4: this Vitrine reads format 1, 2 or 3"])
        #expect(try issues(#"{"version": 1}"#) == ["format: is required (this Vitrine reads format 1, 2 or 3)"])
    }

    @Test func syntaxErrorsSayWhere() throws {
        let found = try issues("{\"format\": 1,\n \"version\": 3,,}")
        #expect(found == ["syntax error at line 2, column 15: expected a key in double quotes"])
        #expect(try issues("[1]") == ["must be a JSON object, found an array"])
        #expect(try issues(#"{"format": 1, "format": 1}"#).first?.contains("duplicate key \"format\"") == true)
        let deep = String(repeating: "[", count: 200) + String(repeating: "]", count: 200)
        #expect(try issues(#"{"format": 1, "groups": "# + deep + "}").first?.contains("nested deeper than") == true)
    }

    @Test func missingAndUnknownFieldsAreNamed() throws {
        let found = try issues(#"{"format": 1, "colour": "red", "configuration": {}, "blobs": {}}"#)
        #expect(found.contains("version: is required"))
        #expect(found.contains("published: is required"))
        #expect(found.contains { $0.hasPrefix("colour: unknown field") })
    }

    @Test func timesMustBeRFC3339() throws {
        let found = try issues(manifest(extra: #", "expires": "next tuesday", "epoch": 5"#))
        #expect(found.contains { $0.hasPrefix("expires: must be an RFC 3339 date and time") })
        #expect(found.contains { $0.hasPrefix("epoch: must be an RFC 3339 date and time") })
        #expect(try issues(manifest(extra: #", "expires": "2026-03-28T11:00:00Z""#))
            == ["expires: must be after published (2026-03-28T12:00:00Z), found 2026-03-28T11:00:00Z"])
    }

    @Test func configurationProblemsNameTheirKeyPath() throws {
        let found = try issues(manifest(slides: "[{\"path\": \"blob:\(sha)\", \"duration\": -1}]"))
        #expect(found.count == 1)
        #expect(found.first?.hasPrefix("configuration.slides[0].duration: ") == true)
    }

    @Test func picturesMustBeListedBlobsOrURLs() throws {
        let other = String(repeating: "a", count: 64)
        let found = try issues(manifest(slides: """
            ["photos/local.jpg", "asset:\(other)", "blob:\(other)", "blob:nothex", "https://example.com/a.jpg"]
            """))
        #expect(found == [
            "configuration.slides[0].path: must be blob:<sha256> (a picture the channel carries) or an http(s) URL, found photos/local.jpg",
            "configuration.slides[1].path: must be blob:<sha256> (a picture the channel carries) or an http(s) URL, found asset:\(other)",
            "configuration.slides[2].path: names blob \(other), which blobs does not list",
            "configuration.slides[3].path: a blob reference must be blob: followed by 64 lowercase hex digits, found blob:nothex",
        ])
    }

    @Test func aChannelMayNotSetTheAPI() throws {
        let json = manifest().replacingOccurrences(of: "\"configuration\": {", with: "\"configuration\": {\"api\": {\"listen\": \"0.0.0.0:1\"}, ")
        #expect(try issues(json).contains { $0.hasPrefix("configuration.api: a channel may not set api") })
    }

    @Test func blobPathsAreFixedSoAManifestCannotPointElsewhere() throws {
        let found = try issues(manifest(blobs: "{\"\(sha)\": {\"path\": \"../../etc/passwd\", \"size\": 7}, \"ABC\": {}}"))
        #expect(found.contains("blobs.\(sha).path: must be blobs/\(sha.prefix(2))/\(sha) (format 1 fixes where a blob is), found ../../etc/passwd"))
        #expect(found.contains("blobs.ABC: a blob's name must be its SHA-256: 64 lowercase hex digits"))
        let sizes = try issues(manifest(blobs: "{\"\(sha)\": {\"path\": \"blobs/\(sha.prefix(2))/\(sha)\", \"size\": 1.5, \"kind\": 1}}"))
        #expect(sizes.contains { $0.hasPrefix("blobs.\(sha).size: must be a whole number") })
        #expect(sizes.contains("blobs.\(sha).kind: unknown field (a blob has path and size)"))
    }

    @Test func groupsAreAnOpaqueExtensionPoint() throws {
        let parsed = try ChannelManifest.parse(Array(manifest(extra: #", "groups": {"lobby": {"x": [1, 2]}}"#).utf8))
        #expect(parsed.groupsJSON.map { String(decoding: $0, as: UTF8.self) } == #"{"lobby": {"x": [1, 2]}}"#)
        #expect(try issues(manifest(extra: #", "groups": []"#)) == ["groups: must be an object, found an array"])
    }

    @Test func theDocumentWrittenReadsBackEqual() throws {
        let picture = Array("another picture".utf8)
        let blob = ChannelBlob(sha256: ChannelDigest.sha256(picture), size: UInt64(picture.count))
        var configuration = try ConfigLoader.parse("""
            slides: [{path: \(blob.reference), duration: 3s, action: {goto: 0}}, "https://example.com/x.jpg"]
            interval: 4s
            transition: {type: crossfade, duration: 250ms}
            """, blobReferences: true)
        configuration.baseDirectory = "."
        let bytes = ChannelManifest.document(version: 42, published: publishedAt, expires: publishedAt + 3600,
                                             epoch: WallInstant(secondsSinceEpoch: 0), configuration: configuration, blobs: [blob])
        let parsed = try ChannelManifest.parse(bytes)
        #expect(parsed.version == 42)
        #expect(parsed.expires == publishedAt + 3600)
        #expect(parsed.epoch == WallInstant(secondsSinceEpoch: 0))
        #expect(parsed.configuration == configuration)
        #expect(parsed.blobs == [blob.sha256: blob])
    }
}

@Suite struct RFC3339Tests {
    @Test func readsUTCOffsetsAndFractions() {
        #expect(RFC3339.parse("2026-03-28T12:00:00Z") == publishedAt)
        #expect(RFC3339.parse("2026-03-28t12:00:00z") == publishedAt)
        #expect(RFC3339.parse("2026-03-28T13:30:00+01:30") == publishedAt)
        #expect(RFC3339.parse("2026-03-28T07:00:00-05:00") == publishedAt)
        #expect(RFC3339.parse("2026-03-28T12:00:00.999Z") == publishedAt)
        #expect(RFC3339.parse("1970-01-01T00:00:00Z") == .epoch)
        #expect(RFC3339.format(publishedAt) == "2026-03-28T12:00:00Z")
    }

    @Test func refusesWhatIsNotOne() {
        for text in ["2026-03-28", "2026-03-28T12:00Z", "2026-03-28T12:00:00", "2026-02-30T12:00:00Z", "2026-03-28T24:00:00Z",
                     "2026-03-28T12:00:00+1:00", "2026-03-28T12:00:00.Z", "2026-03-28T12:00:00Z ", "next tuesday"] {
            #expect(RFC3339.parse(text) == nil, "\(text)")
        }
    }
}

@Suite struct BlobCheckTests {
    @Test func matchingBytesPass() throws {
        let bytes = Array("picture".utf8)
        try ChannelBlob(sha256: ChannelDigest.sha256(bytes), size: 7).check(bytes)
    }

    @Test func aMismatchNamesTheBlobsPath() throws {
        let bytes = Array("picture".utf8)
        let blob = ChannelBlob(sha256: ChannelDigest.sha256(bytes), size: 7)
        let swapped = Array("pictURE".utf8)
        let error = try #require(throws: BlobMismatch.self) { try blob.check(swapped) }
        #expect(error.path == "blobs/\(blob.sha256.prefix(2))/\(blob.sha256)")
        #expect(error.description == "\(blob.path): SHA-256 is \(ChannelDigest.sha256(swapped)), the manifest says \(blob.sha256)")
        let short = try #require(throws: BlobMismatch.self) { try blob.check(Array("pic".utf8)) }
        #expect(short.description.hasPrefix("\(blob.path): 3 bytes, the manifest says 7"))
    }

    @Test func sha256IsTheKnownDigest() {
        #expect(ChannelDigest.sha256(Array("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }
}
