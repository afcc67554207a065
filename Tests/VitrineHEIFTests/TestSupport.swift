import Foundation
import Testing
import PictureTestSupport
import VitrineCore
import VitrineHEIF
import VitrinePNG
import CLibPNG

/// Fixtures/ beside this file (made by Fixtures/make-fixtures.sh; see Fixtures/SOURCES.md).
let fixtures = FixtureFolder(beside: #filePath)
let fixturesDirectory = fixtures.path

func fixture(_ name: String) throws -> [UInt8] { try fixtures.bytes(name) }

/// The picture as libheif's own `heif-convert` (libheif-examples) decodes it
/// to a PNG: RGB (16 bits for a deep picture) read back by `PNGRowReader`, or
/// 8-bit RGBA with straight alpha read by libpng's simplified API and
/// composited onto black here, each channel times alpha over 255, rounded.
func heifConvertReference(path: String) throws -> PixelImage {
    let png = try runToolWritingFile("/usr/bin/heif-convert", suffix: ".png") { ["--quiet", path, $0] }
    if let rgba = try straightRGBA(png) {
        let image = PixelImage(size: rgba.size)
        for i in 0..<rgba.size.pixelCount {
            let alpha = UInt32(rgba.bytes[i * 4 + 3])
            let over = { (channel: UInt8) in (UInt32(channel) * alpha + 127) / 255 }
            image.pixels[i] = 0xFF00_0000 | over(rgba.bytes[i * 4]) << 16 | over(rgba.bytes[i * 4 + 1]) << 8 | over(rgba.bytes[i * 4 + 2])
        }
        return image
    }
    let reader = try PNGRowReader(png)
    let image = PixelImage(size: reader.size)
    try reader.readRows(into: image.pixels.baseAddress!, count: reader.size.height)
    return image
}

/// An 8-bit PNG with alpha as straight RGBA bytes (`png_image_finish_read`
/// with `PNG_FORMAT_RGBA`: colour and alpha flags); nil for a PNG without alpha or of 16 bits.
func straightRGBA(_ png: [UInt8]) throws -> (size: PixelSize, bytes: [UInt8])? {
    var image = png_image()
    image.version = UInt32(PNG_IMAGE_VERSION)
    guard png.withUnsafeBytes({ png_image_begin_read_from_memory(&image, $0.baseAddress, $0.count) }) != 0 else {
        throw ToolFailed(description: "heif-convert wrote a PNG libpng cannot read")
    }
    defer { png_image_free(&image) }
    guard image.format & UInt32(PNG_FORMAT_FLAG_ALPHA) != 0, image.format & UInt32(PNG_FORMAT_FLAG_LINEAR) == 0 else { return nil }
    image.format = UInt32(PNG_FORMAT_FLAG_COLOR | PNG_FORMAT_FLAG_ALPHA)
    let size = PixelSize(width: Int(image.width), height: Int(image.height))
    var bytes = [UInt8](repeating: 0, count: size.pixelCount * 4)
    guard bytes.withUnsafeMutableBytes({ png_image_finish_read(&image, nil, $0.baseAddress, 0, nil) }) != 0 else {
        throw ToolFailed(description: "libpng could not read heif-convert's PNG")
    }
    return (size, bytes)
}

/// `image` with each output pixel (x, y) of `size` taken from `source(x, y)`.
func remapped(_ image: PixelImage, to size: PixelSize, source: (Int, Int) -> (Int, Int)) -> PixelImage {
    let out = PixelImage(size: size)
    for y in 0..<size.height {
        for x in 0..<size.width {
            let (sx, sy) = source(x, y)
            out[x, y] = image[sx, sy]
        }
    }
    return out
}

func decode(_ bytes: [UInt8], maxPixels: Int = 100_000_000, decoderByteLimit: Int = .max,
            into storage: PixelStorage? = nil) throws(HEIFError) -> DecodedHEIF {
    let result = bytes.withUnsafeBytes { raw in
        Result { () throws(HEIFError) in try HEIFDecoder.decode(raw, maxPixels: maxPixels, decoderByteLimit: decoderByteLimit, into: storage) }
    }
    return try result.get()
}

func info(_ bytes: [UInt8]) throws(HEIFError) -> HEIFInfo {
    try bytes.withUnsafeBytes { raw in Result { () throws(HEIFError) in try HEIFDecoder.info(raw) } }.get()
}

/// Why `bytes` are refused; nil, and an issue recorded, when they decode.
func refusal(_ bytes: [UInt8], _ name: String) -> HEIFError? {
    do throws(HEIFError) {
        let decoded = try decode(bytes)
        Issue.record("\(name) decoded to \(decoded.image.size)")
        return nil
    } catch {
        print("\(name): \(error)")
        return error
    }
}
