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
