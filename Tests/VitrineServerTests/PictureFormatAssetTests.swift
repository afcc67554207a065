import Foundation
import Hummingbird
import HummingbirdTesting
import ServerTestSupport
import Testing
import VitrineConfig
import VitrineCore
import VitrineRuntime
import VitrinePNG
@testable import VitrineAPI
@testable import VitrineURLImages

/// What one picture format beyond JPEG and PNG brings to the server-side tests:
/// its fixtures and what each must give.
struct PictureFormat: Sendable, CustomTestStringConvertible {
    /// As messages name it: "truncated WebP data".
    var name: String
    var kind: InspectedImage.Kind
    var extensionName: String
    /// The test target whose Fixtures/ folder holds its files.
    var fixtureTarget: String
    /// Uploaded (named `uploadName`: the bytes decide), with its size and its thumbnail's.
    var upload: (file: String, uploadName: String, size: PixelSize, thumbnail: PixelSize)
    var truncated: String
    /// A header claiming too many pixels, and its size as messages word it.
    var bomb: (file: String, words: String)
    /// Every file inspection must sniff and measure, upright.
    var pictures: [(file: String, size: PixelSize)]
    /// How many first bytes a push's header check needs, when it is a fixed few.
    var headerBytes: Int?
    /// check-config's still and second (an animation, where the format has them) fixtures, and the override's.
    var still: String
    var second: String
    var overrideBody: String
    /// Whether the truncated fixture's headers are whole, so that only a decode finds it; a
    /// HEIF's boxes say where its data lies, so a push's header check finds one cut short.
    var truncatedHeadersWhole = true
    /// The media type a stored picture is served as.
    var contentType: String { "image/\(extensionName)" }

    var testDescription: String { name }

