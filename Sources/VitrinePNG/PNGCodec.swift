import CLibPNG
import VitrineCore

/// Why PNG encoding or decoding failed; the text is libpng's own message.
public struct PNGError: Error, Hashable, Sendable, CustomStringConvertible {
    public var message: String
    public var description: String { "PNG: \(message)" }

    public init(message: String) { self.message = message }
}

/// PNG files through libpng's simplified API (`png_image_*`).
///
/// The simplified API reports errors in `png_image.message` instead of
/// `longjmp`, which Swift cannot survive; that is why it is used here rather than
/// `png_create_write_struct`.
public enum PNGCodec {
    /// Encodes an XRGB8888 picture as an 8-bit RGB PNG (`png_image_write_to_memory`).
    /// `fast` trades file size for speed (`PNG_IMAGE_FLAG_FAST`), for live previews.
    public static func encode(_ image: PixelImage, fast: Bool = false) throws(PNGError) -> [UInt8] {
        let rgb = packRGB(image)
        var png = makeImage(size: image.size, format: UInt32(PNG_FORMAT_RGB))
        if fast { png.flags |= UInt32(PNG_IMAGE_FLAG_FAST) }
        var size = 0
        // First call with no buffer to learn the size, then write.
        guard rgb.withUnsafeBytes({ png_image_write_to_memory(&png, nil, &size, 0, $0.baseAddress, 0, nil) }) != 0 else {
            throw PNGError(message: message(of: &png))
        }
        var output = [UInt8](repeating: 0, count: size)
        let status = output.withUnsafeMutableBytes { out in
            rgb.withUnsafeBytes { png_image_write_to_memory(&png, out.baseAddress, &size, 0, $0.baseAddress, 0, nil) }
        }
        guard status != 0 else { throw PNGError(message: message(of: &png)) }
        return Array(output.prefix(size))
    }

    /// Whether `bytes` start with the PNG signature.
    public static func hasSignature(_ bytes: some Collection<UInt8>) -> Bool {
        bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
    }

    /// The stored size, read from the header alone (`png_image_begin_read_from_memory`).
    public static func size(of bytes: [UInt8]) throws(PNGError) -> PixelSize {
        var png = png_image()
        png.version = UInt32(PNG_IMAGE_VERSION)
        let began = bytes.withUnsafeBytes { png_image_begin_read_from_memory(&png, $0.baseAddress, $0.count) }
        guard began != 0 else { throw PNGError(message: message(of: &png)) }
        defer { png_image_free(&png) }
        return PixelSize(width: Int(png.width), height: Int(png.height))
    }

    /// Decodes any PNG into XRGB8888, compositing alpha onto black
    /// (`png_image_begin_read_from_memory`, `png_image_finish_read`).
    /// A picture of more than `maxPixels` is refused before its pixels are allocated.
    public static func decode(_ bytes: [UInt8], maxPixels: Int = .max) throws(PNGError) -> PixelImage {
        var png = png_image()
        png.version = UInt32(PNG_IMAGE_VERSION)
        let began = bytes.withUnsafeBytes { png_image_begin_read_from_memory(&png, $0.baseAddress, $0.count) }
        guard began != 0 else { throw PNGError(message: message(of: &png)) }
        defer { png_image_free(&png) }
        guard Int(png.width) * Int(png.height) <= maxPixels else {
            throw PNGError(message: "\(png.width)x\(png.height) is more than the limit of \(maxPixels) pixels")
        }
        png.format = UInt32(PNG_FORMAT_BGRA)
        let image = PixelImage(size: PixelSize(width: Int(png.width), height: Int(png.height)))
        var background = png_color(red: 0, green: 0, blue: 0)
        let finished = png_image_finish_read(&png, &background, image.pixels.baseAddress, 0, nil)
        guard finished != 0 else { throw PNGError(message: message(of: &png)) }
        for i in 0..<image.size.pixelCount { image.pixels[i] |= 0xFF00_0000 }
        return image
    }

    private static func makeImage(size: PixelSize, format: UInt32) -> png_image {
        var png = png_image()
        png.version = UInt32(PNG_IMAGE_VERSION)
        png.width = UInt32(size.width)
        png.height = UInt32(size.height)
        png.format = format
        return png
    }

    private static func message(of png: inout png_image) -> String {
        withUnsafeBytes(of: &png.message) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
    }

    private static func packRGB(_ image: PixelImage) -> [UInt8] {
        var rgb = [UInt8](repeating: 0, count: image.size.pixelCount * 3)
        rgb.withUnsafeMutableBufferPointer { out in
            for i in 0..<image.size.pixelCount {
                let pixel = image.pixels[i]
                out[i * 3] = UInt8(truncatingIfNeeded: pixel >> 16)
                out[i * 3 + 1] = UInt8(truncatingIfNeeded: pixel >> 8)
                out[i * 3 + 2] = UInt8(truncatingIfNeeded: pixel)
            }
        }
        return rgb
    }
}
