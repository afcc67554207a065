import Foundation
import Testing
import VitrineCore
import VitrineWebP

@Suite("WebP decoding")
struct WebPDecoderTests {
    static let stills = ["lossy.webp", "lossless.webp", "alpha-lossy.webp", "alpha-lossless.webp", "exif-right.webp"]

    func decode(_ bytes: [UInt8], covering target: PixelSize? = nil, maxPixels: Int = 100_000_000,
                into storage: PixelStorage? = nil) throws(WebPError) -> DecodedWebP {
        let result = bytes.withUnsafeBytes { raw in
            Result { () throws(WebPError) in try WebPDecoder.decode(raw, covering: target, maxPixels: maxPixels, into: storage) }
        }
        return try result.get()
    }

    func info(_ bytes: [UInt8]) throws(WebPError) -> WebPInfo {
        try bytes.withUnsafeBytes { raw in Result { () throws(WebPError) in try WebPDecoder.info(raw) } }.get()
    }

    @Test("pixels as dwebp decodes them", arguments: stills)
    func matchesDwebp(name: String) throws {
        let decoded = try decode(fixture(name))
        let reference = try dwebpReference(path: fixturesDirectory + "/" + name)
        #expect(decoded.image.size == reference.size)
        let difference = maxChannelDifference(decoded.image, reference)
        print("\(name): \(decoded.image.size), largest channel difference from dwebp -pam: \(difference)")
        #expect(difference <= 2)
    }

    @Test func headers() throws {
        let lossy = try info(fixture("lossy.webp"))
        #expect(lossy == WebPInfo(size: PixelSize(width: 640, height: 360), hasAlpha: false, isAnimated: false, compression: .lossy, orientation: .up))
        let lossless = try info(fixture("lossless.webp"))
        #expect(lossless.compression == .lossless && lossless.size == PixelSize(width: 61, height: 37) && !lossless.hasAlpha)
        #expect(try info(fixture("alpha-lossy.webp")).hasAlpha)
        #expect(try info(fixture("alpha-lossless.webp")).hasAlpha)
        let animated = try info(fixture("animated.webp"))
        #expect(animated.isAnimated && animated.compression == .mixed && animated.size == PixelSize(width: 61, height: 37))
    }

    @Test("the EXIF chunk's orientation is read (VP8X, WebPDemuxGetChunk)")
    func exifOrientation() throws {
        let exif = try info(fixture("exif-right.webp"))
        #expect(exif.orientation == .right)
        #expect(exif.uprightSize == PixelSize(width: 37, height: 61))
        // Decoded in stored orientation: turning it is the framer's job.
        #expect(try decode(fixture("exif-right.webp")).image.size == PixelSize(width: 61, height: 37))
    }

    @Test("an animation shows its first frame, as dwebp decodes that frame alone")
    func animationFirstFrame() throws {
        let frame = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-webp-frame1-\(getpid()).webp").path
        defer { try? FileManager.default.removeItem(atPath: frame) }
        _ = try run("webpmux", ["-get", "frame", "1", fixturesDirectory + "/animated.webp", "-o", frame])
        let decoded = try decode(fixture("animated.webp"))
        let reference = try dwebpReference(path: frame)
        #expect(decoded.image.size == reference.size)
        let difference = maxChannelDifference(decoded.image, reference)
        print("animated.webp frame 1: largest channel difference from dwebp -pam: \(difference)")
        #expect(difference <= 2)
    }

    @Test("an animation's first frame smaller than its canvas sits at its offset on black, scaled with the canvas")
    func animationFirstFrameAtAnOffset() throws {
        let bytes = try fixture("animated-offset.webp")
        let decoded = try decode(bytes)
        #expect(decoded.image.size == PixelSize(width: 71, height: 47))
        let frame = try dwebpReference(path: fixturesDirectory + "/lossless.webp")
        var worst = 0
        for y in 0..<47 {
            for x in 0..<71 {
                let inside = (10..<71).contains(x) && (10..<47).contains(y)
                let expected = inside ? frame[x - 10, y - 10] : 0xFF00_0000
                for shift in [0, 8, 16] as [UInt32] {
                    worst = max(worst, abs(Int((decoded.image[x, y] >> shift) & 0xFF) - Int((expected >> shift) & 0xFF)))
                }
            }
        }
        #expect(worst == 0)
        // Scaled to cover 36x24: the canvas at 37x24, the frame's rectangle scaled as the canvas is (from (5, 5)).
        let scaled = try decode(bytes, covering: PixelSize(width: 36, height: 24))
        #expect(scaled.image.size == PixelSize(width: 37, height: 24))
        #expect(scaled.image[0, 0] == 0xFF00_0000 && scaled.image[4, 23] == 0xFF00_0000 && scaled.image[36, 4] == 0xFF00_0000)
        #expect(scaled.image[5, 5] != 0xFF00_0000 || scaled.image[6, 6] != 0xFF00_0000 || scaled.image[20, 12] != 0xFF00_0000)
    }

