import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
import VitrineCore
import VitrinePNG
@testable import VitrineAPI

@Suite("API: assets")
struct AssetAPITests {
    @Test func anUploadIsStoredByDigestOnceAndListed() async throws {
        let harness = try ServerHarness()
        defer { harness.close() }
        let picture = try ServerHarness.jpeg(ServerHarness.colors["blue"]!, size: PixelSize(width: 640, height: 360))
        let digest = ContentDigest.sha256(picture)
        try await harness.application().test(.router) { client in
            try await client.execute(uri: "/api/v1/assets?name=beach.jpg", method: .post, headers: authorized(),
                                     body: ByteBuffer(bytes: picture)) { response in
                #expect(response.status == .created)
                let asset = json(response.body)
                #expect(asset["id"] as? String == digest)
                #expect(asset["ref"] as? String == "asset:\(digest)")
                #expect(asset["name"] as? String == "beach.jpg")
                #expect(asset["type"] as? String == "jpeg")
                #expect(asset["width"] as? Int == 640 && asset["height"] as? Int == 360)
                #expect(asset["size"] as? Int == picture.count)
                #expect(asset["inUse"] as? Bool == false)
                #expect(response.headers[.location] == "/api/v1/assets/\(digest)")
            }
            // Twice: the same asset, 200, nothing new on disk.
            try await client.execute(uri: "/api/v1/assets?name=again.jpg", method: .post, headers: authorized(),
                                     body: ByteBuffer(bytes: picture)) { response in
                #expect(response.status == .ok)
                #expect(json(response.body)["name"] as? String == "beach.jpg")
            }
            let files = try FileManager.default.contentsOfDirectory(atPath: harness.store.assets.directory).sorted()
            #expect(files == [digest, digest + ".json"])
            try await client.execute(uri: "/api/v1/assets", method: .get, headers: authorized()) { response in
                let assets = json(response.body)["assets"] as? [[String: Any]] ?? []
                #expect(assets.compactMap { $0["id"] as? String } == [digest])
            }
            try await client.execute(uri: "/api/v1/assets/\(digest)", method: .get, headers: authorized()) { response in
                #expect(response.headers[.contentType] == "image/jpeg")
                #expect(Array(response.body.readableBytesView) == picture)
            }
            try await client.execute(uri: "/api/v1/assets/\(digest)/thumbnail", method: .get, headers: authorized()) { response in
                #expect(response.headers[.contentType] == "image/png")
                let thumbnail = try PNGCodec.decode(Array(response.body.readableBytesView))
                #expect(thumbnail.size == PixelSize(width: 320, height: 180))
            }
        }
    }

