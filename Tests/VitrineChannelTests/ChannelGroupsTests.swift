import Foundation
import Testing
import VitrineChannel
import VitrineConfig
import VitrineCore

/// Groups and per-device values: what a group and a device may set, the
/// manifest's format 2, a kiosk's selection, and publishing them.
@Suite struct ChannelGroupsTests {
    static func blob(_ text: String) -> ChannelBlob {
        ChannelBlob(sha256: ChannelDigest.sha256(Array(text.utf8)), size: UInt64(text.utf8.count))
    }

    static let base = blob("base picture")
    static let cafe = blob("cafe picture")
    static let lobby = blob("lobby picture")

    /// A format 2 manifest: the base playlist, groups cafe and lobby, device cafe-1.
    static func manifest(version: UInt64 = 3, lobbyPicture: ChannelBlob = lobby) throws -> ChannelManifest {
        let configuration = try ConfigLoader.parse("slides: [\(base.reference)]\ninterval: 7s\ntouch: {resumeDelay: 9s}", blobReferences: true)
        let groups = [
            "cafe": try GroupPlaylist.parse("slides: [\(cafe.reference)]\ntransition: {type: crossfade}", blobReferences: true),
            "lobby": try GroupPlaylist.parse("slides: [\(lobbyPicture.reference), \(base.reference)]\ninterval: 20s", blobReferences: true),
        ]
        let devices = try DeviceValues.parseDevices("cafe-1: {output: {rotation: 90}, touch: {calibration: [0, 1, 0, -1, 0, 1]}}")
        let bytes = ChannelManifest.document(version: version, published: publishedAt, expires: weekLater, epoch: nil, configuration: configuration,
                                             blobs: [base, cafe, lobbyPicture], groups: groups, devices: devices)
        return try ChannelManifest.parse(bytes)
    }

    // MARK: Groups

