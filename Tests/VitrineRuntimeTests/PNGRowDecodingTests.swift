import Foundation
import PictureTestSupport
import Testing
import VitrineCore
import VitrinePNG
@testable import VitrineRuntime
import VitrineSystem

/// A PNG is framed row by row as libpng decodes it (`PNGRowReader`); the frame
/// must be the one decoding it whole with libpng's simplified API makes, for
/// every colour type and bit depth (PNGFixtures/make-fixtures.py) and fit.
@Suite("PNG decoding row by row")
struct PNGRowDecodingTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("PNGFixtures").path
    static let pictures = ["gray-1bit.png", "gray-8bit.png", "gray-16bit.png", "gray-alpha-8bit.png", "rgb-8bit.png",
                           "rgb-8bit-gamma-1.0.png", "rgb-16bit.png", "rgba-8bit.png", "rgba-16bit.png", "palette-4bit-trns.png",
                           "palette-8bit.png", "rgb-8bit-interlaced.png"]

    /// The largest difference of any channel of any pixel between the two.
    static func difference(_ a: PixelImage, _ b: PixelImage) -> Int {
        var worst = 0
        for i in 0..<a.size.pixelCount {
            for shift in [0, 8, 16] {
                worst = max(worst, abs(Int((a.pixels[i] >> UInt32(shift)) & 0xFF) - Int((b.pixels[i] >> UInt32(shift)) & 0xFF)))
            }
        }
        return worst
    }

    /// The picture read whole by the same reader (`readImage`).
    static func whole(_ bytes: [UInt8]) throws -> PixelImage {
        let reader = try PNGRowReader(bytes)
        let image = PixelImage(size: reader.size)
        try reader.readImage(into: image)
        return image
    }

    @Test("framed as it decodes: the same frame as framing the whole picture", arguments: pictures)
    func rowsMakeTheWholePicturesFrame(name: String) throws {
        let path = Self.fixtures + "/" + name
        let whole = try Self.whole(try FileIO.read(path))
        #expect(whole.size == PixelSize(width: 61, height: 37))
        for output in [PixelSize(width: 40, height: 30), PixelSize(width: 200, height: 90), PixelSize(width: 61, height: 37)] {
            for fit in FitMode.allCases {
                let request = SlideRequest(file: name, resolvedPath: path, fit: fit, background: RGBAColor(red: 10, green: 20, blue: 30),
                                           output: output, maxPixels: 100_000_000)
                let streamed = try SlideDecoding.frame(for: request, workspace: SlideDecodingWorkspace())
                let expected = PixelImage(size: output)
                SlideFramer.frame(decoded: whole, orientation: .up, fit: fit, background: request.background, into: expected.canvas)
                #expect(Self.difference(streamed, expected) == 0, "\(name) \(fit) at \(output)")
            }
        }
    }

    /// make-fixtures.py's sample value.
    static func sample(_ x: Int, _ y: Int, _ channel: Int, _ maximum: Int) -> Int {
        (((x * 7 + y * 13 + channel * 53) * 2_654_435_761) >> 7) % (maximum + 1)
    }

    /// 8-bit pictures get the simplified API's pixels (a file gamma converted
    /// to sRGB alike, within one step of rounding), interlaced ones too.
    @Test func eightBitPixelsAreTheSimplifiedAPIs() throws {
        for name in Self.pictures where !name.contains("16bit") {
            let bytes = try FileIO.read(Self.fixtures + "/" + name)
            let simplified = try PNGCodec.decode(bytes)
            let reader = try PNGRowReader(bytes)
            let rows = PixelImage(size: reader.size)
            if reader.isInterlaced {
                try reader.readImage(into: rows)
            } else {
                try reader.readRows(into: rows.pixels.baseAddress!, count: 10)
                try reader.readRows(into: rows.pixels.baseAddress! + 10 * reader.size.width, count: reader.size.height - 10)
            }
            #expect(Self.difference(rows, simplified) <= (name.contains("gamma") ? 1 : 0), "\(name)")
            #expect((0..<rows.size.pixelCount).allSatisfy { rows.pixels[$0] >> 24 == 0xFF }, "\(name): X is 0xFF")
        }
    }

    /// A 16-bit file without gAMA is sRGB data, scaled to 8 bits by rounding
    /// (v / 257), as a browser shows it: exactly the samples written.
    @Test func sixteenBitPixelsAreTheSamplesScaled() throws {
        for (name, channels) in [("gray-16bit.png", 1), ("rgb-16bit.png", 3), ("rgba-16bit.png", 3)] {
            let rows = try Self.whole(try FileIO.read(Self.fixtures + "/" + name))
            var wrong = 0
            for y in 0..<37 {
                for x in 0..<61 {
                    let pixel = rows.pixels[y * 61 + x]
                    let (r, g, b) = (Int(pixel >> 16 & 0xFF), Int(pixel >> 8 & 0xFF), Int(pixel & 0xFF))
                    let expected = (0..<3).map { Int((Double(Self.sample(x, y, channels == 1 ? 0 : $0, 65535)) / 257).rounded()) }
                    if [r, g, b] != expected { wrong += 1 }
                }
            }
            #expect(wrong == 0, "\(name): \(wrong) pixels differ from the samples")
        }
    }

    /// Damage anywhere is an error naming what libpng found, never a crash
    /// (libpng's longjmp stays in C): a cut file, a bad CRC in the data, a
    /// header too large, garbage after the signature.
    @Test func damageIsAnError() throws {
        let bytes = try FileIO.read(Self.fixtures + "/rgb-8bit.png")
        var badCRC = bytes
        let idat = try #require((0..<bytes.count - 4).first { bytes[$0..<$0 + 4].elementsEqual(Array("IDAT".utf8)) })
        badCRC[idat + 40] ^= 0x55
        for (label, damaged) in [("cut", Array(bytes.prefix(bytes.count / 2))), ("bad data", badCRC),
                                 ("garbage", Array(bytes.prefix(8)) + [UInt8](repeating: 7, count: 100))] {
            let request = SlideRequest(file: "damaged.png", resolvedPath: nil, fit: .contain, background: .black,
                                       output: PixelSize(width: 32, height: 18), maxPixels: 100_000_000)
            do {
                _ = try SlideDecoding.frame(from: damaged, request: request, workspace: SlideDecodingWorkspace())
                Issue.record("\(label): decoded")
            } catch {
                #expect("\(error)".contains("damaged.png") && "\(error)".contains("PNG"), "\(label): \(error)")
            }
        }
    }

    /// A decompression bomb: 10000x10000 black pixels, 400 MB as XRGB, in a
    /// 1.9 MB file, within the default decode.maxPixels. Framed row by row it
    /// costs a strip, not the picture: the process's peak resident memory grows
    /// by far less than the picture. 20000x20000 is refused by its header.
    @Test func aHundredMegapixelPNGBombIsFramedInAStrip() throws {
        // Alone: the peak is the process's, and other tests' large decodes would count in it.
        try PeakMemoryLock.exclusively { try frameBombInAStrip() }
    }

    private func frameBombInAStrip() throws {
        let bytes = PNGBomb.black(width: 10_000, height: 10_000)
        #expect(bytes.count < 2 << 20)
        let before = PNGBomb.peakResidentKiB()
        let request = SlideRequest(file: "bomb.png", resolvedPath: nil, fit: .contain, background: RGBAColor(red: 255, green: 255, blue: 255),
                                   output: PixelSize(width: 320, height: 240), maxPixels: 100_000_000)
        let frame = try SlideDecoding.frame(from: bytes, request: request, workspace: SlideDecodingWorkspace())
        #expect(frame.pixels[120 * 320 + 160] & 0xFF_FFFF == 0, "the picture's middle is black")
        #expect(frame.pixels[0] & 0xFF_FFFF == 0xFF_FFFF, "the bars are the background")
        let grown = PNGBomb.peakResidentKiB() - before
        #expect(grown < 64 << 10, "peak RSS grew by \(grown) KiB framing a 400 MB picture")
        // The upload inspection reads it the same way.
        #expect(try ImageInspectionProbe.rows(bytes) == 10_000)

        let twenty = PNGBomb.black(width: 20_000, height: 20_000)
        do {
            _ = try SlideDecoding.frame(from: twenty, request: request, workspace: SlideDecodingWorkspace())
            Issue.record("20000x20000 was decoded")
        } catch {
            #expect("\(error)".contains("bomb.png") && "\(error)".contains("20000x20000"), "\(error)")
        }
    }

    @Test func anInterlacedPictureOverTheWholePictureLimitIsRefusedNamingIt() throws {
        #expect(throws: PNGError.self) { try SlideDecoding.requireWholeDecodeFits(PixelSize(width: 9000, height: 9000), what: "an interlaced PNG") }
        #expect(throws: Never.self) { try SlideDecoding.requireWholeDecodeFits(PixelSize(width: 8000, height: 8000), what: "an interlaced PNG") }
        do {
            try SlideDecoding.requireWholeDecodeFits(PixelSize(width: 9000, height: 9000), what: "an interlaced PNG")
        } catch {
            #expect(error.message.contains("9000x9000") && error.message.contains("309 MiB") && error.message.contains("256 MiB"), "\(error)")
        }
    }
}

