import Foundation
import PictureTestSupport
import Testing
import VitrineCore
import VitrineHEIF

@Suite("HEIF decoding")
struct HEIFDecoderTests {
    static let source = PixelSize(width: 97, height: 61)
    static let turned = PixelSize(width: 61, height: 97)

    func reference(_ name: String) throws -> PixelImage {
        try heifConvertReference(path: fixturesDirectory + "/" + name)
    }

    @Test("every picture as heif-convert decodes it: a plain HEIC, alpha, a 10-bit one, a 2x2 grid, AVIF, turned, mirrored and cropped ones",
          arguments: ["plain.heic", "alpha.heic", "deep-10bit.heic", "grid-2x2.heic", "plain.avif", "exif-6.heic", "irot-exif-6.heic", "irot-imir.heic",
                      "clap.heic", "tile-511.heic"])
    func matchesHeifConvert(name: String) throws {
        let decoded = try decode(fixture(name))
        let reference = try reference(name)
        #expect(decoded.image.size == reference.size)
        #expect(decoded.info.size == decoded.image.size)
        let (pixels, largest) = difference(decoded.image, reference)
        print("\(name): \(decoded.image.size), \(pixels) of \(reference.size.pixelCount) pixels differ from heif-convert (largest channel difference \(largest))")
        // A 10-bit picture: heif-convert writes 16 bits, which libpng scales to 8 with rounding; libheif shifts.
        #expect(largest <= (decoded.info.bitDepth > 8 ? 1 : 0))
    }

