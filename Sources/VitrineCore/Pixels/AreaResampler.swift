/// Resamples XRGB8888 pictures with a separable filter: an exact area average
/// (box filter with fractional pixel coverage) when shrinking, and bilinear
/// interpolation when enlarging.
///
/// The decoder has already shrunk the picture by the largest DCT scaling factor
/// that still covers the target, so this step is always a ratio between 1x and
/// 2x when shrinking; an area average is then alias-free and cheap.
public enum AreaResampler {
    /// Weights are fixed point with this many fractional bits; 14 keeps
    /// 255 × weight × taps far inside `Int32`.
    static let weightBits: Int32 = 14

    public static func resample(_ source: PixelImage, to target: PixelSize) -> PixelImage {
        resample(source, region: SourceRegion(x: 0, y: 0, width: Double(source.width), height: Double(source.height)), to: target)
    }

    /// A rectangle of the source in fractional pixels: the part to be resampled.
    public struct SourceRegion: Hashable, Sendable {
        public var x: Double, y: Double, width: Double, height: Double
        public init(x: Double, y: Double, width: Double, height: Double) {
            self.x = x
            self.y = y
            self.width = width
            self.height = height
        }
    }

    /// Resamples the `region` of `source` to `target`; the region may have
    /// fractional edges (a crop of a picture being scaled).
    public static func resample(_ source: PixelImage, region: SourceRegion, to target: PixelSize) -> PixelImage {
        precondition(!target.isEmpty, "resample target \(target) is empty")
        let whole = region == SourceRegion(x: 0, y: 0, width: Double(source.width), height: Double(source.height))
        if whole && source.size == target {
            let copy = PixelImage(size: target)
            _ = copy.pixels.initialize(from: source.pixels)
            return copy
        }
        // Horizontal pass into an intermediate of the target width and the source
        // height, then vertical; each pass is skipped when its axis is unchanged.
        let horizontal: PixelImage
        if source.width == target.width && region.x == 0 && region.width == Double(source.width) {
            horizontal = source
        } else {
            horizontal = PixelImage(size: PixelSize(width: target.width, height: source.height))
            let taps = FilterTaps(start: region.x, length: region.width, limit: source.width, targetLength: target.width)
            for y in 0..<source.height {
                filterRow(
                    source: source.pixels.baseAddress! + y * source.width,
                    target: horizontal.pixels.baseAddress! + y * target.width,
                    taps: taps)
            }
        }
        if horizontal.height == target.height && region.y == 0 && region.height == Double(source.height) { return horizontal }
        let result = PixelImage(size: target)
        filterColumns(source: horizontal, target: result,
                      taps: FilterTaps(start: region.y, length: region.height, limit: horizontal.height, targetLength: target.height))
        return result
    }

    /// For each target position along one axis: the first source index, the number
    /// of source pixels it draws from, and their weights.
    struct FilterTaps {
        var starts: [Int32]
        var counts: [Int32]
        var weights: [Int32]
        var maxTaps: Int

        /// Taps mapping `targetLength` pixels onto the source span
        /// [`start`, `start + length`) of a line `limit` pixels long.
        init(start: Double, length: Double, limit sourceLength: Int, targetLength: Int) {
            let scale = length / Double(targetLength)
            var lists: [(start: Int, weights: [Double])] = []
            lists.reserveCapacity(targetLength)
            for i in 0..<targetLength {
                if scale >= 1 {
                    // Area average: each source pixel weighs what it overlaps of [left, right).
                    let left = start + Double(i) * scale, right = start + Double(i + 1) * scale
                    let first = min(max(Int(left.rounded(.down)), 0), sourceLength - 1)
                    let last = min(max(first, Int(right.rounded(.up)) - 1), sourceLength - 1)
                    var ws: [Double] = []
                    for j in first...max(first, last) {
                        ws.append(max(0, min(right, Double(j + 1)) - max(left, Double(j))))
                    }
                    lists.append((first, ws))
                } else {
                    // Bilinear between the two nearest source centres, clamped at the edges.
                    let centre = start + (Double(i) + 0.5) * scale - 0.5
                    let below = Int(centre.rounded(.down))
                    let fraction = centre - Double(below)
                    let a = min(max(below, 0), sourceLength - 1)
                    let b = min(max(below + 1, 0), sourceLength - 1)
                    lists.append(a == b ? (a, [1]) : (a, [1 - fraction, fraction]))
                }
            }
            maxTaps = lists.map(\.weights.count).max() ?? 1
            starts = []
            counts = []
            weights = []
            starts.reserveCapacity(targetLength)
            counts.reserveCapacity(targetLength)
            weights.reserveCapacity(targetLength * maxTaps)
            let one = Double(1 << AreaResampler.weightBits)
            for (start, ws) in lists {
                let total = ws.reduce(0, +)
                var fixed = total > 0 ? ws.map { Int32(($0 / total * one).rounded()) } : [Int32(one)]
                // Put the rounding residue on the heaviest tap so weights sum to exactly one.
                let residue = Int32(one) - fixed.reduce(0, +)
                if let heaviest = fixed.indices.max(by: { fixed[$0] < fixed[$1] }) { fixed[heaviest] += residue }
                starts.append(Int32(start))
                counts.append(Int32(fixed.count))
                weights.append(contentsOf: fixed)
                weights.append(contentsOf: repeatElement(0, count: maxTaps - fixed.count))
            }
        }
    }