    @Test func aGroupSetsOnlyPlaylistKeysAndSaysWhichNot() throws {
        let error = #expect(throws: ConfigError.self) {
            try GroupPlaylist.parse("slides: [a.jpg]\ntouch: {resumeDelay: 1s}\noutput: {rotation: 90}\ninterval: nope", source: "cafe.yaml")
        }
        let lines = error?.description.split(separator: "\n").map(String.init) ?? []
        #expect(lines.contains { $0.hasPrefix("cafe.yaml: output: a group may not set output") })
        #expect(lines.contains { $0.hasPrefix("cafe.yaml: touch: a group may not set touch") })
        #expect(lines.contains { $0.hasPrefix("cafe.yaml: interval: ") })
    }

    @Test func aGroupReplacesTheKeysItSetsWholeAndThePlaylistAsOne() throws {
        var base = try ConfigLoader.parse("slides: [a.jpg]\ninterval: 7s\ntransition: {type: crossfade, duration: 2s}\ntouch: {resumeDelay: 9s}")
        base.output.rotation = 180
        let group = try GroupPlaylist.parse("""
            schedule:
              timezone: UTC
              playlists: {day: [b.jpg]}
              otherwise: day
            transition: {type: slide}
            """)
        let merged = group.applied(to: base)
        #expect(merged.slides.isEmpty)  // the playlist is the group's: its schedule, and no slides
        #expect(merged.schedule == group.configuration.schedule)
        #expect(merged.transition == TransitionStyle(kind: .slide))  // whole: the base's 2s does not stay
        #expect(merged.interval == .seconds(7))
        #expect(merged.touch.resumeDelay == .seconds(9))
        #expect(merged.output.rotation == 180)
    }

    // MARK: Devices

    @Test func deviceValuesAreReadAsTheConfigurationHasThem() throws {
        let devices = try DeviceValues.parseDevices("""
            lobby-left:
              output: {rotation: 270}
              touch:
                devices: [{match: "0eef:0001", calibration: [1, 0, 0, 0, 1, 0]}]
            lobby-right: {touch: {calibration: [0, 1, 0, -1, 0, 1]}}
            """)
        #expect(devices["lobby-left"] == DeviceValues(
            rotation: 270, touchDevices: [TouchDeviceCalibration(pattern: InputDevicePattern("0eef:0001"), matrix: [1, 0, 0, 0, 1, 0])]))
        #expect(devices["lobby-right"] == DeviceValues(calibration: [0, 1, 0, -1, 0, 1]))
        #expect(devices["lobby-left"]?.setKeyPaths == ["output.rotation", "touch.devices"])
        var configuration = KioskConfiguration()
        configuration.touch.devices = [TouchDeviceCalibration(pattern: InputDevicePattern("x"), matrix: [2, 0, 0, 0, 2, 0])]
        let applied = devices["lobby-right"]!.applied(to: configuration)
        #expect(applied.touch.calibration == [0, 1, 0, -1, 0, 1])
        #expect(applied.touch.devices == configuration.touch.devices)  // not set: kept
        #expect(applied.output.rotation == 0)
    }

    @Test func deviceErrorsNameTheFileAndTheKeyPath() throws {
        let error = #expect(throws: ConfigError.self) {
            try DeviceValues.parseDevices("""
                left: {output: {rotation: 45}}
                right: {output: {mode: 1920x1080}, slides: [a.jpg]}
                "": {output: {rotation: 90}}
                top: 3
                """, source: "devices.yaml")
        }
        let lines = Set(error?.description.split(separator: "\n").map(String.init) ?? [])
        #expect(lines.contains("devices.yaml: left.output.rotation: must be 0, 90, 180 or 270, found 45"))
        #expect(lines.contains("devices.yaml: right.output.mode: a device may set only output.rotation, touch.calibration, touch.devices"))
        #expect(lines.contains("devices.yaml: right.slides: a device may set only output.rotation, touch.calibration, touch.devices"))
        #expect(lines.contains("devices.yaml: : a device id must be one line of 1 to 200 characters") || lines.contains("devices.yaml: a device id must be one line of 1 to 200 characters"))
        #expect(lines.contains("devices.yaml: top: must be a mapping such as {output: {rotation: 90}}"))
    }

    // MARK: The manifest

    @Test func groupsAndDevicesReadBackEqualInFormat2() throws {
        let manifest = try Self.manifest()
        #expect(manifest.groups.keys.sorted() == ["cafe", "lobby"])
        #expect(manifest.groups["cafe"]?.sets == ["slides", "transition"])
        #expect(manifest.groups["lobby"]?.configuration.interval == .seconds(20))
        #expect(manifest.devices["cafe-1"]?.rotation == 90)
        let text = String(decoding: ChannelManifest.document(
            version: 3, published: publishedAt, expires: weekLater, epoch: nil, configuration: manifest.configuration, blobs: [Self.base],
            groups: manifest.groups, devices: manifest.devices), as: UTF8.self)
        #expect(text.contains("\"format\" : 2"))
        // Without groups and devices the publisher writes format 1, which older kiosks read.
        #expect(String(decoding: manifestBytes(), as: UTF8.self).contains("\"format\" : 1"))
    }

    @Test func aGroupsPicturesMustBeListedBlobsAndItsKeysAllowed() throws {
        let missing = Self.blob("not listed")
        let json = """
            {"format": 2, "version": 1, "published": "2026-03-28T12:00:00Z", "configuration": {"slides": []},
             "blobs": {},
             "groups": {"cafe": {"slides": ["\(missing.reference)"], "output": {"rotation": 90}}, "": {"slides": []}},
             "devices": {"d1": {"output": {"rotation": 45}}}}
            """
        let error = #expect(throws: ChannelManifestError.self) { try ChannelManifest.parse(Array(json.utf8)) }
        let lines = Set(error?.lines ?? [])
        #expect(lines.contains { $0.hasPrefix("channel.json: groups.cafe.output: a group may not set output") })
        #expect(lines.contains("channel.json: groups.: a group name must be one line of 1 to 200 characters"))
        #expect(lines.contains("channel.json: devices.d1.output.rotation: must be 0, 90, 180 or 270, found 45"))
        let allowed = json.replacingOccurrences(of: #", "output": {"rotation": 90}"#, with: "")
        let pictures = #expect(throws: ChannelManifestError.self) { try ChannelManifest.parse(Array(allowed.utf8)) }
        #expect(pictures?.lines.contains("channel.json: groups.cafe.slides[0].path: names blob \(missing.sha256), which blobs does not list") == true)
    }

    @Test func format1KeepsGroupsReservedAndHasNoDevices() throws {
        let withDevices = String(decoding: manifestBytes(), as: UTF8.self)
            .replacingOccurrences(of: "\"format\" : 1", with: "\"format\" : 1, \"devices\": {}")
        let error = #expect(throws: ChannelManifestError.self) { try ChannelManifest.parse(Array(withDevices.utf8)) }
        #expect(error?.issues.first?.path == "devices")
        let withGroups = String(decoding: manifestBytes(), as: UTF8.self)
            .replacingOccurrences(of: "\"format\" : 1", with: #""format" : 1, "groups": {"lobby": {"x": 1}}"#)
        let parsed = try ChannelManifest.parse(Array(withGroups.utf8))
        #expect(parsed.groups.isEmpty)
        #expect(try parsed.selecting(group: "lobby", device: nil).configuration == parsed.configuration)
    }

    @Test func anExistingFormat1ManifestStillVerifies() throws {
        let signer = key()
        let bytes = manifestBytes()
        let verified = try ChannelVerifier(trustedKeys: [signer.publicKey])
            .verify(manifest: bytes, signature: try sign(bytes, with: signer), appliedVersion: nil, now: publishedAt)
        #expect(verified.manifest.version == 7)
        #expect(verified.manifest.groups.isEmpty && verified.manifest.devices.isEmpty)
    }

    // MARK: Selection

    @Test func aKioskGetsTheBaseThenItsGroupThenItsDevice() throws {
        let manifest = try Self.manifest()
        let none = try manifest.selecting(group: nil, device: nil)
        #expect(none.configuration == manifest.configuration)
        #expect(none.picturesToShow == [Self.base])

        let cafe = try manifest.selecting(group: "cafe", device: "cafe-1")
        #expect(cafe.configuration.slides.map(\.path) == [Self.cafe.reference])
        #expect(cafe.configuration.transition.kind == .crossfade)
        #expect(cafe.configuration.interval == .seconds(7))  // the base's
        #expect(cafe.configuration.touch.resumeDelay == .seconds(9))
        #expect(cafe.configuration.output.rotation == 90)
        #expect(cafe.configuration.touch.calibration == [0, 1, 0, -1, 0, 1])
        // Only the group's pictures are downloaded; every group's are listed.
        #expect(cafe.picturesToShow == [Self.cafe])
        #expect(cafe.blobs.count == 3)
        #expect(cafe.configurationWithAssets.slides.map(\.path) == ["asset:" + Self.cafe.sha256])

        let lobby = try manifest.selecting(group: "lobby", device: "somebody-else")
        #expect(lobby.configuration.interval == .seconds(20))
        #expect(lobby.configuration.output.rotation == 0)
        #expect(lobby.picturesToShow == [Self.lobby, Self.base])
        #expect(try manifest.selecting(group: nil, device: "cafe-1").configuration.slides == manifest.configuration.slides)
    }

    @Test func aGroupTheManifestLacksIsRefusedNamingIt() throws {
        let error = #expect(throws: ChannelManifestError.self) { try Self.manifest().selecting(group: "kitchen", device: nil) }
        #expect(error?.description == #"channel.json: groups: has no group "kitchen" (this kiosk's channel.group); it has "cafe", "lobby""#)
        // A channel that serves no groups serves its playlist to every kiosk.
        let plain = try ChannelManifest.parse(manifestBytes())
        #expect(try plain.selecting(group: "kitchen", device: nil).configuration == plain.configuration)
    }

    @Test func anotherGroupsChangeLeavesTheSelectionAsItWas() throws {
        let before = try Self.manifest(version: 3).selecting(group: "cafe", device: "cafe-1")
        let after = try Self.manifest(version: 4, lobbyPicture: Self.blob("new lobby picture")).selecting(group: "cafe", device: "cafe-1")
        #expect(after.configurationWithAssets == before.configurationWithAssets)
        #expect(after.picturesToShow == before.picturesToShow)
    }
}

/// `vitrine channel publish --group NAME=FILE --devices FILE`.
@Suite struct ChannelGroupPublishTests {
    let scratch = Scratch("publish-groups")
    let signer = key("publisher")

    init() {
        scratch.write("site/pictures/a.jpg", "picture A")
        scratch.write("site/cafe/c.jpg", "picture C")
        scratch.write("site/vitrine.yaml", "slides: [pictures/a.jpg]\ninterval: 6s\n")
        scratch.write("site/cafe/cafe.yaml", "slides: [c.jpg, ../pictures/a.jpg]\ninterval: 12s\n")
        scratch.write("site/devices.yaml", "cafe-1: {output: {rotation: 90}}\n")
    }

    func publish(groups: [(name: String, file: String)], devices: String? = "site/devices.yaml") throws(ChannelPublishError) -> ChannelPublisher.Outcome {
        try ChannelPublisher.publish(
            ChannelPublisher.Request(configurationFile: scratch.file("site/vitrine.yaml"), directory: scratch.file("channel"),
                                     signing: .key(signer, comment: "verify with publisher.pub"),
                                     groupFiles: groups.map { ($0.name, scratch.file($0.file)) }, devicesFile: devices.map(scratch.file)),
            now: publishedAt)
    }

    @Test func groupsAndDevicesArePublishedWithEveryPictureAsABlob() throws {
        let first = try publish(groups: [("cafe", "site/cafe/cafe.yaml")])
        #expect(first.blobsWritten.count == 2)  // a.jpg (the base's and the cafe's) once, c.jpg
        let manifest = try ChannelVerifier(trustedKeys: [signer.publicKey])
            .verify(manifest: scratch.read("channel/channel.json"), signature: scratch.read("channel/channel.json.sig"),
                    appliedVersion: nil, now: publishedAt).manifest
        let a = ChannelDigest.sha256(Array("picture A".utf8)), c = ChannelDigest.sha256(Array("picture C".utf8))
        #expect(manifest.groups["cafe"]?.configuration.slides.map(\.path) == ["blob:" + c, "blob:" + a])
        #expect(manifest.groups["cafe"]?.sets == ["slides", "interval"])
        #expect(manifest.devices == ["cafe-1": DeviceValues(rotation: 90)])
        #expect(Set(manifest.blobs.keys) == [a, c])

        // Unchanged pictures are not written again.
        let second = try publish(groups: [("cafe", "site/cafe/cafe.yaml")])
        #expect(second.version == 2)
        #expect(second.blobsWritten.isEmpty)
        #expect(second.blobsKept.count == 2)
    }

    /// Why publishing fails, or nil if it does not.
    func failure(groups: [(name: String, file: String)], devices: String? = nil) -> String? {
        do {
            _ = try publish(groups: groups, devices: devices)
            return nil
        } catch {
            return error.description
        }
    }

    @Test func badGroupAndDeviceFilesAreNamedWithTheKeyPath() throws {
        scratch.write("site/bad.yaml", "slides: [missing.jpg]\ndecode: {maxPixels: 5}\n")
        #expect(failure(groups: [("cafe", "site/bad.yaml")])?.contains(scratch.file("site/bad.yaml") + ": decode: a group may not set decode") == true)
        scratch.write("site/bad-devices.yaml", "cafe-1: {output: {rotation: 91}}\n")
        #expect(failure(groups: [], devices: "site/bad-devices.yaml")
            == scratch.file("site/bad-devices.yaml") + ": cafe-1.output.rotation: must be 0, 90, 180 or 270, found 91")
        scratch.write("site/missing-picture.yaml", "slides: [missing.jpg]\n")
        #expect(failure(groups: [("cafe", "site/missing-picture.yaml")])?.hasPrefix(scratch.file("site/missing-picture.yaml") + ": slides[0].path") == true)
        #expect(failure(groups: [("cafe", "site/cafe/cafe.yaml"), ("cafe", "site/cafe/cafe.yaml")])?.contains("group \"cafe\" is given twice") == true)
        #expect(!FileManager.default.fileExists(atPath: scratch.file("channel/channel.json")))
    }
}

