import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
import VitrineConfig
import VitrineCore
import VitrinePNG
@testable import VitrineServer

/// GIF pictures on the server side: uploads, overrides' picture bodies,
/// `vitrine check-config`'s decode and a push's header check.
@Suite("GIF assets and configured pictures")
struct GIFAssetTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("VitrineGIFTests/Fixtures").path

    static func fixture(_ name: String) throws -> [UInt8] {
        [UInt8](try #require(FileManager.default.contents(atPath: fixtures + "/" + name)))
    }

    @Test func aGIFUploadIsStoredServedAndShown() async throws {
        let harness = try ServerHarness()
        defer { harness.close() }
        let gif = try Self.fixture("offset.gif")
        let digest = ContentDigest.sha256(gif)
        try await harness.application().test(.router) { client in
            // Named .png on purpose: the bytes decide.
            let ref = try await client.execute(uri: "/api/v1/assets?name=menu.png", method: .post, headers: authorized(),
                                               body: ByteBuffer(bytes: gif)) { response in
                #expect(response.status == .created)
                let asset = json(response.body)
                #expect(asset["type"] as? String == "gif")
                #expect(asset["width"] as? Int == 81 && asset["height"] as? Int == 57)
                #expect(asset["id"] as? String == digest)
                return asset["ref"] as? String ?? ""
            }
            try await client.execute(uri: "/api/v1/assets/\(digest)", method: .get, headers: authorized()) { response in
                #expect(response.headers[.contentType] == "image/gif")
                #expect(Array(response.body.readableBytesView) == gif)
            }
            try await client.execute(uri: "/api/v1/assets/\(digest)/thumbnail", method: .get, headers: authorized()) { response in
                #expect(response.headers[.contentType] == "image/png")
                let thumbnail = try PNGCodec.decode(Array(response.body.readableBytesView))
                #expect(thumbnail.size == PixelSize(width: 81, height: 57))
            }
            try await client.execute(uri: "/api/v1/config", method: .put, headers: authorized([.contentType: "application/json"]),
                                     body: body(#"{"slides": ["\#(ref)"], "autoplay": false}"#)) { #expect($0.status == .ok) }
            #expect(await harness.eventually { harness.remote.control.status.slideCount == 1 })
        }
        #expect(harness.store.assets.asset(digest)?.kind == .gif)
    }

    @Test func damagedAndOversizedGIFUploadsAreRefusedWithTheirReason() async throws {
        let harness = try ServerHarness()
        defer { harness.close() }
        let cases: [(String, [UInt8], HTTPResponse.Status, String)] = [
            ("cut.gif", try Self.fixture("truncated.gif"), .unprocessableContent,
             "cut.gif cannot be decoded: truncated GIF data: the file ends before the picture does"),
            ("bomb.gif", try Self.fixture("bomb-65535.gif"), .conflict,
             "bomb.gif is too large for this kiosk's configuration: picture is 65535x65535 (4294.8 megapixels), over the limit of"),
        ]
        try await harness.application().test(.router) { client in
            for (name, bytes, status, message) in cases {
                try await client.execute(uri: "/api/v1/assets?name=\(name)", method: .post, headers: authorized(), body: ByteBuffer(bytes: bytes)) { response in
                    #expect(response.status == status, "\(name)")
                    #expect((json(response.body)["error"] as? String)?.hasPrefix(message) == true, "\(name): \(String(buffer: response.body))")
                }
            }
        }
        #expect(harness.store.assets.list().isEmpty)
    }

    @Test func inspectionSniffsAndDecodesEveryKind() throws {
        for (name, size) in [("still.gif", PixelSize(width: 61, height: 37)), ("interlaced.gif", PixelSize(width: 61, height: 37)),
                             ("animated.gif", PixelSize(width: 61, height: 37)), ("transparent.gif", PixelSize(width: 61, height: 37)),
                             ("offset.gif", PixelSize(width: 81, height: 57))] {
            let image = try ImageInspection.inspect(Self.fixture(name), maxPixels: 100_000_000)
            #expect(image == InspectedImage(kind: .gif, size: size), "\(name)")
            #expect(image.contentType == "image/gif")
            #expect(try ImageInspection.uprightSize(of: Self.fixture(name)) == size, "\(name)")
            // A push reads the logical screen descriptor alone.
            #expect(try ImageInspection.uprightSize(of: Array(Self.fixture(name).prefix(10))) == size, "\(name)")
        }
    }

    @Test("check-config decodes GIF pictures; a push reads their headers")
    func configuredGIFs() throws {
        let directory = NSTemporaryDirectory() + "vitrine-gif-pictures-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        for (from, to) in [("still.gif", "good.jpg"), ("animated.gif", "moving.gif"), ("truncated.gif", "cut.gif"), ("bomb-65535.gif", "bomb.gif")] {
            try Data(Self.fixture(from)).write(to: URL(fileURLWithPath: directory + "/" + to))
        }
        let configuration = try ConfigLoader.parse("slides: [good.jpg, moving.gif, cut.gif, bomb.gif]\n", baseDirectory: directory)
        let decoded = ConfiguredPictures.issues(in: configuration, depth: .decode)
        #expect(decoded.map(\.path) == ["slides[2].path", "slides[3].path"], "\(decoded)")
        #expect(decoded.first?.message.hasPrefix("cut.gif: cannot be decoded: truncated GIF data: ") == true, "\(decoded)")
        #expect(decoded.last?.message == "bomb.gif: picture is 65535x65535 (4294.8 megapixels), over the limit of 100 megapixels (decode.maxPixels)")
        // The headers of the truncated file are whole: only the decode finds it; the bomb's headers give it away.
        let headers = ConfiguredPictures.issues(in: configuration, depth: .header)
        #expect(headers.map(\.path) == ["slides[3].path"], "\(headers)")
        #expect(headers.first?.message == decoded.last?.message)
    }

    @Test func anOverrideTakesAGIFBody() async throws {
        let harness = try OverrideHarness()
        defer { harness.close() }
        let gif = try Self.fixture("transparent.gif")
        try await harness.application().test(.router) { client in
            let (status, answer) = try await OverrideRoutesTests.postPicture(client, gif, query: "?duration=30m&name=alert.gif", type: "image/gif")
            #expect(status == .created, "\(answer)")
            #expect((answer["slides"] as? [[String: Any]])?.map { $0["path"] as? String } == ["asset:\(ContentDigest.sha256(gif))"])
        }
    }
}