    @Test func aPNGIsAcceptedAndCanBeAShownSlide() async throws {
        let harness = try ServerHarness()
        defer { harness.close() }
        let png = try PNGCodec.encode(PixelImage(size: PixelSize(width: 40, height: 30), fill: ServerHarness.colors["green"]!))
        try await harness.application().test(.router) { client in
            let ref = try await client.execute(uri: "/api/v1/assets", method: .post, headers: authorized(), body: ByteBuffer(bytes: png)) {
                #expect($0.status == .created)
                #expect(json($0.body)["type"] as? String == "png")
                return json($0.body)["ref"] as? String ?? ""
            }
            try await client.execute(uri: "/api/v1/config", method: .put, headers: authorized([.contentType: "application/json"]),
                                     body: body(#"{"slides": ["\#(ref)"], "autoplay": false}"#)) { #expect($0.status == .ok) }
            #expect(await harness.eventually { harness.api.link.status.slideCount == 1 })
            let centre = try await client.execute(uri: "/api/v1/screenshot", method: .get, headers: authorized()) { try centreColour(ofPNG: $0.body) }
            #expect(near(centre, ServerHarness.colors["green"]!, tolerance: 2))
        }
    }

    /// Non-pictures 415, damaged pictures 422 with the decoder's reason, bad names 422.
    @Test func badUploadsAreRefusedWithTheirReason() async throws {
        let harness = try ServerHarness()
        defer { harness.close() }
        let picture = try ServerHarness.jpeg(ServerHarness.colors["red"]!)
        let cases: [(String, [UInt8], HTTPResponse.Status, String)] = [
            ("notes.txt", Array("hello, this is text".utf8), .unsupportedMediaType,
             "notes.txt is not a JPEG, PNG, WebP, GIF or HEIF picture (it starts with bytes 68 65 6C 6C, which looks like text); upload a JPEG, PNG, WebP, GIF or HEIF"),
            ("empty.jpg", [], .unsupportedMediaType, "empty.jpg is not a JPEG, PNG, WebP, GIF or HEIF picture (it starts with nothing: the body is empty); upload a JPEG, PNG, WebP, GIF or HEIF"),
            ("cut.jpg", Array(picture.prefix(picture.count / 2)), .unprocessableContent,
             "cut.jpg cannot be decoded: truncated JPEG data"),
            ("fake.png", [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 1, 2, 3], .unprocessableContent, "fake.png cannot be decoded: PNG:"),
        ]
        try await harness.application().test(.router) { client in
            for (name, bytes, status, message) in cases {
                try await client.execute(uri: "/api/v1/assets?name=\(name)", method: .post, headers: authorized(), body: ByteBuffer(bytes: bytes)) { response in
                    #expect(response.status == status, "\(name)")
                    #expect((json(response.body)["error"] as? String)?.hasPrefix(message) == true, "\(name): \(String(buffer: response.body))")
                }
            }
            for name in ["../../etc/passwd", "a/b.jpg", "..", "a\\\\b.jpg", String(repeating: "n", count: 256)] {
                let encoded = name.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
                try await client.execute(uri: "/api/v1/assets?name=\(encoded)", method: .post, headers: authorized(), body: ByteBuffer(bytes: picture)) { response in
                    #expect(response.status == .unprocessableContent, "\(name)")
                    #expect((json(response.body)["error"] as? String)?.hasPrefix("name must be a plain file name") == true)
                }
            }
        }
        #expect(harness.store.assets.list().isEmpty, "nothing refused was stored")
    }

    @Test func anUploadOverTheLimitIs413() async throws {
        let harness = try ServerHarness(yaml: ServerHarness.defaultYAML.replacingOccurrences(of: "token:", with: "maxUploadSize: 2KiB, token:"))
        defer { harness.close() }
        let picture = try ServerHarness.jpeg(ServerHarness.colors["red"]!, size: PixelSize(width: 400, height: 300))
        #expect(picture.count > 2048)
        try await harness.application().test(.router) { client in
            try await client.execute(uri: "/api/v1/assets", method: .post, headers: authorized(), body: ByteBuffer(bytes: picture)) { response in
                #expect(response.status == .contentTooLarge)
                #expect((json(response.body)["error"] as? String)?.contains("the limit (api.maxUploadSize) is 2048") == true
                        || (json(response.body)["error"] as? String)?.contains("limit (api.maxUploadSize) of 2048 bytes") == true)
            }
        }
    }

    @Test func deletingAnAssetInUseIs409AndOtherwiseRemovesIt() async throws {
        let harness = try ServerHarness()
        defer { harness.close() }
        let picture = try ServerHarness.jpeg(ServerHarness.colors["blue"]!)
        let id = ContentDigest.sha256(picture)
        try await harness.application().test(.router) { client in
            try await client.execute(uri: "/api/v1/assets", method: .post, headers: authorized(), body: ByteBuffer(bytes: picture)) { _ in }
            try await client.execute(uri: "/api/v1/config", method: .put, headers: authorized([.contentType: "application/yaml"]),
                                     body: body("slides: [\"asset:\(id)\"]")) { #expect($0.status == .ok) }
            try await client.execute(uri: "/api/v1/assets/\(id)", method: .delete, headers: authorized()) { response in
                #expect(response.status == .conflict)
                #expect((json(response.body)["error"] as? String)?.hasPrefix("asset \(id) is in use by the current configuration") == true)
            }
            // Still the rollback target after another push: still in use.
            try await client.execute(uri: "/api/v1/config", method: .put, headers: authorized([.contentType: "application/yaml"]),
                                     body: body("slides: [red.jpg]")) { #expect($0.status == .ok) }
            try await client.execute(uri: "/api/v1/assets/\(id)", method: .delete, headers: authorized()) { response in
                #expect((json(response.body)["error"] as? String)?.hasPrefix("asset \(id) is in use by the previous configuration") == true)
            }
            try await client.execute(uri: "/api/v1/config", method: .put, headers: authorized([.contentType: "application/yaml"]),
                                     body: body("slides: [green.jpg]")) { #expect($0.status == .ok) }
            try await client.execute(uri: "/api/v1/assets/\(id)", method: .delete, headers: authorized()) { #expect($0.status == .noContent) }
            try await client.execute(uri: "/api/v1/assets/\(id)", method: .delete, headers: authorized()) { #expect($0.status == .notFound) }
            try await client.execute(uri: "/api/v1/assets/..%2Fconfig.json", method: .delete, headers: authorized()) { #expect($0.status == .badRequest) }
            try await client.execute(uri: "/api/v1/assets/\(id.uppercased())", method: .get, headers: authorized()) { #expect($0.status == .badRequest) }
        }
        #expect(FileManager.default.fileExists(atPath: harness.stateDirectory + "/config.json"))
    }

    @Test func slideThumbnailsServeOnlyWhatTheConfigurationNames() async throws {
        let harness = try ServerHarness()
        defer { harness.close() }
        try await harness.application().test(.router) { client in
            try await client.execute(uri: "/api/v1/thumbnail?path=green.jpg", method: .get, headers: authorized()) { response in
                #expect(response.status == .ok)
                let thumbnail = try PNGCodec.decode(Array(response.body.readableBytesView))
                #expect(thumbnail.size == PixelSize(width: 32, height: 24), "never scaled up")
            }
            for path in ["/etc/passwd", "../vitrine.yaml", "blue.jpg", ""] {
                let encoded = path.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
                try await client.execute(uri: "/api/v1/thumbnail?path=\(encoded)", method: .get, headers: authorized()) { response in
                    #expect(response.status == .notFound, "\(path)")
                    #expect((json(response.body)["error"] as? String)?.hasSuffix("is not a slide or the placeholder of the current configuration") == true)
                }
            }
        }
    }
}
