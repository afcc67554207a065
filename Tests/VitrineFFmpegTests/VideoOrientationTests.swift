import Foundation
import Glibc
import PictureTestSupport
import Testing
import VitrineCore
@testable import VitrineFFmpeg

/// A video whose stream carries a display matrix (a phone's video filmed held
/// upright is stored on its side) shows as FFmpeg's own command line shows
/// it: the first frame the reader draws equals `ffmpeg`'s, which turns by
/// default (its `autorotate`), and differs from the frame as stored.
@Suite struct VideoOrientationTests {
    private static let stored = PixelSize(width: 320, height: 240)
    private static let red = RGBAColor(red: 255, green: 0, blue: 0)

    /// Three frames of ffmpeg's `testsrc` (no two quarters alike) with a
    /// display matrix turning them `degrees` counter-clockwise (`turnedCopy`).
    private static func clip(turnedCounterClockwise degrees: Int) throws -> String {
        let stored = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-turned-\(getpid())-\(UUID().uuidString).mp4").path
        defer { try? FileManager.default.removeItem(atPath: stored) }
        _ = try runTool("/usr/bin/ffmpeg", [
            "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=s=\(Self.stored.width)x\(Self.stored.height):r=25:d=0.12",
            "-frames:v", "3", "-c:v", "libx264", "-preset", "ultrafast", "-qp", "0", "-pix_fmt", "yuv444p", stored,
        ])
        return try turnedCopy(ofClip: stored, counterClockwise: degrees)
    }

    /// The first frame as `ffmpeg` shows it (`autorotate` on unless `noautorotate`), in the kiosk's pixels.
    private static func ffmpegFrame(_ path: String, size: PixelSize, autorotate: Bool = true, scaled: Bool = false) throws -> PixelImage {
        let bytes = try runTool("/usr/bin/ffmpeg", ["-v", "error"] + (autorotate ? [] : ["-noautorotate"]) + [
            "-i", path, "-frames:v", "1", "-sws_flags", "bilinear",
        ] + (scaled ? ["-vf", "scale=\(size.width):\(size.height)"] : []) + [
            "-f", "rawvideo", "-pix_fmt", "bgra", "-",
        ])
        try #require(bytes.count == size.pixelCount * 4, "ffmpeg gave \(bytes.count) bytes for \(size)")
        let image = PixelImage(size: size)
        bytes.withUnsafeBytes { raw in
            for index in 0..<size.pixelCount { image.pixels[index] = raw.load(fromByteOffset: index * 4, as: UInt32.self) | 0xFF00_0000 }
        }
        return image
    }

    private static func meanDifference(_ a: PixelImage, _ b: PixelImage) -> Double {
        var total = 0
        for index in 0..<a.size.pixelCount {
            let x = a.pixels[index], y = b.pixels[index]
            for shift in [0, 8, 16] as [UInt32] { total += abs(Int((x >> shift) & 0xFF) - Int((y >> shift) & 0xFF)) }
        }
        return Double(total) / Double(a.size.pixelCount * 3)
    }

    private static func withReader<Result>(_ path: String, _ body: (VideoFileReader) throws -> Result) throws -> Result {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        return try body(try VideoFileReader(descriptor: descriptor, maxPixels: 8_000_000))
    }

    @Test(arguments: [(270, ExifOrientation.right), (180, .down), (90, .left)])
    func aTurnedVideoShowsAsFFmpegShowsIt(counterClockwise degrees: Int, expected: ExifOrientation) throws {
        let path = try Self.clip(turnedCounterClockwise: degrees)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let upright = expected.displaySize(forStored: Self.stored)
        let frame = try Self.withReader(path) { reader in
            #expect(reader.info.orientation == expected)
            #expect(reader.info.size == Self.stored)
            #expect(reader.info.displaySize == upright)
            let frame = PixelImage(size: upright)
            let first = try reader.nextFrame(into: frame.canvas, fit: .contain, background: Self.red)
            #expect(first == .zero)
            return frame
        }
        let shown = Self.meanDifference(frame, try Self.ffmpegFrame(path, size: upright))
        #expect(shown < 2, "mean difference from ffmpeg's frame: \(shown) levels")
        // The same frame as stored, turned here the same way, is the same
        // picture: so the test would see a turn in the wrong direction.
        let asStored = try Self.ffmpegFrame(path, size: Self.stored, autorotate: false)
        let turned = expected.uprighted(asStored)
        #expect(Self.meanDifference(frame, turned) < 2)
        let wrongWay: ExifOrientation = switch expected {
        case .right: .left
        case .left: .right
        default: .up
        }
        let wrong = Self.meanDifference(frame, wrongWay.uprighted(asStored))
        #expect(wrong > 20, "a turn the other way differs by only \(wrong) levels")
    }

    /// On a landscape screen a portrait phone video is pillarboxed (scaled
    /// while turned), and `cover` fills a square with no background showing.
    @Test func aTurnedVideoIsFittedUpright() throws {
        let path = try Self.clip(turnedCounterClockwise: 270)
        defer { try? FileManager.default.removeItem(atPath: path) }
        // 240x320 upright on 426x240: 180x240 in the middle (columns 123..<303).
        let wide = PixelImage(size: PixelSize(width: 426, height: 240))
        let square = PixelImage(size: PixelSize(width: 120, height: 120))
        try Self.withReader(path) { reader in
            _ = try reader.nextFrame(into: wide.canvas, fit: .contain, background: Self.red)
            _ = try reader.nextFrame(into: square.canvas, fit: .cover, background: Self.red)
        }
        for y in stride(from: 0, to: 240, by: 17) {
            #expect(wide[5, y] == Self.red.xrgb)
            #expect(wide[420, y] == Self.red.xrgb)
        }
        let pillar = PixelImage(size: PixelSize(width: 180, height: 240))
        for y in 0..<240 { for x in 0..<180 { pillar[x, y] = wide[123 + x, y] } }
        // ffmpeg turns, then scales; the reader scales, then turns: the same bilinear filter either way.
        let reference = try Self.ffmpegFrame(path, size: pillar.size, scaled: true)
        let difference = Self.meanDifference(pillar, reference)
        #expect(difference < 4, "mean difference from ffmpeg's scaled frame: \(difference) levels")
        for x in stride(from: 0, to: 120, by: 7) { #expect(square[x, 60] != Self.red.xrgb) }
    }
}
