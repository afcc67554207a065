import Foundation
import PictureTestSupport
import Testing
import VitrineCore
@testable import VitrineRuntime
import VitrineSystem
import VitrineHEIF

/// HEIF slides through the kiosk's decode dispatch: sniffed by their bytes,
/// decoded whole by libheif (which applies the file's transforms), then framed
/// row by row.
@Suite("HEIF slides")
struct HEIFSlideDecodingTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("VitrineHEIFTests/Fixtures").path

    func request(_ file: String, path: String, output: PixelSize = PixelSize(width: 40, height: 30), fit: FitMode = .contain) -> SlideRequest {
        PictureFormatSlides.request(file, path: path, output: output, fit: fit)
    }

    /// The frame made from the whole decoded picture, framed whole by `SlideFramer.frame` as stored (no turn).
    func expectedFrame(_ bytes: [UInt8], request: SlideRequest) throws -> PixelImage {
        let decoded = try bytes.withUnsafeBytes { raw in try HEIFDecoder.decode(raw, maxPixels: request.maxPixels) }
        let frame = PixelImage(size: request.output)
        SlideFramer.frame(decoded: decoded.image, orientation: .up, fit: request.fit, background: request.background,
                          into: frame.canvas, scratch: FramingScratch())
        return frame
    }

    @Test("sniffed by its bytes, whatever the file is called", arguments: ["picture.jpg", "picture.png", "picture", "picture.heic"])
    func sniffedNotNamed(name: String) throws {
        try PictureFormatSlides.expectSniffedNotNamed(fixture: Self.fixtures + "/plain.heic", name: name, output: PixelSize(width: 40, height: 30),
                                                      expected: expectedFrame)
    }

    @Test("at its own size, a HEIF's frame is its decoded picture",
          arguments: ["plain.heic", "alpha.heic", "deep-10bit.heic", "plain.avif", "exif-6.heic"])
    func wholeSize(name: String) throws {
        let bytes = try FileIO.read(Self.fixtures + "/" + name)
        let request = request(name, path: Self.fixtures + "/" + name, output: PixelSize(width: 97, height: 61))
        let framed = try SlideDecoding.frame(for: request, workspace: SlideDecodingWorkspace())
        let decoded = try bytes.withUnsafeBytes { raw in try HEIFDecoder.decode(raw, maxPixels: request.maxPixels) }
        #expect((0..<framed.size.pixelCount).allSatisfy { framed.pixels[$0] == decoded.image.pixels[$0] }, "\(name)")
    }

    @Test("a picture irot turns is framed by its turned size: portrait in a portrait frame, once turned, EXIF ignored")
    func framedByTransformedSize() throws {
        let path = Self.fixtures + "/irot-exif-6.heic"
        // At its own (turned) size the frame is the decoded picture, with no border.
        let own = request("irot-exif-6.heic", path: path, output: PixelSize(width: 61, height: 97))
        let framed = try SlideDecoding.frame(for: own, workspace: SlideDecodingWorkspace())
        let decoded = try FileIO.read(path).withUnsafeBytes { raw in try HEIFDecoder.decode(raw, maxPixels: own.maxPixels) }
        #expect(decoded.image.size == PixelSize(width: 61, height: 97))
        #expect((0..<framed.size.pixelCount).allSatisfy { framed.pixels[$0] == decoded.image.pixels[$0] })
        // In a landscape frame, contained: bars at the left and right, none above or below.
        let wide = request("irot-exif-6.heic", path: path, output: PixelSize(width: 200, height: 97))
        let landscape = try SlideDecoding.frame(for: wide, workspace: SlideDecodingWorkspace())
        let background = wide.background.xrgb
        #expect(landscape[0, 48] == background && landscape[199, 48] == background)
        #expect(landscape[100, 0] != background && landscape[100, 96] != background)
    }

    @Test("every fixture that is a picture frames",
          arguments: ["plain.heic", "alpha.heic", "deep-10bit.heic", "plain.avif", "exif-6.heic", "irot-exif-6.heic", "irot-imir.heic", "grid-2x2.heic"])
    func fixturesFrame(name: String) throws {
        let framed = try SlideDecoding.frame(for: request(name, path: Self.fixtures + "/" + name, output: PixelSize(width: 160, height: 90)),
                                             workspace: SlideDecodingWorkspace())
        #expect(framed.size == PixelSize(width: 160, height: 90))
    }

    @Test("a truncated, damaged or bomb HEIF is a SlideError naming the file and the reason",
          arguments: [("truncated.heic", "truncated HEIF data: the file ends before the picture does"),
                      ("damaged.heic", "corrupt HEIF data: the coded picture is damaged"),
                      ("bomb-20000.heic", "picture is 20000x20000 (400 megapixels), over the limit of 100 megapixels (decode.maxPixels)")])
    func failures(name: String, reason: String) throws {
        let request = request("slides/\(name)", path: Self.fixtures + "/" + name)
        #expect {
            _ = try SlideDecoding.frame(for: request, workspace: SlideDecodingWorkspace())
        } throws: { error in
            guard let error = error as? SlideError, case .heif = error.reason else { return false }
            return "\(error)".hasPrefix("slides/\(name): \(reason)")
        }
    }

    @Test("a 48-megapixel tiled photo turned by irot (an iPhone's HEIF Max) is framed within wholePictureByteLimit, upright")
    func largeTiledPhoto() throws {
        // Hundreds of MB: not beside a test that measures the process's peak memory.
        try PeakMemoryLock.exclusively { try frameLargeTiledPhoto() }
    }

    private func frameLargeTiledPhoto() throws {
        let path = Self.fixtures + "/tiled-48mp-irot.heic"
        let bytes = try FileIO.read(path)
        let request = request("tiled-48mp-irot.heic", path: path, output: PixelSize(width: 378, height: 504))
        // The kiosk's way: the planar route, within the limit, streamed into the frame.
        let framed = try SlideDecoding.frame(for: request, workspace: SlideDecodingWorkspace())
        // libheif's own route, without a limit, framed whole.
        let expected = try expectedFrame(bytes, request: request)
        #expect(framed.size == expected.size)
        #expect((0..<framed.size.pixelCount).allSatisfy { framed.pixels[$0] == expected.pixels[$0] })
    }

    @Test("a picture libheif would hold in more than wholePictureByteLimit is refused, whatever decode.maxPixels allows")
    func byteLimit() throws {
        var request = request("slides/bomb-20000.heic", path: Self.fixtures + "/bomb-20000.heic")
        request.maxPixels = 1_000_000_000
        #expect {
            _ = try SlideDecoding.frame(for: request, workspace: SlideDecodingWorkspace())
        } throws: { error in
            guard let error = error as? SlideError, case .heif(.tooLargeToDecode(_, let bytes, let limit)) = error.reason else { return false }
            // A 1x1 grid over one 98x64 tile: the planar route's estimate, the smaller (HEIFDecoder.decoderBytes).
            return bytes == 20000 * 20000 * 9 / 2 + 98 * 64 * 9 * 4 && limit == SlideDecoding.wholePictureByteLimit
        }
    }
}
