import Foundation
import Testing
import VitrineCore
@testable import VitrineRuntime
import VitrineSystem
import VitrineWebP

/// WebP slides through the kiosk's decode dispatch: sniffed by their bytes,
/// decoded by libwebp at a covering size, framed like the other formats.
@Suite("WebP slides")
struct WebPSlideDecodingTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("VitrineWebPTests/Fixtures").path

    func request(_ file: String, path: String, output: PixelSize = PixelSize(width: 160, height: 90), fit: FitMode = .contain) -> SlideRequest {
        PictureFormatSlides.request(file, path: path, output: output, fit: fit)
    }

    /// The frame the whole-picture path makes: `WebPDecoder.decode` at the covering size, then `SlideFramer.frame`.
    func expectedFrame(_ bytes: [UInt8], request: SlideRequest) throws -> PixelImage {
        let decoded = try bytes.withUnsafeBytes { raw in
            let info = try WebPDecoder.info(raw)
            let target = SlideFramer.decodeTarget(picture: info.uprightSize, orientation: info.orientation, output: request.output, fit: request.fit)
            return try WebPDecoder.decode(raw, covering: target, maxPixels: request.maxPixels)
        }
        let frame = PixelImage(size: request.output)
        SlideFramer.frame(decoded: decoded.image, orientation: decoded.info.orientation, fit: request.fit, background: request.background,
                          into: frame.canvas)
        return frame
    }

    @Test("sniffed by its bytes, whatever the file is called", arguments: ["picture.jpg", "picture.png", "picture", "picture.webp"])
    func sniffedNotNamed(name: String) throws {
        try PictureFormatSlides.expectSniffedNotNamed(fixture: Self.fixtures + "/lossy.webp", name: name, output: PixelSize(width: 160, height: 90),
                                                      expected: expectedFrame)
    }

    @Test("the EXIF orientation turns the picture", arguments: FitMode.allCases)
    func turnedByExif(fit: FitMode) throws {
        let path = Self.fixtures + "/exif-right.webp"
        let request = request("exif-right.webp", path: path, output: PixelSize(width: 37, height: 61), fit: fit)
        let framed = try SlideDecoding.frame(for: request, workspace: SlideDecodingWorkspace())
        // 61x37 stored, turned 90° clockwise: 37x61 upright, which fills a 37x61 frame exactly.
        let stored = try FileIO.read(Self.fixtures + "/lossless.webp").withUnsafeBytes { raw in
            try WebPDecoder.decode(raw, covering: nil, maxPixels: 100_000_000).image
        }
        #expect((0..<61).allSatisfy { v in (0..<37).allSatisfy { u in
            let (x, y) = ExifOrientation.right.storedPixel(u: u, v: v, stored: stored.size)
            return framed[u, v] == stored[x, y]
        } })
    }

    @Test("every fixture that is a picture frames; the rest fail naming the file",
          arguments: ["lossy.webp", "lossless.webp", "alpha-lossy.webp", "alpha-lossless.webp", "animated.webp", "exif-right.webp"])
    func fixturesFrame(name: String) throws {
        let framed = try SlideDecoding.frame(for: request(name, path: Self.fixtures + "/" + name), workspace: SlideDecodingWorkspace())
        #expect(framed.size == PixelSize(width: 160, height: 90))
    }

    @Test("a truncated or bomb WebP is a SlideError naming the file and the reason",
          arguments: [("truncated.webp", "truncated WebP data: the file ends before the picture does"),
                      ("bomb-16383.webp", "picture is 16383x16383 (268.4 megapixels), over the limit of 100 megapixels (decode.maxPixels)")])
    func failures(name: String, reason: String) throws {
        let request = request("slides/\(name)", path: Self.fixtures + "/" + name)
        #expect {
            _ = try SlideDecoding.frame(for: request, workspace: SlideDecodingWorkspace())
        } throws: { error in
            guard let error = error as? SlideError, case .webp = error.reason else { return false }
            return "\(error)".hasPrefix("slides/\(name): \(reason)")
        }
    }
}