    @Test("libwebp's scaler decodes to the smallest size covering the target")
    func scaledDecode() throws {
        let source = PixelSize(width: 640, height: 360)
        #expect(WebPDecoder.scaledSize(decoding: source, covering: PixelSize(width: 160, height: 90)) == PixelSize(width: 160, height: 90))
        #expect(WebPDecoder.scaledSize(decoding: source, covering: PixelSize(width: 100, height: 100)) == PixelSize(width: 178, height: 100))
        #expect(WebPDecoder.scaledSize(decoding: source, covering: PixelSize(width: 200, height: 50)) == PixelSize(width: 200, height: 113))
        #expect(WebPDecoder.scaledSize(decoding: source, covering: PixelSize(width: 1920, height: 1080)) == source)
        #expect(WebPDecoder.scaledSize(decoding: source, covering: nil) == source)

        let decoded = try decode(fixture("lossy.webp"), covering: PixelSize(width: 160, height: 90))
        #expect(decoded.image.size == PixelSize(width: 160, height: 90))
        let reference = try dwebpReference(path: fixturesDirectory + "/lossy.webp", scale: PixelSize(width: 160, height: 90))
        let difference = maxChannelDifference(decoded.image, reference)
        print("lossy.webp scaled to 160x90: largest channel difference from dwebp -scale 160 90 -pam: \(difference)")
        #expect(difference <= 2)
        let lossless = try decode(fixture("alpha-lossless.webp"), covering: PixelSize(width: 20, height: 10))
        #expect(lossless.image.size == PixelSize(width: 20, height: 13))
    }

    @Test("a truncated file is an error, never part of a picture")
    func truncated() throws {
        #expect(throws: WebPError.self) { try decode(fixture("truncated.webp")) }
        let bytes = try fixture("truncated.webp")
        do throws(WebPError) {
            _ = try decode(bytes)
        } catch {
            guard case .truncated = error else { Issue.record("\(error)"); return }
            #expect("\(error)".hasPrefix("truncated WebP data: "))
        }
        // Every cut of every fixture fails: a prefix never decodes.
        for name in Self.stills + ["animated.webp", "animated-offset.webp"] {
            let whole = try fixture(name)
            for length in stride(from: 0, to: whole.count, by: max(1, whole.count / 37)) {
                #expect(throws: WebPError.self, "\(name) cut to \(length) bytes") { try decode(Array(whole.prefix(length))) }
            }
        }
    }

    @Test("a header claiming 16383x16383 is refused before anything is allocated")
    func bomb() throws {
        let bytes = try fixture("bomb-16383.webp")
        #expect(try info(bytes).size == PixelSize(width: 16383, height: 16383))
        let storage = PixelStorage()
        #expect(throws: WebPError.tooManyPixels(size: PixelSize(width: 16383, height: 16383), limit: 100_000_000)) {
            try decode(bytes, into: storage)
        }
        #expect(storage.capacity == 1)
        #expect("\(WebPError.tooManyPixels(size: PixelSize(width: 16383, height: 16383), limit: 100_000_000))"
            == "picture is 16383x16383 (268.4 megapixels), over the limit of 100 megapixels (decode.maxPixels)")
        // Within the limit, it is still only 61x37 pixels of data: truncated, not a picture.
        #expect(throws: WebPError.self) { try decode(bytes, covering: PixelSize(width: 100, height: 100), maxPixels: 300_000_000) }
    }

    @Test("a lossless picture libwebp would hold whole is refused over the byte limit")
    func decoderByteLimit() throws {
        let bytes = try fixture("lossless.webp")
        let result = bytes.withUnsafeBytes { raw in
            Result { () throws(WebPError) in try WebPDecoder.decode(raw, covering: nil, maxPixels: .max, decoderByteLimit: 1000) }
        }
        #expect(throws: WebPError.tooLargeToDecode(size: PixelSize(width: 61, height: 37), bytes: 61 * 37 * 4, limit: 1000)) { try result.get() }
    }

    @Test func signature() throws {
        for name in Self.stills + ["animated.webp", "truncated.webp", "bomb-16383.webp"] {
            #expect(WebPDecoder.hasSignature(try fixture(name)))
        }
        #expect(!WebPDecoder.hasSignature(Array("RIFF\u{0}\u{0}\u{0}\u{0}WAVEfmt ".utf8)))
        #expect(!WebPDecoder.hasSignature([0xFF, 0xD8, 0xFF, 0xE0]))
        #expect(!WebPDecoder.hasSignature([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 0]))
        #expect(!WebPDecoder.hasSignature(Array("RIFF".utf8)))
        #expect(throws: WebPError.empty) { try decode([]) }
        #expect(throws: WebPError.notWebP) { try decode([0xFF, 0xD8, 0xFF, 0xE0, 0, 0, 0, 0, 0, 0, 0, 0]) }
    }

    @Test("a damaged header is a corrupt file")
    func damagedHeader() throws {
        var bytes = try fixture("lossy.webp")
        let at = try #require((0..<(bytes.count - 4)).first { bytes[$0..<($0 + 4)].elementsEqual("VP8 ".utf8) })
        bytes[at + 11] = 0x00 // the VP8 start code 9d 01 2a
        #expect(throws: WebPError.self) { try decode(bytes) }
        do { _ = try decode(bytes) } catch {
            #expect("\(error)".contains("WebP"))
        }
    }

    @Test("alpha is composited onto black")
    func alphaOntoBlack() throws {
        let decoded = try decode(fixture("alpha-lossless.webp"))
        #expect(decoded.image.pixels.allSatisfy { $0 >> 24 == 0xFF })
    }
}
