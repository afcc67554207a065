/// Per-pixel blending of XRGB8888 values.
public enum PixelBlend {
    /// `source` over `destination` with `alpha256` in 0...256 (256 is opaque).
    /// Red and blue are blended together in one multiply, green in another.
    @inline(__always)
    public static func blend(_ source: UInt32, over destination: UInt32, alpha256: UInt32) -> UInt32 {
        let inverse = 256 &- alpha256
        let redBlue = (((source & 0x00FF_00FF) &* alpha256 &+ (destination & 0x00FF_00FF) &* inverse) >> 8) & 0x00FF_00FF
        let green = (((source & 0x0000_FF00) &* alpha256 &+ (destination & 0x0000_FF00) &* inverse) >> 8) & 0x0000_FF00
        return 0xFF00_0000 | redBlue | green
    }

    /// Blends `count` pixels: `output[i] = top[i] over bottom[i]` at `alpha256`.
    /// `output` may be the same memory as `bottom`.
    @inline(__always)
    public static func blendRow(top: UnsafePointer<UInt32>, bottom: UnsafePointer<UInt32>,
                                output: UnsafeMutablePointer<UInt32>, count: Int, alpha256: UInt32) {
        for i in 0..<count {
            output[i] = blend(top[i], over: bottom[i], alpha256: alpha256)
        }
    }
}

extension PixelBlend {
    /// `color` at `alpha` (0...255) over the premultiplied `argb8888` pixel
    /// `destination`, premultiplied: what an overlay plane's buffer holds.
    public static func premultipliedOver(color: RGBAColor, alpha: UInt32, destination: UInt32) -> UInt32 {
        let inverse = 255 - alpha
        func channel(_ source: UInt8, _ shift: UInt32) -> UInt32 {
            let below = (destination >> shift) & 0xFF
            return min(255, (UInt32(source) * alpha + 127) / 255 + (below * inverse + 127) / 255) << shift
        }
        let a = min(255, alpha + ((destination >> 24) * inverse + 127) / 255)
        return (a << 24) | channel(color.red, 16) | channel(color.green, 8) | channel(color.blue, 0)
    }

    /// The premultiplied `argb8888` pixel `source` over the opaque `destination`,
    /// as a display blends a plane with the default `Pre-multiplied` blend mode.
    public static func premultipliedOver(_ source: UInt32, destination: UInt32) -> UInt32 {
        let inverse = 255 - (source >> 24)
        func channel(_ shift: UInt32) -> UInt32 {
            min(255, ((source >> shift) & 0xFF) + (((destination >> shift) & 0xFF) * inverse + 127) / 255) << shift
        }
        return 0xFF00_0000 | channel(16) | channel(8) | channel(0)
    }

    /// `source` over `destination` at a plane's 16-bit `alpha` (0...0xFFFF),
    /// as a display blends a plane's opacity.
    public static func blend(_ source: UInt32, over destination: UInt32, alpha16: UInt32) -> UInt32 {
        let inverse = 65535 - alpha16
        func channel(_ shift: UInt32) -> UInt32 {
            ((((source >> shift) & 0xFF) * alpha16 + ((destination >> shift) & 0xFF) * inverse + 32767) / 65535) << shift
        }
        return 0xFF00_0000 | channel(16) | channel(8) | channel(0)
    }
}