    func fixture(_ file: String) throws -> [UInt8] {
        let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("\(fixtureTarget)/Fixtures").path
        return [UInt8](try #require(FileManager.default.contents(atPath: directory + "/" + file)))
    }

    static let webp = PictureFormat(
        name: "WebP", kind: .webp, extensionName: "webp", fixtureTarget: "VitrineWebPTests",
        upload: ("lossy.webp", "menu.jpg", PixelSize(width: 640, height: 360), PixelSize(width: 320, height: 180)),
        truncated: "truncated.webp", bomb: ("bomb-16383.webp", "16383x16383 (268.4 megapixels)"),
        pictures: [("lossy.webp", PixelSize(width: 640, height: 360)), ("lossless.webp", PixelSize(width: 61, height: 37)),
                   ("alpha-lossy.webp", PixelSize(width: 61, height: 37)), ("animated.webp", PixelSize(width: 61, height: 37)),
                   ("exif-right.webp", PixelSize(width: 37, height: 61))],
        headerBytes: nil, still: "lossy.webp", second: "animated.webp", overrideBody: "lossless.webp")

    static let gif = PictureFormat(
        name: "GIF", kind: .gif, extensionName: "gif", fixtureTarget: "VitrineGIFTests",
        upload: ("offset.gif", "menu.png", PixelSize(width: 81, height: 57), PixelSize(width: 81, height: 57)),
        truncated: "truncated.gif", bomb: ("bomb-65535.gif", "65535x65535 (4294.8 megapixels)"),
        pictures: [("still.gif", PixelSize(width: 61, height: 37)), ("interlaced.gif", PixelSize(width: 61, height: 37)),
                   ("animated.gif", PixelSize(width: 61, height: 37)), ("transparent.gif", PixelSize(width: 61, height: 37)),
                   ("offset.gif", PixelSize(width: 81, height: 57))],
        // A push reads the logical screen descriptor alone.
        headerBytes: 10, still: "still.gif", second: "animated.gif", overrideBody: "transparent.gif")

    static let heif = PictureFormat(
        name: "HEIF", kind: .heif, extensionName: "heif", fixtureTarget: "VitrineHEIFTests",
        // Turned by irot: stored 97x61, shown 61x97; its EXIF (Orientation 6) is not applied on top.
        upload: ("irot-exif-6.heic", "menu.jpg", PixelSize(width: 61, height: 97), PixelSize(width: 61, height: 97)),
        truncated: "truncated.heic", bomb: ("bomb-20000.heic", "20000x20000 (400 megapixels)"),
        pictures: [("plain.heic", PixelSize(width: 97, height: 61)), ("alpha.heic", PixelSize(width: 97, height: 61)),
                   ("deep-10bit.heic", PixelSize(width: 97, height: 61)), ("grid-2x2.heic", PixelSize(width: 194, height: 122)),
                   ("plain.avif", PixelSize(width: 97, height: 61)), ("exif-6.heic", PixelSize(width: 97, height: 61)),
                   ("irot-exif-6.heic", PixelSize(width: 61, height: 97)), ("irot-imir.heic", PixelSize(width: 61, height: 97))],
        // libheif reads the boxes only from the whole file.
        headerBytes: nil, still: "plain.heic", second: "grid-2x2.heic", overrideBody: "alpha.heic", truncatedHeadersWhole: false)

    static let all = [webp, gif, heif]
}

/// WebP, GIF and HEIF pictures on the server side, each format through the
/// same tests: uploads, overrides' picture bodies, `vitrine check-config`'s
/// decode and a push's header check.
@Suite("WebP, GIF and HEIF assets and configured pictures")
struct PictureFormatAssetTests {
    @Test(arguments: PictureFormat.all)
    func anUploadIsStoredServedAndShown(format: PictureFormat) async throws {
        let harness = try ServerHarness()
        defer { harness.close() }
        let bytes = try format.fixture(format.upload.file)
        let digest = ContentDigest.sha256(bytes)
        try await harness.application().test(.router) { client in
            // Named as another format on purpose: the bytes decide.
            let ref = try await client.execute(uri: "/api/v1/assets?name=\(format.upload.uploadName)", method: .post, headers: authorized(),
                                               body: ByteBuffer(bytes: bytes)) { response in
                #expect(response.status == .created)
                let asset = json(response.body)
                #expect(asset["type"] as? String == format.kind.rawValue)
                #expect(asset["width"] as? Int == format.upload.size.width && asset["height"] as? Int == format.upload.size.height)
                #expect(asset["id"] as? String == digest)
                return asset["ref"] as? String ?? ""
            }
            try await client.execute(uri: "/api/v1/assets/\(digest)", method: .get, headers: authorized()) { response in
                #expect(response.headers[.contentType] == format.contentType)
                #expect(Array(response.body.readableBytesView) == bytes)
            }
            try await client.execute(uri: "/api/v1/assets/\(digest)/thumbnail", method: .get, headers: authorized()) { response in
                #expect(response.headers[.contentType] == "image/png")
                let thumbnail = try PNGCodec.decode(Array(response.body.readableBytesView))
                #expect(thumbnail.size == format.upload.thumbnail)
            }
            try await client.execute(uri: "/api/v1/config", method: .put, headers: authorized([.contentType: "application/json"]),
                                     body: body(#"{"slides": ["\#(ref)"], "autoplay": false}"#)) { #expect($0.status == .ok) }
            #expect(await harness.eventually { harness.api.link.status.slideCount == 1 })
        }
        #expect(harness.store.assets.asset(digest)?.kind == format.kind)
    }

    @Test(arguments: PictureFormat.all)
    func damagedAndOversizedUploadsAreRefusedWithTheirReason(format: PictureFormat) async throws {
        let harness = try ServerHarness()
        defer { harness.close() }
        let cut = "cut.\(format.extensionName)", bomb = "bomb.\(format.extensionName)"
        let cases: [(String, [UInt8], HTTPResponse.Status, String)] = [
            (cut, try format.fixture(format.truncated), .unprocessableContent,
             "\(cut) cannot be decoded: truncated \(format.name) data: the file ends before the picture does"),
            (bomb, try format.fixture(format.bomb.file), .conflict,
             "\(bomb) is too large for this kiosk's configuration: picture is \(format.bomb.words), over the limit of"),
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

    @Test(arguments: PictureFormat.all)
    func inspectionSniffsAndDecodesEveryKind(format: PictureFormat) throws {
        for (name, size) in format.pictures {
            let image = try ImageInspection.inspect(format.fixture(name), maxPixels: 100_000_000)
            #expect(image == InspectedImage(kind: format.kind, size: size), "\(name)")
            #expect(image.contentType == format.contentType)
            #expect(try ImageInspection.uprightSize(of: format.fixture(name)) == size, "\(name)")
            if let headerBytes = format.headerBytes {
                #expect(try ImageInspection.uprightSize(of: Array(format.fixture(name).prefix(headerBytes))) == size, "\(name)")
            }
        }
    }

    @Test("check-config decodes the pictures; a push reads their headers", arguments: PictureFormat.all)
    func configuredPictures(format: PictureFormat) throws {
        let directory = NSTemporaryDirectory() + "vitrine-\(format.extensionName)-pictures-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let ext = format.extensionName
        for (from, to) in [(format.still, "good.jpg"), (format.second, "second.\(ext)"), (format.truncated, "cut.\(ext)"), (format.bomb.file, "bomb.\(ext)")] {
            try Data(format.fixture(from)).write(to: URL(fileURLWithPath: directory + "/" + to))
        }
        let configuration = try ConfigLoader.parse("slides: [good.jpg, second.\(ext), cut.\(ext), bomb.\(ext)]\n", baseDirectory: directory)
        let decoded = ConfiguredPictures.issues(in: configuration, depth: .decode, pictures: InProcessPictureInspector())
        #expect(decoded.map(\.path) == ["slides[2].path", "slides[3].path"], "\(decoded)")
        #expect(decoded.first?.message.hasPrefix("cut.\(ext): cannot be decoded: truncated \(format.name) data: ") == true, "\(decoded)")
        #expect(decoded.last?.message == "bomb.\(ext): picture is \(format.bomb.words), over the limit of 100 megapixels (decode.maxPixels)")
        // The headers of a truncated WebP or GIF are whole: only the decode finds it; a
        // truncated HEIF's boxes name data past its end. The bomb's headers give it away.
        let headers = ConfiguredPictures.issues(in: configuration, depth: .header, pictures: InProcessPictureInspector())
        #expect(headers.map(\.path) == (format.truncatedHeadersWhole ? [] : ["slides[2].path"]) + ["slides[3].path"], "\(headers)")
        #expect(headers.last?.message == decoded.last?.message)
        if !format.truncatedHeadersWhole {
            #expect(headers.first?.message == decoded.first?.message)
        }
    }

    @Test("a push's header check reads a HEIF's boxes when its items' data lies within the part read; else leaves it to the decode")
    func aLongHEIFAtAPush() throws {
        let limit = 100_000_000
        let words = "picture is 20000x20000 (400 megapixels), over the limit of 100 megapixels (decode.maxPixels)"
        // Past the items' data (a top-level `free` box after the mdat), the rest of the file does not matter.
        let bomb = try PictureFormat.heif.fixture("bomb-20000.heic")
        let padding = ConfiguredPictures.headerBytes
        let size = padding + 8
        let long = bomb + [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: size >> $0) } + Array("free".utf8) + [UInt8](repeating: 0, count: padding)
        #expect(ConfiguredPictures.headerProblem(Array(long.prefix(padding)), fileGoesOn: true, maxPixels: limit) == words)
        // An item whose data runs past the part read: libheif reads no box of it,
        // so the push lets it by and the decode, which reads it whole, decides.
        let cut = try PictureFormat.heif.fixture("truncated.heic")
        #expect(ConfiguredPictures.headerProblem(cut, fileGoesOn: true, maxPixels: limit) == nil)
        #expect(ConfiguredPictures.headerProblem(cut, fileGoesOn: false, maxPixels: limit)?.hasPrefix("cannot be decoded: truncated HEIF data") == true)
        #expect(throws: ImageInspection.Failure.overPixelLimit(words)) { try ImageInspection.inspect(long, maxPixels: limit) }
    }

    @Test("an override takes an AVIF as image/avif and a HEIC as image/heic; both are stored as heif")
    func anOverrideTakesAVIFAndHEIC() async throws {
        let harness = try OverrideHarness()
        defer { harness.close() }
        try await harness.application().test(.router) { client in
            for (file, type) in [("plain.avif", "image/avif"), ("plain.heic", "image/heic")] {
                let bytes = try PictureFormat.heif.fixture(file)
                let (status, answer) = try await OverrideRoutesTests.postPicture(client, bytes, query: "?duration=30m&name=\(file)", type: type)
                #expect(status == .created, "\(file): \(answer)")
                #expect(harness.api.apply.store.assets.asset(ContentDigest.sha256(bytes))?.kind == .heif, "\(file)")
            }
        }
    }

    @Test(arguments: PictureFormat.all)
    func anOverrideTakesAPictureBody(format: PictureFormat) async throws {
        let harness = try OverrideHarness()
        defer { harness.close() }
        let bytes = try format.fixture(format.overrideBody)
        let ext = format.extensionName
        try await harness.application().test(.router) { client in
            let (status, answer) = try await OverrideRoutesTests.postPicture(client, bytes, query: "?duration=30m&name=alert.\(ext)", type: "image/\(ext)")
            #expect(status == .created, "\(answer)")
            #expect((answer["slides"] as? [[String: Any]])?.map { $0["path"] as? String } == ["asset:\(ContentDigest.sha256(bytes))"])
        }
    }
}
