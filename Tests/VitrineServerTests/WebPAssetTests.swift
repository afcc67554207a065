import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
import VitrineConfig
import VitrineCore
import VitrinePNG
@testable import VitrineServer

/// WebP pictures on the server side: uploads, overrides' picture bodies,
/// `vitrine check-config`'s decode and a push's header check.
@Suite("WebP assets and configured pictures")
struct WebPAssetTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("VitrineWebPTests/Fixtures").path

    static func fixture(_ name: String) throws -> [UInt8] {
        [UInt8](try #require(FileManager.default.contents(atPath: fixtures + "/" + name)))
    }

    @Test func aWebPUploadIsStoredServedAndShown() async throws {
        let harness = try ServerHarness()
        defer { harness.close() }
        let webp = try Self.fixture("lossy.webp")
        let digest = ContentDigest.sha256(webp)
        try await harness.application().test(.router) { client in
            // Named .jpg on purpose: the bytes decide.
            let ref = try await client.execute(uri: "/api/v1/assets?name=menu.jpg", method: .post, headers: authorized(),
                                               body: ByteBuffer(bytes: webp)) { response in
                #expect(response.status == .created)
                let asset = json(response.body)
                #expect(asset["type"] as? String == "webp")
                #expect(asset["width"] as? Int == 640 && asset["height"] as? Int == 360)
                #expect(asset["id"] as? String == digest)
                return asset["ref"] as? String ?? ""
            }
            try await client.execute(uri: "/api/v1/assets/\(digest)", method: .get, headers: authorized()) { response in
                #expect(response.headers[.contentType] == "image/webp")
                #expect(Array(response.body.readableBytesView) == webp)
            }
            try await client.execute(uri: "/api/v1/assets/\(digest)/thumbnail", method: .get, headers: authorized()) { response in
                #expect(response.headers[.contentType] == "image/png")
                let thumbnail = try PNGCodec.decode(Array(response.body.readableBytesView))
                #expect(thumbnail.size == PixelSize(width: 320, height: 180))
            }
            try await client.execute(uri: "/api/v1/config", method: .put, headers: authorized([.contentType: "application/json"]),
                                     body: body(#"{"slides": ["\#(ref)"], "autoplay": false}"#)) { #expect($0.status == .ok) }
            #expect(await harness.eventually { harness.remote.control.status.slideCount == 1 })
        }
        #expect(harness.store.assets.asset(digest)?.kind == .webp)
    }

    @Test func damagedAndOversizedWebPUploadsAreRefusedWithTheirReason() async throws {
        let harness = try ServerHarness()
        defer { harness.close() }
        let cases: [(String, [UInt8], HTTPResponse.Status, String)] = [
            ("cut.webp", try Self.fixture("truncated.webp"), .unprocessableContent,
             "cut.webp cannot be decoded: truncated WebP data: the file ends before the picture does"),
            ("bomb.webp", try Self.fixture("bomb-16383.webp"), .conflict,
             "bomb.webp is too large for this kiosk's configuration: picture is 16383x16383 (268.4 megapixels), over the limit of"),
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
        for (name, size) in [("lossy.webp", PixelSize(width: 640, height: 360)), ("lossless.webp", PixelSize(width: 61, height: 37)),
                             ("alpha-lossy.webp", PixelSize(width: 61, height: 37)), ("animated.webp", PixelSize(width: 61, height: 37)),
                             ("exif-right.webp", PixelSize(width: 37, height: 61))] {
            let image = try ImageInspection.inspect(Self.fixture(name), maxPixels: 100_000_000)
            #expect(image == InspectedImage(kind: .webp, size: size), "\(name)")
            #expect(image.contentType == "image/webp")
            #expect(try ImageInspection.uprightSize(of: Self.fixture(name)) == size, "\(name)")
        }
    }

    @Test("check-config decodes WebP pictures; a push reads their headers")
    func configuredWebPs() throws {
        let directory = NSTemporaryDirectory() + "vitrine-webp-pictures-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        for (from, to) in [("lossy.webp", "good.jpg"), ("animated.webp", "moving.webp"), ("truncated.webp", "cut.webp"), ("bomb-16383.webp", "bomb.webp")] {
            try Data(Self.fixture(from)).write(to: URL(fileURLWithPath: directory + "/" + to))
        }
        let configuration = try ConfigLoader.parse("slides: [good.jpg, moving.webp, cut.webp, bomb.webp]\n", baseDirectory: directory)
        let decoded = ConfiguredPictures.issues(in: configuration, depth: .decode)
        #expect(decoded.map(\.path) == ["slides[2].path", "slides[3].path"], "\(decoded)")
        #expect(decoded.first?.message.hasPrefix("cut.webp: cannot be decoded: truncated WebP data: ") == true, "\(decoded)")
        #expect(decoded.last?.message == "bomb.webp: picture is 16383x16383 (268.4 megapixels), over the limit of 100 megapixels (decode.maxPixels)")
        // The headers of the truncated file are whole: only the decode finds it; the bomb's headers give it away.
        let headers = ConfiguredPictures.issues(in: configuration, depth: .header)
        #expect(headers.map(\.path) == ["slides[3].path"], "\(headers)")
        #expect(headers.first?.message == decoded.last?.message)
    }

    @Test func anOverrideTakesAWebPBody() async throws {
        let harness = try OverrideHarness()
        defer { harness.close() }
        let webp = try Self.fixture("lossless.webp")
        try await harness.application().test(.router) { client in
            let (status, answer) = try await OverrideRoutesTests.postPicture(client, webp, query: "?duration=30m&name=alert.webp", type: "image/webp")
            #expect(status == .created, "\(answer)")
            #expect((answer["slides"] as? [[String: Any]])?.map { $0["path"] as? String } == ["asset:\(ContentDigest.sha256(webp))"])
        }
    }
}