    @Test("sizes and depth from the boxes: coded size before the transforms, shown size after")
    func infoFromBoxes() throws {
        let tile = HEIFGridLayout(largestTile: PixelSize(width: 98, height: 64), transforms: [], tileChroma: .yuv420)
        // The largest picture libheif allocates is the coded tile, 98x64, which its 1x1 grid crops.
        let tileSize = PixelSize(width: 98, height: 64)
        #expect(try info(fixture("plain.heic"))
                == HEIFInfo(size: Self.source, codedSize: Self.source, hasAlpha: false, bitDepth: 8, grid: tile, largestCanvas: tileSize))
        #expect(try info(fixture("alpha.heic")).hasAlpha)
        #expect(try info(fixture("deep-10bit.heic")).bitDepth == 10)
        #expect(try info(fixture("grid-2x2.heic")).size == PixelSize(width: 194, height: 122))
        var turnedTile = tile
        turnedTile.transforms = [.rotation(quarterTurnsAnticlockwise: 1)]
        #expect(try info(fixture("irot-exif-6.heic"))
                == HEIFInfo(size: Self.turned, codedSize: Self.source, hasAlpha: false, bitDepth: 8, grid: turnedTile, largestCanvas: tileSize))
        #expect(try info(fixture("clap.heic"))
                == HEIFInfo(size: PixelSize(width: 81, height: 45), codedSize: Self.source, hasAlpha: false, bitDepth: 8, largestCanvas: tileSize))
        // A grid's output size counts, whatever its ispe: 2x2 tiles cropped to 194x122.
        #expect(try info(fixture("grid-2x2.heic")).largestCanvas == PixelSize(width: 194, height: 122))
    }

    @Test("irot turns the picture once: its EXIF orientation (6, a quarter turn clockwise) is not applied on top")
    func irotWinsOverExif() throws {
        // exif-6.heic and irot-exif-6.heic hold the same coded picture and the
        // same EXIF (Orientation 6); only the second has irot 1 (a quarter turn anticlockwise).
        let asStored = try decode(fixture("exif-6.heic"))
        #expect(asStored.image.size == Self.source, "EXIF's orientation alone turns nothing")
        let turned = try decode(fixture("irot-exif-6.heic"))
        #expect(turned.image.size == Self.turned)
        // A quarter turn anticlockwise: the output's (x, y) is the stored (width - 1 - y, x).
        let expected = remapped(asStored.image, to: Self.turned) { x, y in (Self.source.width - 1 - y, x) }
        #expect(difference(turned.image, expected).pixels == 0)
        // Both turns (irot, then EXIF's) would put it back as stored: not so.
        #expect(turned.image.size != asStored.image.size)
    }

    @Test("irot 3 then imir 1: turned a quarter clockwise, then mirrored left to right, which is a transpose")
    func irotThenImir() throws {
        let plain = try decode(fixture("plain.heic")).image
        let decoded = try decode(fixture("irot-imir.heic")).image
        #expect(decoded.size == Self.turned)
        // irot 3 (three quarters anticlockwise): (x, y) from (y, height - 1 - x);
        // imir 1 (libheif's heif_transform_mirror_direction_horizontal): columns
        // reversed. Together: (x, y) from (y, x).
        let expected = remapped(plain, to: Self.turned) { x, y in (y, x) }
        #expect(difference(decoded, expected).pixels == 0)
    }

    @Test("alpha is composited onto black: transparent at the left edge, opaque at the right")
    func alphaOverBlack() throws {
        let decoded = try decode(fixture("alpha.heic")).image
        let plain = try decode(fixture("plain.heic")).image
        for y in [0, 30, 60] {
            #expect(decoded[0, y] & 0xFF_FFFF < 0x08_0808, "alpha 0 (coded with loss) is black")
            let (a, b) = (decoded[96, y], plain[96, y])
            for shift in [0, 8, 16] as [UInt32] {
                #expect(abs(Int((a >> shift) & 0xFF) - Int((b >> shift) & 0xFF)) <= 12, "alpha 255 is the picture itself (both coded with loss)")
            }
        }
    }

    @Test("decodeRows hands out every row once, in order, the same pixels as decode")
    func rowsMatchWhole() throws {
        for name in ["plain.heic", "grid-2x2.heic", "irot-exif-6.heic"] {
            let bytes = try fixture(name)
            let whole = try decode(bytes).image
            let rows = PixelImage(size: whole.size)
            var next = 0
            let info = try bytes.withUnsafeBytes { raw in
                try HEIFDecoder.decodeRows(raw, maxPixels: 100_000_000, strip: PixelStorage()) { strip, first, count in
                    #expect(first == next)
                    (rows.pixels.baseAddress! + first * whole.width).update(from: strip, count: count * whole.width)
                    next = first + count
                }
            }
            #expect(info.size == whole.size && next == whole.height)
            #expect(difference(rows, whole).pixels == 0)
        }
    }

    @Test("a picture over decode.maxPixels is refused from its boxes, with the same sentence as every format")
    func pixelLimit() throws {
        let bomb = try fixture("bomb-20000.heic")
        #expect(try info(bomb).size == PixelSize(width: 20000, height: 20000))
        #expect(throws: HEIFError.tooManyPixels(size: PixelSize(width: 20000, height: 20000), limit: 100_000_000)) { try decode(bomb) }
        let message = String(describing: HEIFError.tooManyPixels(size: PixelSize(width: 20000, height: 20000), limit: 100_000_000))
        #expect(message == PixelLimit.exceeded(PixelSize(width: 20000, height: 20000), limit: 100_000_000))
        #expect(throws: HEIFError.tooManyPixels(size: Self.source, limit: 5000)) { try decode(fixture("plain.heic"), maxPixels: 5000) }
    }

    @Test("a grid whose output size is over decode.maxPixels is refused from its data, whatever its ispe says")
    func gridOutputBomb() throws {
        let bytes = try fixture("grid-output-bomb.heic")
        let claimed = PixelSize(width: 20000, height: 20000)
        #expect(try info(bytes).largestCanvas == claimed)
        #expect(throws: HEIFError.tooManyPixels(size: claimed, limit: 100_000_000)) { try decode(bytes) }
    }

    @Test("a picture libheif would hold in more than the byte limit is refused before decoding")
    func byteLimit() throws {
        let bomb = try fixture("bomb-20000.heic")
        // A 1x1 grid: by the planar route, the picture's RGB planes and its 4:2:0 assembly
        // (4.5 bytes a pixel), and four 98x64 tiles at 9 bytes a pixel.
        let expectedBytes = 20000 * 20000 * 9 / 2 + 98 * 64 * 9 * 4
        #expect(HEIFDecoder.decoderBytes(try info(bomb)) == expectedBytes)
        #expect(throws: HEIFError.tooLargeToDecode(size: PixelSize(width: 20000, height: 20000), bytes: expectedBytes, limit: 256 << 20)) {
            try decode(bomb, maxPixels: 1_000_000_000, decoderByteLimit: 256 << 20)
        }
        // Alpha and depth cost more: 4 channels of 2 bytes, twice, and RGBA.
        #expect(HEIFDecoder.decoderBytes(HEIFInfo(size: Self.source, codedSize: Self.source, hasAlpha: true, bitDepth: 10))
                == Self.source.pixelCount * 20)
    }

    @Test("a truncated file is refused, never part of a picture")
    func truncated() throws {
        let error = refusal(try fixture("truncated.heic"), "truncated.heic")
        guard case .truncated(let reason)? = error else { Issue.record("expected truncated, got \(String(describing: error))"); return }
        #expect(reason.contains("libheif"))
        // Every cut of plain.heic, at every 37th byte: refused, or (never) a whole picture.
        let plain = try fixture("plain.heic")
        var refused = 0
        for length in stride(from: 1, to: plain.count, by: 37) {
            let cut = Array(plain.prefix(length))
            if let decoded = try? decode(cut) {
                Issue.record("a cut at \(length) of \(plain.count) bytes decoded to \(decoded.image.size)")
            } else {
                refused += 1
            }
        }
        print("plain.heic: \(refused) cuts refused")
        #expect(refused > 100)
    }

    @Test("a damaged slice header is refused with libheif's words, never a picture")
    func damaged() throws {
        let error = refusal(try fixture("damaged.heic"), "damaged.heic")
        guard case .corrupt(let reason)? = error else { Issue.record("expected corrupt, got \(String(describing: error))"); return }
        #expect(reason.contains("the coded picture is damaged") && reason.contains("libheif"))
    }

    @Test("sniffed by the ftyp box's brands only")
    func signature() throws {
        func ftyp(_ major: String, _ compatible: [String]) -> [UInt8] {
            let body = Array(major.utf8) + [0, 0, 0, 0] + compatible.flatMap { Array($0.utf8) }
            return [0, 0, 0, UInt8(8 + body.count)] + Array("ftyp".utf8) + body
        }
        for name in ["plain.heic", "alpha.heic", "grid-2x2.heic", "plain.avif", "bomb-20000.heic"] {
            #expect(HEIFDecoder.hasSignature(try fixture(name)), "\(name)")
        }
        #expect(HEIFDecoder.hasSignature(ftyp("heic", [])))
        #expect(HEIFDecoder.hasSignature(ftyp("mif1", ["heic"])))
        #expect(HEIFDecoder.hasSignature(ftyp("xxxx", ["isom", "msf1"])))
        #expect(!HEIFDecoder.hasSignature(ftyp("isom", ["isom", "iso2", "mp41"])), "an MP4 movie")
        #expect(!HEIFDecoder.hasSignature(ftyp("qt  ", ["qt  "])), "a QuickTime movie")
        // The minor version is not a brand.
        var minor = ftyp("isom", ["mp41"])
        minor.replaceSubrange(12..<16, with: Array("heic".utf8))
        #expect(!HEIFDecoder.hasSignature(minor))
        #expect(!HEIFDecoder.hasSignature(Array("\u{89}PNG\r\n\u{1A}\n".utf8)))
        #expect(!HEIFDecoder.hasSignature([UInt8]()))
        #expect(throws: HEIFError.notHEIF) { try decode(Array("RIFF\0\0\0\0WEBPVP8 ".utf8)) }
        #expect(throws: HEIFError.empty) { try decode([]) }
    }

    @Test("decodes into reused storage")
    func reusedStorage() throws {
        let storage = PixelStorage()
        let first = try decode(fixture("grid-2x2.heic"), into: storage)
        #expect(first.image.storage === storage)
        let image = first.image
        let copy = PixelImage(size: image.size)
        copy.pixels.baseAddress!.update(from: image.pixels.baseAddress!, count: image.size.pixelCount)
        _ = consume first
        _ = consume image
        let again = try decode(fixture("grid-2x2.heic"), into: storage)
        #expect(difference(again.image, copy).pixels == 0)
    }
}
