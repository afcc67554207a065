/// The pan and zoom a seed chooses for a picture (`kenBurns: {seed, zoom}`):
/// the same seed and picture give the same two rectangles on every kiosk, and
/// other pictures under the same seed move differently.
public enum KenBurnsChoice {
    /// One end is the closest view, at `zoom`; the other a wider one, between
    /// 1x and halfway to `zoom`; each at a random place inside the frame, and
    /// zooming in or out at random. `picture` is the slide's source as the
    /// configuration names it, so a picture moves the same wherever it shows.
    public static func rectangles(seed: UInt32, zoom: Double, picture: String) -> (from: FrameRect, to: FrameRect) {
        var random = SplitMix64(seed: (UInt64(seed) << 32) ^ fnv1a(picture))
        let zoom = min(max(zoom, 1), KenBurns.largestZoom)
        let wide = 1 + (zoom - 1) * 0.5 * random.unit()
        func placed(at zoom: Double) -> FrameRect {
            let side = 1 / zoom
            return FrameRect(x: (1 - side) * random.unit(), y: (1 - side) * random.unit(), width: side, height: side)
        }
        let far = placed(at: wide), near = placed(at: zoom)
        return random.next() & 1 == 0 ? (far, near) : (near, far)
    }

    /// FNV-1a (64 bits) of the text's UTF-8: a hash that, unlike `Hasher`, is
    /// the same in every process.
    static func fnv1a(_ text: String) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01B3
        }
        return hash
    }
}