    @inline(__always)
    static func pack(_ r: Int32, _ g: Int32, _ b: Int32) -> UInt32 {
        let half: Int32 = 1 << (weightBits - 1)
        let r8 = UInt32(clamping: min(max((r &+ half) >> weightBits, 0), 255))
        let g8 = UInt32(clamping: min(max((g &+ half) >> weightBits, 0), 255))
        let b8 = UInt32(clamping: min(max((b &+ half) >> weightBits, 0), 255))
        return 0xFF00_0000 | r8 << 16 | g8 << 8 | b8
    }

    static func filterRow(source: UnsafePointer<UInt32>, target: UnsafeMutablePointer<UInt32>, taps: FilterTaps) {
        taps.starts.withUnsafeBufferPointer { starts in
            taps.counts.withUnsafeBufferPointer { counts in
                taps.weights.withUnsafeBufferPointer { weights in
                    for x in 0..<starts.count {
                        var r: Int32 = 0, g: Int32 = 0, b: Int32 = 0
                        let first = Int(starts[x]), weightBase = x &* taps.maxTaps
                        for k in 0..<Int(counts[x]) {
                            let pixel = source[first &+ k]
                            let w = weights[weightBase &+ k]
                            r = r &+ Int32(truncatingIfNeeded: (pixel >> 16) & 0xFF) &* w
                            g = g &+ Int32(truncatingIfNeeded: (pixel >> 8) & 0xFF) &* w
                            b = b &+ Int32(truncatingIfNeeded: pixel & 0xFF) &* w
                        }
                        target[x] = pack(r, g, b)
                    }
                }
            }
        }
    }

    static func filterColumns(source: PixelImage, target: PixelImage, taps: FilterTaps) {
        let width = target.width
        // Accumulate whole rows at a time so every source row is read sequentially.
        var red = [Int32](repeating: 0, count: width)
        var green = red, blue = red
        red.withUnsafeMutableBufferPointer { red in
            green.withUnsafeMutableBufferPointer { green in
                blue.withUnsafeMutableBufferPointer { blue in
                    for y in 0..<target.height {
                        red.update(repeating: 0)
                        green.update(repeating: 0)
                        blue.update(repeating: 0)
                        let first = Int(taps.starts[y])
                        for k in 0..<Int(taps.counts[y]) {
                            let w = taps.weights[y * taps.maxTaps + k]
                            let row = source.pixels.baseAddress! + (first + k) * width
                            for x in 0..<width {
                                let pixel = row[x]
                                red[x] = red[x] &+ Int32(truncatingIfNeeded: (pixel >> 16) & 0xFF) &* w
                                green[x] = green[x] &+ Int32(truncatingIfNeeded: (pixel >> 8) & 0xFF) &* w
                                blue[x] = blue[x] &+ Int32(truncatingIfNeeded: pixel & 0xFF) &* w
                            }
                        }
                        let out = target.pixels.baseAddress! + y * width
                        for x in 0..<width { out[x] = pack(red[x], green[x], blue[x]) }
                    }
                }
            }
        }
    }
}
