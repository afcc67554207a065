import Foundation
import Logging
import Testing
import VitrineCore
import VitrinePNG
@testable import VitrineRuntime

/// The headless preview: written off the display thread, at most every 250 ms,
/// and always ending on the newest frame.
@Suite("Headless preview PNG")
struct PreviewWriterTests {
    static let size = PixelSize(width: 8, height: 6)

    /// The preview's first pixel, as XRGB; nil while there is no file.
    static func colour(of path: String) -> UInt32? {
        guard let bytes = FileManager.default.contents(atPath: path), let image = try? PNGCodec.decode(Array(bytes)) else { return nil }
        return image.pixels[0] & 0xFF_FFFF
    }

    @Test func aFrameThatComesRightAfterAnotherIsWrittenLateNotNever() throws {
        let directory = makeTemporaryDirectory()
        defer { removeTemporaryDirectory(directory) }
        let writer = PreviewWriter(path: directory + "/preview.png", logger: Logger(label: "test"))
        let red = RGBAColor(red: 200, green: 0, blue: 0), blue = RGBAColor(red: 0, green: 0, blue: 200)
        /// Seconds until the preview shows `colour`, or nil after 2 s.
        func untilShown(_ colour: RGBAColor) -> Double? {
            let started = Date()
            while Date().timeIntervalSince(started) < 2 {
                if Self.colour(of: directory + "/preview.png") == colour.xrgb & 0xFF_FFFF { return Date().timeIntervalSince(started) }
                Thread.sleep(forTimeInterval: 0.005)
            }
            return nil
        }
        writer.offer(PixelImage(size: Self.size, fill: red))
        let first = untilShown(red)
        // Right after: written once the gap is out, on the queue's timer, with no second offer to prompt it.
        writer.offer(PixelImage(size: Self.size, fill: blue))
        let second = try #require(untilShown(blue), "the preview ends on the newest frame")
        #expect(first != nil && second >= 0.15 && second < 1, "red after \(first ?? -1) s, then blue after \(second) s")
    }

    @Test func flushWritesTheNewestFrameAtOnce() throws {
        let directory = makeTemporaryDirectory()
        defer { removeTemporaryDirectory(directory) }
        let writer = PreviewWriter(path: directory + "/preview.png", logger: Logger(label: "test"))
        let colours = (0..<5).map { RGBAColor(red: UInt8(40 * $0), green: 100, blue: 0) }
        for colour in colours { writer.offer(PixelImage(size: Self.size, fill: colour)) }
        let started = Date()
        writer.flush()
        #expect(Self.colour(of: directory + "/preview.png") == colours.last.map { $0.xrgb & 0xFF_FFFF })
        #expect(Date().timeIntervalSince(started) < 0.2, "flush does not wait out the gap")
    }
}
