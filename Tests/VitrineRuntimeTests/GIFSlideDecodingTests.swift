import Foundation
import Testing
import VitrineCore
@testable import VitrineRuntime
import VitrineSystem
import VitrineGIF

/// GIF slides through the kiosk's decode dispatch: sniffed by their bytes,
/// framed row by row as giflib decodes the first frame.
@Suite("GIF slides")
struct GIFSlideDecodingTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("VitrineGIFTests/Fixtures").path

    func request(_ file: String, path: String, output: PixelSize = PixelSize(width: 40, height: 30), fit: FitMode = .contain) -> SlideRequest {
        PictureFormatSlides.request(file, path: path, output: output, fit: fit)
    }

    /// The frame made from the whole decoded canvas, handed to the same streaming framer in one strip.
    func expectedFrame(_ bytes: [UInt8], request: SlideRequest) throws -> PixelImage {
        let decoded = try bytes.withUnsafeBytes { raw in try GIFDecoder.decode(raw, maxPixels: request.maxPixels) }
        let frame = PixelImage(size: request.output)
        let stream = SlideFramer.streamingFrame(picture: decoded.image.size, fit: request.fit, background: request.background,
                                                into: frame.canvas, scratch: FramingScratch())
        stream?.consume(rows: decoded.image.pixels.baseAddress!, first: 0, count: decoded.image.height, stride: decoded.image.width)
        return frame
    }

    @Test("sniffed by its bytes, whatever the file is called", arguments: ["picture.jpg", "picture.png", "picture", "picture.gif"])
    func sniffedNotNamed(name: String) throws {
        try PictureFormatSlides.expectSniffedNotNamed(fixture: Self.fixtures + "/offset.gif", name: name, output: PixelSize(width: 40, height: 30),
                                                      expected: expectedFrame)
    }

    @Test("at its own size, a GIF's frame is its decoded canvas", arguments: ["still.gif", "interlaced.gif", "transparent.gif", "animated.gif"])
    func wholeSize(name: String) throws {
        let bytes = try FileIO.read(Self.fixtures + "/" + name)
        let request = request(name, path: Self.fixtures + "/" + name, output: PixelSize(width: 61, height: 37))
        let framed = try SlideDecoding.frame(for: request, workspace: SlideDecodingWorkspace())
        let decoded = try bytes.withUnsafeBytes { raw in try GIFDecoder.decode(raw, maxPixels: request.maxPixels) }
        #expect((0..<framed.size.pixelCount).allSatisfy { framed.pixels[$0] == decoded.image.pixels[$0] }, "\(name)")
    }

    @Test("every fixture that is a picture frames", arguments: ["still.gif", "interlaced.gif", "animated.gif", "transparent.gif", "offset.gif"])
    func fixturesFrame(name: String) throws {
        let framed = try SlideDecoding.frame(for: request(name, path: Self.fixtures + "/" + name, output: PixelSize(width: 160, height: 90)),
                                             workspace: SlideDecodingWorkspace())
        #expect(framed.size == PixelSize(width: 160, height: 90))
    }

    @Test("a truncated or bomb GIF is a SlideError naming the file and the reason",
          arguments: [("truncated.gif", "truncated GIF data: the file ends before the picture does"),
                      ("bomb-65535.gif", "picture is 65535x65535 (4294.8 megapixels), over the limit of 100 megapixels (decode.maxPixels)")])
    func failures(name: String, reason: String) throws {
        let request = request("slides/\(name)", path: Self.fixtures + "/" + name)
        #expect {
            _ = try SlideDecoding.frame(for: request, workspace: SlideDecodingWorkspace())
        } throws: { error in
            guard let error = error as? SlideError, case .gif = error.reason else { return false }
            return "\(error)".hasPrefix("slides/\(name): \(reason)")
        }
    }
}
