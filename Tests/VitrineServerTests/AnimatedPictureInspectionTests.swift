import Foundation
import Testing
import VitrineCore
import VitrineRuntime
import VitrineGIF

/// An animated picture plays every frame, so an upload (and `check-config`)
/// decodes every frame: damage in a later frame, which the first frame's
/// decode reads past without decoding, is refused before it reaches a screen.
@Suite("Animated picture inspection")
struct AnimatedPictureInspectionTests {
    static let disposalGIF = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("VitrineRuntimeTests/AnimationFixtures/disposal.gif").path

    @Test func damageInALaterFrameIsRefused() throws {
        let whole = [UInt8](try #require(FileManager.default.contents(atPath: Self.disposalGIF)))
        #expect(try ImageInspection.inspect(whole, maxPixels: 1 << 20).kind == .gif)
        // Bytes in the later frames' compressed data that the first frame's decode
        // skips block by block: some damage there only the animation's decode sees.
        var found = 0
        for position in stride(from: whole.count * 6 / 10, to: whole.count - 2, by: 7) {
            var damaged = whole
            damaged[position] ^= 0xFF
            let firstFrame = damaged.withUnsafeBytes {
                (try? GIFDecoder.decodeRows($0, maxPixels: 1 << 20, strip: PixelStorage()) { _, _, _ in }) != nil
            }
            let animation = damaged.withUnsafeBytes {
                (try? GIFDecoder.decodeAnimation($0, maxPixels: 1 << 20, decoderByteLimit: 1 << 24) { _, _ in true }) != nil
            }
            guard firstFrame, !animation else { continue }
            found += 1
            #expect(throws: ImageInspection.Failure.self, "damage at \(position)") {
                try ImageInspection.inspect(damaged, maxPixels: 1 << 20)
            }
        }
        #expect(found > 0)
    }
}
