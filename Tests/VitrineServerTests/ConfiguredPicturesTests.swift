import Foundation
import Hummingbird
import HummingbirdTesting
import ServerTestSupport
import Testing
import VitrineConfig
import VitrineCore
import VitrineRuntime
@testable import VitrineURLImages

/// The pictures a configuration names, checked before they reach a screen:
/// `vitrine check-config` decodes each, a push reads each one's header.
@Suite("Configured pictures")
struct ConfiguredPicturesTests {
    /// ../shared/fixtures/jpeg beside the repository: real JPEG variants.
    static let fixtures: String = {
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return repository.deletingLastPathComponent().appendingPathComponent("shared/fixtures/jpeg").path
    }()

    static func configuration(_ yaml: String, in directory: String) throws -> KioskConfiguration {
        try ConfigLoader.parse(yaml, baseDirectory: directory)
    }

    @Test("every real JPEG fixture decodes, and the 12-bit one is refused with its reason")
    func realFixtures() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.fixtures).filter { $0.hasSuffix(".jpg") }.sorted()
        #expect(names.count >= 14)
        let configuration = try Self.configuration("slides: [\(names.joined(separator: ", "))]", in: Self.fixtures)
        let twelveBit = try #require(names.firstIndex(of: "ljt_monkey12_12bit.jpg"))
        let expected = [ConfigIssue(path: "slides[\(twelveBit)].path",
                                    message: "ljt_monkey12_12bit.jpg: cannot be decoded: unsupported JPEG: 12-bit samples; only 8-bit JPEG is supported")]
        #expect(ConfiguredPictures.issues(in: configuration, depth: .decode, pictures: InProcessPictureInspector()) == expected)
        // The frame header says the samples are 12-bit: a push finds it too.
        #expect(ConfiguredPictures.issues(in: configuration, depth: .header, pictures: InProcessPictureInspector()) == expected)
    }

    @Test("a text file named as a slide, a damaged JPEG and a picture over decode.maxPixels are each a problem line")
    func badPictures() throws {
        let directory = NSTemporaryDirectory() + "vitrine-pictures-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let good = try #require(FileManager.default.contents(atPath: Self.fixtures + "/ijg_testorig_baseline420.jpg"))
        try good.write(to: URL(fileURLWithPath: directory + "/good.jpg"))
        // The headers and the first half of the scan: the rest of the file lost in a copy.
        try good.prefix(good.count / 2).write(to: URL(fileURLWithPath: directory + "/truncated.jpg"))
        try Data("Opening hours: 9 to 5\n".utf8).write(to: URL(fileURLWithPath: directory + "/notes.jpg"))
        try Data().write(to: URL(fileURLWithPath: directory + "/empty.jpg"))
        let yaml = "slides: [good.jpg, truncated.jpg, notes.jpg, empty.jpg, missing.jpg, good.jpg]\nplaceholder: notes.jpg\n"
        let configuration = try Self.configuration(yaml, in: directory)

        let decoded = ConfiguredPictures.issues(in: configuration, depth: .decode, pictures: InProcessPictureInspector())
        #expect(decoded.map(\.path) == ["slides[1].path", "slides[2].path", "slides[3].path", "placeholder"], "\(decoded)")
        #expect(decoded[0].message.hasPrefix("truncated.jpg: cannot be decoded: "), "\(decoded[0].message)")
        #expect(decoded[1].message == "notes.jpg: not a JPEG, PNG, WebP, GIF or HEIF picture (it starts with bytes 4F 70 65 6E, which looks like text)")
        #expect(decoded[2].message == "empty.jpg: not a JPEG, PNG, WebP, GIF or HEIF picture (it starts with nothing: the body is empty)")
        #expect(decoded[3].message == decoded[1].message)

        // The header check is for every push: the truncated file's headers are whole.
        let headers = ConfiguredPictures.issues(in: configuration, depth: .header, pictures: InProcessPictureInspector())
        #expect(headers.map(\.path) == ["slides[2].path", "slides[3].path", "placeholder"], "\(headers)")

        var limited = configuration
        limited.decode.maxPixels = 10_000
        for depth in [ConfiguredPictures.Depth.header, .decode] {
            let over = ConfiguredPictures.issues(in: limited, depth: depth, pictures: InProcessPictureInspector()).filter { $0.message.hasPrefix("good.jpg") }
            let message = "good.jpg: picture is 227x149 (33823 pixels), over the limit of 10000 pixels (decode.maxPixels)"
            #expect(over == [ConfigIssue(path: "slides[0].path", message: message), ConfigIssue(path: "slides[5].path", message: message)],
                    "\(depth)")
        }
    }

    @Test("headers longer than the header check reads (20 APP2 segments, 1.3 MB) are not called damaged; the picture decodes")
    func headersPastTheFirstMebibyte() throws {
        let directory = NSTemporaryDirectory() + "vitrine-pictures-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let good = [UInt8](try #require(FileManager.default.contents(atPath: Self.fixtures + "/ijg_testorig_baseline420.jpg")))
        // APP2 segments of 65,000 bytes each (an ICC profile's chunks are as large), after SOI.
        let segment: [UInt8] = [0xFF, 0xE2, UInt8(65_002 >> 8), UInt8(65_002 & 0xFF)] + [UInt8](repeating: 0x41, count: 65_000)
        let padded = Array(good.prefix(2)) + Array([[UInt8]](repeating: segment, count: 20).joined()) + Array(good.dropFirst(2))
        #expect(padded.count > ConfiguredPictures.headerBytes)
        try Data(padded).write(to: URL(fileURLWithPath: directory + "/icc.jpg"))
        let configuration = try Self.configuration("slides: [icc.jpg]", in: directory)
        #expect(ConfiguredPictures.issues(in: configuration, depth: .header, pictures: InProcessPictureInspector()).isEmpty)
        #expect(ConfiguredPictures.issues(in: configuration, depth: .decode, pictures: InProcessPictureInspector()).isEmpty)
        // Cut inside its headers, it is damaged for both.
        try Data(padded.prefix(300_000)).write(to: URL(fileURLWithPath: directory + "/icc.jpg"))
        #expect(ConfiguredPictures.issues(in: configuration, depth: .header, pictures: InProcessPictureInspector()).map(\.path) == ["slides[0].path"])
        #expect(ConfiguredPictures.issues(in: configuration, depth: .decode, pictures: InProcessPictureInspector()).map(\.path) == ["slides[0].path"])
    }

    @Test("a push naming a text file as a slide is refused with its key path, and nothing changes")
    func pushRefusesWhatCannotBeShown() async throws {
        let harness = try ServerHarness()
        defer { harness.close() }
        try Data("not a picture\n".utf8).write(to: URL(fileURLWithPath: harness.directory + "/notes.jpg"))
        let before = harness.store.current.version
        try await harness.application().test(.router) { client in
            try await client.execute(uri: "/api/v1/config", method: .put, headers: authorized([.contentType: "application/yaml"]),
                                     body: body("slides: [red.jpg, notes.jpg]\ninterval: 10m\n")) { response in
                #expect(response.status.code == 422, "\(String(buffer: response.body))")
                let answer = json(response.body)
                #expect(answer["error"] as? String == "the configuration names 1 picture that cannot be shown")
                let issues = (answer["issues"] as? [[String: String]]) ?? []
                #expect(issues.map { $0["path"] } == ["slides[1].path"])
                #expect(issues.first?["message"]?.hasPrefix("notes.jpg: not a JPEG, PNG, WebP, GIF or HEIF picture") == true, "\(issues)")
            }
            // The same push with real pictures is taken.
            try await client.execute(uri: "/api/v1/config", method: .put, headers: authorized([.contentType: "application/yaml"]),
                                     body: body("slides: [red.jpg, blue.jpg]\ninterval: 10m\n")) { response in
                #expect(response.status == .ok, "\(String(buffer: response.body))")
            }
        }
        #expect(harness.store.current.version != before)
        #expect(harness.store.current.configuration.slides.map(\.path) == ["red.jpg", "blue.jpg"])
    }
}
