import Foundation
import Logging
import Testing
import VitrineConfig
import VitrineCore
@testable import VitrineRuntime

/// The address notice on the real loop with a headless display: it shows
/// over the slides when the configuration has `showAddress`, and not otherwise.
@Suite("Address notice on screen")
struct AddressNoticeKioskTests {
    /// Every character a full cell, half as wide as the text is high.
    struct Blocks: TextRasterizer {
        func mask(for text: String, pixelHeight: Int) throws -> TextMask {
            let cell = pixelHeight / 2, width = text.count * (cell + 1)
            var coverage = [UInt8](repeating: 0, count: width * pixelHeight)
            for index in 0..<text.count { for y in 0..<pixelHeight { for x in 0..<cell { coverage[y * width + index * (cell + 1) + x] = 255 } } }
            return TextMask(width: width, height: pixelHeight, ascent: pixelHeight, coverage: coverage)
        }
    }

    static let red = RGBAColor(red: 220, green: 20, blue: 20)

    /// The frame on screen at the box's corner (6, 6) and far from it, after the notice was sent.
    func corners(showAddress: Bool) throws -> (corner: UInt32, text: UInt32, elsewhere: UInt32) {
        let directory = makeTemporaryDirectory()
        defer { removeTemporaryDirectory(directory) }
        try writeJPEG(directory + "/red.jpg", size: PixelSize(width: 320, height: 180), color: Self.red)
        let configuration = try ConfigLoader.parse("""
            slides: [red.jpg]
            indicator: { visible: false }
            output: { width: 320, height: 180 }
            showAddress: \(showAddress)
            """, baseDirectory: directory)
        let display = HeadlessDisplay(size: configuration.outputSize, previewPath: nil, logger: Logger(label: "test"))
        let kiosk = try Kiosk(configuration: configuration, version: "v1", display: display, logger: Logger(label: "test"),
                              decoder: InProcessSlideDecoder(), textRasterizer: Blocks())
        let control = kiosk.control, stop = kiosk.stopHandle
        Thread.detachNewThread {
            Thread.sleep(forTimeInterval: 0.3)
            control.send(.addressNotice(ScreenNotice(lines: ["ab"])))
            Thread.sleep(forTimeInterval: 0.4)
            stop.stop()
        }
        try kiosk.run()
        let frame = display.currentFrame
        // 180 / 27 → 12 px text (the least), margin and padding 6: the first cell starts at (12, 12).
        return (frame[6, 6], frame[13, 13], frame[300, 170])
    }

    @Test func theAddressShowsOverTheSlidesWhenTheConfigurationAsks() throws {
        let seen = try corners(showAddress: true)
        // The box lets 63/255 of the slide through; the text is white.
        #expect(isClose(seen.corner, to: RGBAColor(red: 54, green: 5, blue: 5), tolerance: 4), "\(String(seen.corner, radix: 16))")
        #expect(isClose(seen.text, to: .white, tolerance: 1), "\(String(seen.text, radix: 16))")
        #expect(isClose(seen.elsewhere, to: Self.red, tolerance: 6))
    }

    @Test func aConfigurationWithoutShowAddressShowsNoNotice() throws {
        let seen = try corners(showAddress: false)
        #expect(isClose(seen.corner, to: Self.red, tolerance: 6), "\(String(seen.corner, radix: 16))")
        #expect(isClose(seen.text, to: Self.red, tolerance: 6))
    }
}
