import Foundation
import PictureTestSupport
import Testing
import VitrineCore
import VitrineGIF

@Suite("GIF decoding")
struct GIFDecoderTests {
    static let pictures = ["still.gif", "interlaced.gif", "animated.gif", "transparent.gif", "offset.gif"]
    static let small = PixelSize(width: 61, height: 37)

    func decode(_ bytes: [UInt8], maxPixels: Int = 100_000_000, decoderByteLimit: Int = .max,
                into storage: PixelStorage? = nil) throws(GIFError) -> DecodedGIF {
        let result = bytes.withUnsafeBytes { raw in
            Result { () throws(GIFError) in try GIFDecoder.decode(raw, maxPixels: maxPixels, decoderByteLimit: decoderByteLimit, into: storage) }
        }
        return try result.get()
    }

    func info(_ bytes: [UInt8]) throws(GIFError) -> GIFInfo {
        try bytes.withUnsafeBytes { raw in Result { () throws(GIFError) in try GIFDecoder.info(raw) } }.get()
    }

    func reference(_ name: String, size: PixelSize = small) throws -> PixelImage {
        try gif2rgbReference(path: fixturesDirectory + "/" + name, size: size)
    }

    @Test("a still and an interlaced picture: every pixel as gif2rgb decodes it", arguments: ["still.gif", "interlaced.gif"])
    func matchesGif2rgb(name: String) throws {
        let decoded = try decode(fixture(name))
        #expect(decoded.image.size == Self.small)
        let (pixels, largest) = difference(decoded.image, try reference(name))
        print("\(name): \(decoded.image.size), \(pixels) pixels differ from gif2rgb -1 (largest channel difference \(largest))")
        #expect(pixels == 0)
        #expect(decoded.frame.isInterlaced == (name == "interlaced.gif"))
        #expect(decoded.frame.frameCount == 1 && !decoded.frame.isAnimated)
    }

    @Test("an interlaced frame comes out in row order: the same pixels as the same picture stored in order")
    func interlacedRowOrder() throws {
        let interlaced = try decode(fixture("interlaced.gif")), still = try decode(fixture("still.gif"))
        #expect(interlaced.frame.isInterlaced && !still.frame.isInterlaced)
        #expect(difference(interlaced.image, still.image).pixels == 0)
    }

    @Test("an animation shows its first frame")
    func animationFirstFrame() throws {
        let decoded = try decode(fixture("animated.gif"))
        #expect(decoded.frame.frameCount == 2 && decoded.frame.isAnimated)
        // The first frame is still.gif's picture; gif2rgb of the animation draws both frames, the second last.
        let (pixels, largest) = difference(decoded.image, try reference("still.gif"))
        print("animated.gif frame 1: \(pixels) pixels differ from gif2rgb -1 of still.gif (largest channel difference \(largest))")
        #expect(pixels == 0)
        let composite = difference(decoded.image, try reference("animated.gif"))
        print("animated.gif frame 1 against gif2rgb's composite of both frames: \(composite.pixels) pixels differ")
        #expect(composite.pixels > 0)
    }

    @Test("the transparent index shows the black canvas")
    func transparency() throws {
        let decoded = try decode(fixture("transparent.gif"))
        #expect(decoded.frame.transparentIndex == 255)
        // gif2rgb draws index 255 as its palette colour, magenta, used by no other index.
        let reference = try reference("transparent.gif")
        var transparent = 0
        for i in 0..<reference.size.pixelCount where reference.pixels[i] == 0xFFFF_00FF {
            reference.pixels[i] = 0xFF00_0000
            transparent += 1
        }
        let (pixels, largest) = difference(decoded.image, reference)
        print("transparent.gif: \(transparent) transparent pixels; \(pixels) pixels differ from gif2rgb -1 with magenta as black (largest \(largest))")
        #expect(transparent > 100)
        #expect(pixels == 0)
    }