/// `plays.upload` in the manifest: the URL a channel's kiosks POST proof of play to.
@Suite struct ChannelPlaysUploadTests {
    static let sha = ChannelDigest.sha256(Array("picture".utf8))

    static func document(playsUpload: String?) throws -> [UInt8] {
        let blob = try #require(ChannelManifest.parse(manifestBytes()).blobs.first?.value)
        var configuration = KioskConfiguration()
        configuration.slides = [SlideConfiguration(path: "blob:" + sha)]
        return ChannelManifest.document(version: 4, published: WallInstant(secondsSinceEpoch: 1_800_000_000), expires: WallInstant(secondsSinceEpoch: 1_800_604_800),
                                        epoch: nil, configuration: configuration, blobs: [blob], playsUpload: playsUpload)
    }

    @Test func itIsCarriedInFormat2AndReadBack() throws {
        let bytes = try Self.document(playsUpload: "https://reports.example/plays")
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text.contains("\"format\" : 2") && text.contains("\"upload\" : \"https://reports.example/plays\""), "\(text)")
        #expect(try ChannelManifest.parse(bytes).playsUpload == "https://reports.example/plays")
        // Without it, format 1 as before.
        let plain = try Self.document(playsUpload: nil)
        #expect(String(decoding: plain, as: UTF8.self).contains("\"format\" : 1"))
        #expect(try ChannelManifest.parse(plain).playsUpload == nil)
    }

    @Test func aBadURLOrAFormat1ManifestWithItIsRefusedNamingTheField() throws {
        for (replace, with, issue) in [
            ("https://reports.example/plays", "ftp://reports.example/plays", "plays.upload: must be an http:// or https:// URL"),
            ("\"format\" : 2", "\"format\" : 1", "plays: unknown field (format 1 has"),
        ] {
            let text = String(decoding: try Self.document(playsUpload: "https://reports.example/plays"), as: UTF8.self)
                .replacingOccurrences(of: replace, with: with)
            do {
                _ = try ChannelManifest.parse(Array(text.utf8))
                Issue.record("accepted with \(with)")
            } catch {
                #expect(error.lines.contains { $0.contains(issue) }, "\(error.lines)")
            }
        }
    }

    @Test func theFollowRecordKeepsIt() throws {
        let applied = AppliedChannelVersion(version: 4, published: WallInstant(secondsSinceEpoch: 1_800_000_000), expires: WallInstant(secondsSinceEpoch: 1_800_604_800),
                                            appliedAt: WallInstant(secondsSinceEpoch: 1_800_000_010), manifestETag: "\"a\"",
                                            signatureETag: nil, configurationVersion: "c1", playsUpload: "https://reports.example/plays")
        let record = ChannelFollowRecord(url: "https://origin.example/lobby/", applied: applied)
        #expect(try ChannelFollowRecord.parse(record.json).get() == record)
        // A record written before the field existed still reads.
        var older = applied
        older.playsUpload = nil
        let text = String(decoding: ChannelFollowRecord(url: record.url, applied: older).json, as: UTF8.self)
        #expect(!text.contains("playsUpload"))
        #expect(try ChannelFollowRecord.parse(Array(text.utf8)).get().applied.playsUpload == nil)
    }
}
