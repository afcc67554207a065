internal import CLibHEIF
import VitrineCore

// The decoded picture's rows, as HEIFDecoder hands them out: libheif's
// interleaved plane (its own route) or its planar RGB (the planar route for
// large tiled pictures), converted to XRGB8888 a strip at a time.

/// A decoded picture that gives its rows as XRGB8888, upright, alpha composited onto black.
protocol DecodedRows {
    /// Rows `rows` of the shown picture, packed, at `output`.
    func convert(rows: Range<Int>, into output: UnsafeMutablePointer<UInt32>)
}

/// Straight alpha over black: each channel times alpha over 255, rounded;
/// premultiplied alpha is over black already.
@inline(__always)
func overBlack(_ channel: UInt8, alpha: UInt32, premultiplied: Bool) -> UInt32 {
    premultiplied ? UInt32(channel) : (UInt32(channel) * alpha + 127) / 255
}

/// libheif's decoded interleaved plane: RGB, or RGBA (straight or premultiplied).
struct DecodedPlane: DecodedRows {
    let base: UnsafePointer<UInt8>
    /// Bytes from one row to the next.
    let stride: Int
    let width: Int
    let hasAlpha: Bool
    let premultiplied: Bool

    /// The interleaved plane of `image` (`heif_image_get_plane_readonly`), which must be `info.size`.
    init(_ image: OpaquePointer, info: HEIFInfo) throws(HEIFError) {
        let width = Int(heif_image_get_width(image, heif_channel_interleaved))
        let height = Int(heif_image_get_height(image, heif_channel_interleaved))
        guard width == info.size.width, height == info.size.height else {
            throw .corrupt("the picture decoded to \(width)x\(height), but its boxes say \(info.size)")
        }
        var stride: Int32 = 0
        guard let base = heif_image_get_plane_readonly(image, heif_channel_interleaved, &stride), Int(stride) >= width * (info.hasAlpha ? 4 : 3) else {
            throw .corrupt("the decoded picture has no interleaved plane")
        }
        self.base = base
        self.stride = Int(stride)
        self.width = width
        hasAlpha = info.hasAlpha
        premultiplied = heif_image_is_premultiplied_alpha(image) != 0
    }

    func convert(rows: Range<Int>, into output: UnsafeMutablePointer<UInt32>) {
        var out = output
        for y in rows {
            let row = base + y * stride
            if !hasAlpha {
                for x in 0..<width {
                    let p = row + x * 3
                    out[x] = 0xFF00_0000 | UInt32(p[0]) << 16 | UInt32(p[1]) << 8 | UInt32(p[2])
                }
            } else {
                for x in 0..<width {
                    let p = row + x * 4
                    let alpha = UInt32(p[3])
                    out[x] = 0xFF00_0000 | overBlack(p[0], alpha: alpha, premultiplied: premultiplied) << 16
                        | overBlack(p[1], alpha: alpha, premultiplied: premultiplied) << 8 | overBlack(p[2], alpha: alpha, premultiplied: premultiplied)
                }
            }
            out += width
        }
    }
}

/// A tiled picture as libheif assembled it, untransformed: planar R, G, B
/// (and alpha), one byte a sample, read through the file's `irot` and `imir`
/// (`HEIFPixelMap`). A quarter turn reads each shown row down a column of the
/// planes: slower than a row (a cache line a pixel), but no copy of the picture.
struct DecodedPlanes: DecodedRows {
    let red: UnsafePointer<UInt8>, green: UnsafePointer<UInt8>, blue: UnsafePointer<UInt8>
    let alpha: UnsafePointer<UInt8>?
    let strides: (red: Int, green: Int, blue: Int, alpha: Int)
    let map: HEIFPixelMap
    let premultiplied: Bool

    /// The planes of `image` (`heif_image_get_plane_readonly` of `heif_channel_R`,
    /// `_G`, `_B`, `_Alpha`), which must be 8-bit and `info.codedSize`, and
    /// turn to `info.size`.
    init(_ image: OpaquePointer, info: HEIFInfo, layout: HEIFGridLayout) throws(HEIFError) {
        func plane(_ channel: heif_channel, _ name: String) throws(HEIFError) -> (UnsafePointer<UInt8>, Int) {
            let width = Int(heif_image_get_width(image, channel))
            let height = Int(heif_image_get_height(image, channel))
            guard width == info.codedSize.width, height == info.codedSize.height else {
                throw .corrupt("the tiled picture's \(name) plane decoded to \(width)x\(height), but its boxes say \(info.codedSize)")
            }
            guard heif_image_get_bits_per_pixel(image, channel) == 8 else {
                throw .unsupported("the tiled picture's \(name) plane decoded to \(heif_image_get_bits_per_pixel(image, channel)) bits a sample, not 8")
            }
            var stride: Int32 = 0
            guard let base = heif_image_get_plane_readonly(image, channel, &stride), Int(stride) >= width else {
                throw .corrupt("the decoded tiled picture has no \(name) plane")
            }
            return (base, Int(stride))
        }
        let (red, redStride) = try plane(heif_channel_R, "red")
        let (green, greenStride) = try plane(heif_channel_G, "green")
        let (blue, blueStride) = try plane(heif_channel_B, "blue")
        var alphaPlane: (UnsafePointer<UInt8>, Int)?
        if info.hasAlpha { alphaPlane = try plane(heif_channel_Alpha, "alpha") }
        let map = HEIFPixelMap(decodedSize: info.codedSize, transforms: layout.transforms)
        guard map.shownSize == info.size else {
            throw .corrupt("the tiled picture turns to \(map.shownSize) by its irot and imir, but libheif says \(info.size)")
        }
        self.red = red
        self.green = green
        self.blue = blue
        alpha = alphaPlane?.0
        strides = (redStride, greenStride, blueStride, alphaPlane?.1 ?? 0)
        self.map = map
        premultiplied = heif_image_is_premultiplied_alpha(image) != 0
    }

    func convert(rows: Range<Int>, into output: UnsafeMutablePointer<UInt32>) {
        let width = map.shownSize.width
        var out = output
        for y in rows {
            let r = map.rowOffsets(y: y, stride: strides.red)
            let g = map.rowOffsets(y: y, stride: strides.green)
            let b = map.rowOffsets(y: y, stride: strides.blue)
            if let alpha {
                let a = map.rowOffsets(y: y, stride: strides.alpha)
                for x in 0..<width {
                    let opacity = UInt32(alpha[a.first + x * a.step])
                    out[x] = 0xFF00_0000 | overBlack(red[r.first + x * r.step], alpha: opacity, premultiplied: premultiplied) << 16
                        | overBlack(green[g.first + x * g.step], alpha: opacity, premultiplied: premultiplied) << 8
                        | overBlack(blue[b.first + x * b.step], alpha: opacity, premultiplied: premultiplied)
                }
            } else {
                for x in 0..<width {
                    out[x] = 0xFF00_0000 | UInt32(red[r.first + x * r.step]) << 16
                        | UInt32(green[g.first + x * g.step]) << 8 | UInt32(blue[b.first + x * b.step])
                }
            }
            out += width
        }
    }
}
