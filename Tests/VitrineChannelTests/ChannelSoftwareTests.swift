import Testing
import VitrineChannel
import VitrineConfig
import VitrineCore

/// Format 3's `software`: the package version a channel's kiosks run.
@Suite struct ChannelSoftwareTests {
    func manifest(format: Int = 3, software: String) -> [UInt8] {
        Array("""
            {"format": \(format), "version": 4, "published": "2026-03-28T12:00:00Z", "expires": "2026-04-04T12:00:00Z",
             "configuration": {"slides": [{"path": "https://example.com/a.jpg"}]}, "blobs": {},
             "software": \(software)}
            """.utf8)
    }

    func issues(_ bytes: [UInt8]) -> [String] {
        do {
            _ = try ChannelManifest.parse(bytes)
            return []
        } catch {
            return error.issues.map(\.description)
        }
    }

    @Test func readsTheVersionGroupsAndFloor() throws {
        let parsed = try ChannelManifest.parse(manifest(software: #"{"version": "1.2.0", "groups": {"canary": "1.3.0~rc1"}, "floor": "1:1.1.4-2"}"#))
        let software = try #require(parsed.software)
        #expect(software == ChannelSoftware(version: "1.2.0", groups: ["canary": "1.3.0~rc1"], floor: "1:1.1.4-2"))
        #expect(software.version(forGroup: "canary") == "1.3.0~rc1")
        #expect(software.version(forGroup: "lobby") == "1.2.0")
        #expect(software.version(forGroup: nil) == "1.2.0")
    }

    @Test func eachProblemIsNamedByKeyPath() {
        let found = issues(manifest(software: #"{"groups": {"canary": 13, "": "1.0"}, "floor": "v2", "channel": "x"}"#))
        #expect(found.contains("software.version: is required (the version every kiosk without a group entry runs)"))
        #expect(found.contains("software.groups.canary: must be a Debian package version as a string, such as \"1.2.0\", found a number"))
        #expect(found.contains { $0.hasPrefix("software.groups.: a group name must be one line") })
        #expect(found.contains("software.floor: \"v2\" must start with a digit (after any epoch), as Debian versions do"))
        #expect(found.contains("software.channel: unknown field (software has version, groups and floor)"))
        #expect(issues(manifest(software: #"{"version": "1.0 beta"}"#))
            == ["software.version: \"1.0 beta\" has \" \", which a Debian version cannot contain (letters, digits and . + ~ - only)"])
    }

    @Test func aFormat2ReaderRefusesItRatherThanIgnoreIt() {
        // A format 2 manifest has no software: a publisher that writes one says format 3.
        #expect(issues(manifest(format: 2, software: #"{"version": "1.2.0"}"#)).first?.hasPrefix("software: unknown field (format 2 has") == true)
    }

    @Test func thePublisherWritesFormat3OnlyWithSoftware() throws {
        var configuration = KioskConfiguration()
        configuration.slides = [SlideConfiguration(path: "https://example.com/a.jpg", duration: .seconds(8))]
        let without = ChannelManifest.document(version: 1, published: publishedAt, expires: weekLater, epoch: nil, configuration: configuration, blobs: [])
        #expect(String(decoding: without, as: UTF8.self).contains("\"format\" : 1"))
        let with = ChannelManifest.document(version: 1, published: publishedAt, expires: weekLater, epoch: nil, configuration: configuration,
                                            blobs: [], software: ChannelSoftware(version: "1.2.0", floor: "1.1.0"))
        #expect(String(decoding: with, as: UTF8.self).contains("\"format\" : 3"))
        #expect(try ChannelManifest.parse(with).software == ChannelSoftware(version: "1.2.0", floor: "1.1.0"))
    }

    @Test func aNewVersionKeepsTheSoftwareUnlessToldOtherwise() throws {
        let scratch = Scratch("software")
        let signer = key("publisher")
        scratch.write("site/vitrine.yaml", "slides:\n  - https://example.com/a.jpg\n")
        func publish(_ software: ChannelPublisher.SoftwareChoice) throws -> ChannelSoftware? {
            let outcome = try ChannelPublisher.publish(
                ChannelPublisher.Request(configurationFile: scratch.file("site/vitrine.yaml"), directory: scratch.file("channel"),
                                         signing: .key(signer, comment: "t"), software: software), now: publishedAt)
            return try ChannelManifest.parse(outcome.manifest).software
        }
        #expect(try publish(.keep) == nil)
        #expect(try publish(.set(ChannelSoftware(version: "1.2.0", groups: ["canary": "1.3.0"]))) == ChannelSoftware(version: "1.2.0", groups: ["canary": "1.3.0"]))
        #expect(try publish(.keep) == ChannelSoftware(version: "1.2.0", groups: ["canary": "1.3.0"]))
        #expect(try publish(.remove) == nil)
        #expect(try publish(.keep) == nil)
    }
}