    @Test("a frame at an offset sits there on a black canvas")
    func frameAtOffset() throws {
        let decoded = try decode(fixture("offset.gif"))
        let canvas = PixelSize(width: 81, height: 57)
        #expect(decoded.image.size == canvas)
        #expect(decoded.frame.frame == PixelRect(x: 10, y: 8, width: 61, height: 37))
        // gif2rgb fills the rest with the background index's colour; here it is black.
        let reference = try reference("offset.gif", size: canvas)
        let still = try decode(fixture("still.gif")).image
        var differences = 0
        for y in 0..<canvas.height {
            for x in 0..<canvas.width {
                let inside = (10..<71).contains(x) && (8..<45).contains(y)
                let expected = inside ? reference[x, y] : 0xFF00_0000
                if decoded.image[x, y] != expected { differences += 1 }
                if inside, decoded.image[x, y] != still[x - 10, y - 8] { differences += 1 }
            }
        }
        print("offset.gif: \(differences) pixels differ from gif2rgb -1 inside the frame and black outside")
        #expect(differences == 0)
    }

    @Test("a first frame that leaves the logical screen is an error")
    func frameOutsideCanvas() throws {
        var bytes = try fixture("still.gif")
        let at = firstImageDescriptor(bytes)
        bytes[at + 1] = 1 // Left = 1: a 61-wide frame on a 61-wide screen
        #expect(throws: GIFError.frameOutsideCanvas(left: 1, top: 0, size: Self.small, canvas: Self.small)) { try decode(bytes) }
        #expect("\(GIFError.frameOutsideCanvas(left: 1, top: 0, size: Self.small, canvas: Self.small))"
            == "corrupt GIF data: the first frame, 61x37 at (1, 0), does not lie within the 61x37 logical screen")
    }

    /// The pixels, copied while the picture (which owns their memory) is alive.
    static func pixels(_ decoded: DecodedGIF) -> [UInt32] {
        withExtendedLifetime(decoded) { Array(decoded.image.pixels) }
    }

    @Test("a truncated file is an error, never part of a picture")
    func truncated() throws {
        let bytes = try fixture("truncated.gif")
        do throws(GIFError) {
            _ = try decode(bytes)
            Issue.record("truncated.gif decoded")
        } catch {
            guard case .truncated = error else { Issue.record("\(error)"); return }
            print("truncated.gif: \(error)")
            #expect("\(error)".hasPrefix("truncated GIF data: the file ends before the picture does"))
        }
        // A cut inside the first frame fails. A file that ends after its first
        // frame (one that only loses its trailer, or an animation cut in a later
        // frame) shows that frame exactly as the whole file does.
        for name in Self.pictures {
            let whole = try fixture(name)
            let expected = try Self.pixels(decode(whole))
            #expect(try Self.pixels(decode(Array(whole.prefix(whole.count - 1)))) == expected, "\(name) without its trailer")
            let frameCount = try decode(whole).frame.frameCount
            for length in stride(from: 0, to: whole.count - 1, by: max(1, whole.count / 37)) {
                do throws(GIFError) {
                    let shown = try decode(Array(whole.prefix(length)))
                    #expect(frameCount > 1 && Self.pixels(shown) == expected, "\(name) cut to \(length) bytes decoded")
                } catch {
                    // Refused, with a reason: what a cut inside the first frame must give.
                    #expect(!"\(error)".isEmpty)
                }
            }
        }
    }

    @Test("a header claiming 65535x65535 is refused before anything is allocated")
    func bomb() throws {
        let bytes = try fixture("bomb-65535.gif")
        let size = PixelSize(width: 65535, height: 65535)
        #expect(try info(bytes).size == size)
        let storage = PixelStorage()
        #expect(throws: GIFError.tooManyPixels(size: size, limit: 100_000_000)) { try decode(bytes, into: storage) }
        #expect(storage.capacity == 1)
        #expect("\(GIFError.tooManyPixels(size: size, limit: 100_000_000))"
            == "picture is 65535x65535 (4294.8 megapixels), over the limit of 100 megapixels (decode.maxPixels)")
        // The frame's own size is checked too: a screen within the limit, a frame over it.
        var frameBomb = try fixture("still.gif")
        let at = firstImageDescriptor(frameBomb)
        frameBomb[6] = 0xFF; frameBomb[7] = 0xFF; frameBomb[8] = 0x01; frameBomb[9] = 0x00 // 65535x1 screen
        frameBomb[at + 5] = 0xFF; frameBomb[at + 6] = 0xFF; frameBomb[at + 7] = 0xFF; frameBomb[at + 8] = 0xFF // 65535x65535 frame
        #expect(throws: GIFError.tooManyPixels(size: size, limit: 100_000)) { try decode(frameBomb, maxPixels: 100_000) }
        // Within the limit it is still only 61x37 pixels of data: an error, not a picture (rows streamed, never held whole).
        let streamed = bytes.withUnsafeBytes { raw in
            Result { () throws(GIFError) in
                try GIFDecoder.decodeRows(raw, maxPixels: .max, strip: PixelStorage()) { _, _, _ in }
            }
        }
        #expect(throws: GIFError.self) { try streamed.get() }
    }

    @Test("an interlaced frame is held whole as indices, within the byte limit; the whole canvas too")
    func decoderByteLimit() throws {
        #expect(throws: GIFError.tooLargeToDecode(size: Self.small, bytes: 61 * 37, limit: 1000)) {
            try fixture("interlaced.gif").withUnsafeBytes { raw in
                try GIFDecoder.decodeRows(raw, maxPixels: .max, decoderByteLimit: 1000, strip: PixelStorage()) { _, _, _ in }
            }
        }
        // A frame stored in order streams in a strip whatever the limit.
        let frame = try fixture("still.gif").withUnsafeBytes { raw in
            try GIFDecoder.decodeRows(raw, maxPixels: .max, decoderByteLimit: 1000, strip: PixelStorage()) { _, _, _ in }
        }
        #expect(frame.canvas == Self.small)
        #expect(throws: GIFError.tooLargeToDecode(size: Self.small, bytes: 61 * 37 * 4, limit: 1000)) {
            try decode(fixture("still.gif"), decoderByteLimit: 1000)
        }
    }

    @Test func signature() throws {
        for name in Self.pictures + ["truncated.gif", "bomb-65535.gif"] {
            #expect(GIFDecoder.hasSignature(try fixture(name)))
        }
        #expect(GIFDecoder.hasSignature(Array("GIF87a".utf8)) && GIFDecoder.hasSignature(Array("GIF89a".utf8)))
        #expect(!GIFDecoder.hasSignature(Array("GIF88a".utf8)))
        #expect(!GIFDecoder.hasSignature(Array("GIF8".utf8)))
        #expect(!GIFDecoder.hasSignature([0xFF, 0xD8, 0xFF, 0xE0, 0, 0]))
        #expect(throws: GIFError.empty) { try decode([]) }
        #expect(throws: GIFError.notGIF) { try decode([0xFF, 0xD8, 0xFF, 0xE0, 0, 0, 0, 0, 0, 0, 0, 0]) }
        #expect(throws: GIFError.truncated("the file ends inside the logical screen descriptor")) { try decode(Array("GIF89a\u{1}".utf8)) }
    }

    @Test("damaged image data is a corrupt or truncated file naming GIF")
    func damagedData() throws {
        var bytes = try fixture("still.gif")
        let at = firstImageDescriptor(bytes)
        // The image data's first sub-block, after the 10-byte descriptor (no local table) and the LZW code size.
        for i in (at + 12)..<(at + 60) { bytes[i] = 0xFF }
        do throws(GIFError) {
            _ = try decode(bytes)
            Issue.record("damaged data decoded")
        } catch {
            print("still.gif with damaged LZW data: \(error)")
            #expect("\(error)".contains("GIF data"))
        }
    }
}