/// Reads every row of a PNG as the upload inspection does; returns how many.
enum ImageInspectionProbe {
    static func rows(_ bytes: [UInt8]) throws -> Int {
        let reader = try PNGRowReader(bytes, maxPixels: 100_000_000)
        var rows = 0
        try SlideDecoding.readRows(of: reader, strip: PixelStorage()) { _, _, count in rows += count }
        return rows
    }
}

/// Large, highly compressible PNGs made in the test (zlib through libpng's
/// own writer is not reachable from Swift; a stored PNG of this size is what
/// the test is about, so it is built with deflate's fixed-Huffman blocks by hand).
enum PNGBomb {
    static func black(width: Int, height: Int) -> [UInt8] {
        // Each row is a filter byte 0 and width*3 zero bytes: one literal 0, then
        // matches of 258 bytes at distance 1 in a fixed-Huffman block (13 bits
        // each). Eight matches are 13 whole bytes, so once the bits are byte
        // aligned the stream is that block repeated.
        let total = height * (1 + width * 3)
        var bits = BitWriter()
        bits.write(0b011, count: 3)  // BFINAL = 1, BTYPE = 01 (fixed Huffman), least significant bit first
        bits.literal(0)
        var remaining = total - 1
        while bits.used != 0 && remaining >= 258 {
            bits.match(258)
            remaining -= 258
        }
        var block = BitWriter()
        for _ in 0..<8 { block.match(258) }
        let repeats = remaining / (258 * 8)
        bits.bytes.reserveCapacity(bits.bytes.count + repeats * block.bytes.count + 16)
        for _ in 0..<repeats { bits.bytes += block.bytes }
        remaining -= repeats * 258 * 8
        while remaining > 0 {
            if remaining >= 3 {
                let length = min(258, remaining)
                bits.match(length)
                remaining -= length
            } else {
                bits.literal(0)
                remaining -= 1
            }
        }
        bits.fixedCode(256)  // end of block
        var zlib: [UInt8] = [0x78, 0x01] + bits.flushed
        let adler = adler32Zeros(total)
        zlib += [UInt8(adler >> 24), UInt8(adler >> 16 & 0xFF), UInt8(adler >> 8 & 0xFF), UInt8(adler & 0xFF)]
        var header: [UInt8] = []
        for value in [UInt32(width), UInt32(height)] { header += [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }
        header += [8, 2, 0, 0, 0]
        return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", header) + chunk("IDAT", zlib) + chunk("IEND", [])
    }

    /// Adler-32 of `count` zero bytes: a = 1, b = count (mod 65521).
    static func adler32Zeros(_ count: Int) -> UInt32 { UInt32(count % 65521) << 16 | 1 }

    static func chunk(_ kind: String, _ data: [UInt8]) -> [UInt8] {
        let typed = Array(kind.utf8) + data
        let crc = crc32(typed)
        let length = UInt32(data.count)
        return [UInt8(length >> 24), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)] + typed
            + [UInt8(crc >> 24), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc & 0xFF)]
    }

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    /// VmHWM from /proc/self/status.
    static func peakResidentKiB() -> Int {
        let text = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        let line = text.split(separator: "\n").first { $0.hasPrefix("VmHWM:") } ?? ""
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }

    /// Deflate's bit order: values LSB first, Huffman codes MSB first.
    struct BitWriter {
        var bytes: [UInt8] = []
        var current: UInt32 = 0
        var used = 0

        mutating func write(_ value: UInt32, count: Int) {
            for i in 0..<count { push((value >> UInt32(i)) & 1) }
        }

        mutating func push(_ bit: UInt32) {
            current |= bit << UInt32(used)
            used += 1
            if used == 8 { bytes.append(UInt8(current)); current = 0; used = 0 }
        }

        /// A fixed-Huffman code for a literal/length symbol, most significant bit first.
        mutating func fixedCode(_ symbol: Int) {
            let (code, length): (Int, Int) = switch symbol {
            case 0...143: (0x30 + symbol, 8)
            case 144...255: (0x190 + symbol - 144, 9)
            case 256...279: (symbol - 256, 7)
            default: (0xC0 + symbol - 280, 8)
            }
            for i in stride(from: length - 1, through: 0, by: -1) { push(UInt32((code >> i) & 1)) }
        }

        mutating func literal(_ byte: Int) { fixedCode(byte) }

        /// A match of `length` bytes at distance 1 (distance code 0: five zero bits).
        mutating func match(_ length: Int) {
            self.length(length)
            write(0, count: 5)
        }

        /// A match length (3...258): its symbol, then its extra bits.
        mutating func length(_ length: Int) {
            let bases = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258]
            let extras = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0]
            let index = bases.lastIndex { $0 <= length }!
            fixedCode(257 + index)
            write(UInt32(length - bases[index]), count: extras[index])
        }

        var flushed: [UInt8] { used > 0 ? bytes + [UInt8(current)] : bytes }
    }
}
