internal import CPixelRows

/// Resamples XRGB8888 pictures with a separable filter: an exact area average
/// (box filter with fractional pixel coverage) when shrinking, and bilinear
/// interpolation when enlarging.
///
/// The decoder has already shrunk the picture by the largest DCT scaling factor
/// that still covers the target, so this step is always a ratio between 1x and
/// 2x when shrinking; an area average is then alias-free and cheap.
public enum AreaResampler {
    /// Weights are fixed point with 8 fractional bits and sum to exactly 256:
    /// red and blue then share one 32-bit word 16 bits apart (and green another)
    /// without carrying into each other, since 255 × 256 plus the rounding half
    /// is below 2^16. Every tap is two 32-bit multiply-adds, a loop LLVM
    /// vectorises; 1/256 weight steps keep the error under half a level.
    static let weightBits = 8

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
        let result = PixelImage(size: target)
        resample(source, region: region, into: result.canvas, at: PixelRect(x: 0, y: 0, width: target.width, height: target.height))
        return result
    }

    /// Resamples the `region` of `source` straight into `rect` of `canvas`
    /// (which must lie inside it), sparing a copy of the result. `scratch` holds
    /// the few intermediate rows of the horizontal pass when given.
    public static func resample(_ source: PixelImage, region: SourceRegion, into canvas: PixelCanvas, at rect: PixelRect,
                                scratch: PixelStorage? = nil) {
        let stream = StreamingAreaResampler(sourceSize: source.size, region: region, into: canvas, at: rect, scratch: scratch)
        let rows = stream.neededSourceRows
        stream.consume(rows: source.pixels.baseAddress! + rows.lowerBound * source.width, first: rows.lowerBound,
                       count: rows.count, stride: source.width)
    }

    /// For each target position along one axis: the first source index, the number
    /// of source pixels it draws from, and their weights.
    struct FilterTaps {
        var starts: [Int32]
        var counts: [Int32]
        var weights: [Int32]
        /// The same weights tap-major (`k · length + x`), for `vitrine_rows_filter`
        /// to load eight pixels' weights of one tap at once; only when maxTaps ≤ 3.
        var tapMajorWeights: [Int32]
        var maxTaps: Int
        /// The length of the source line.
        var sourceLength: Int

        /// Taps mapping `targetLength` pixels onto the source span
        /// [`start`, `start + length`) of a line `limit` pixels long.
        init(start: Double, length: Double, limit sourceLength: Int, targetLength: Int) {
            self.sourceLength = sourceLength
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
            tapMajorWeights = maxTaps > 3 ? [] : (0..<maxTaps).flatMap { [weights, maxTaps] k in
                (0..<targetLength).map { weights[$0 * maxTaps + k] }
            }
        }
    }

    @inline(__always)
    static func pack(redBlue: UInt32, green: UInt32) -> UInt32 {
        0xFF00_0000 | ((redBlue &+ 0x0080_0080) >> 8) & 0x00FF_00FF | ((green &+ 0x0000_8000) >> 8) & 0x0000_FF00
    }

    static func filterRow(source: UnsafePointer<UInt32>, target: UnsafeMutablePointer<UInt32>, taps: FilterTaps) {
        taps.starts.withUnsafeBufferPointer { starts in
            taps.counts.withUnsafeBufferPointer { counts in
                taps.weights.withUnsafeBufferPointer { weights in
                    if (2...3).contains(taps.maxTaps) {
                        // A slide after the DCT scaling (1–2x) and all enlarging: see vitrine_rows_filter.
                        taps.tapMajorWeights.withUnsafeBufferPointer { tapMajor in
                            vitrine_rows_filter(target, source, starts.baseAddress!, tapMajor.baseAddress!, starts.count,
                                                taps.maxTaps, taps.sourceLength - 1)
                        }
                        return
                    }
                    let maxTaps = taps.maxTaps
                    for x in 0..<starts.count {
                        let first = source + Int(starts[x])
                        let weight = weights.baseAddress! + x &* maxTaps
                        var redBlue: UInt32 = 0, green: UInt32 = 0
                        for k in 0..<Int(counts[x]) {
                            let pixel = first[k], w = UInt32(bitPattern: weight[k])
                            redBlue = redBlue &+ (pixel & 0x00FF_00FF) &* w
                            green = green &+ (pixel & 0x0000_FF00) &* w
                        }
                        target[x] = pack(redBlue: redBlue, green: green)
                    }
                }
            }
        }
    }

    /// One output row of the vertical pass: `count` rows at `rows`, weighted by
    /// `weights`, into `target`.
    static func filterColumn(rows: UnsafePointer<UnsafePointer<UInt32>>, count: Int, weights: UnsafePointer<Int32>,
                             width: Int, into target: UnsafeMutablePointer<UInt32>) {
        if count == 1 {
            target.update(from: rows[0], count: width)
        } else if count == 2 {
            // The common case when shrinking by less than 2x: two rows per output row.
            let w0 = UInt32(bitPattern: weights[0]), w1 = UInt32(bitPattern: weights[1])
            let row0 = rows[0], row1 = rows[1]
            for x in 0..<width {
                let a = row0[x], b = row1[x]
                let redBlue = (a & 0x00FF_00FF) &* w0 &+ (b & 0x00FF_00FF) &* w1
                let green = (a & 0x0000_FF00) &* w0 &+ (b & 0x0000_FF00) &* w1
                target[x] = pack(redBlue: redBlue, green: green)
            }
        } else if count == 3 {
            let w0 = UInt32(bitPattern: weights[0]), w1 = UInt32(bitPattern: weights[1]), w2 = UInt32(bitPattern: weights[2])
            let row0 = rows[0], row1 = rows[1], row2 = rows[2]
            for x in 0..<width {
                let a = row0[x], b = row1[x], c = row2[x]
                let redBlue = (a & 0x00FF_00FF) &* w0 &+ (b & 0x00FF_00FF) &* w1 &+ (c & 0x00FF_00FF) &* w2
                let green = (a & 0x0000_FF00) &* w0 &+ (b & 0x0000_FF00) &* w1 &+ (c & 0x0000_FF00) &* w2
                target[x] = pack(redBlue: redBlue, green: green)
            }
        } else {
            for x in 0..<width {
                var redBlue: UInt32 = 0, green: UInt32 = 0
                for k in 0..<count {
                    let pixel = rows[k][x], w = UInt32(bitPattern: weights[k])
                    redBlue = redBlue &+ (pixel & 0x00FF_00FF) &* w
                    green = green &+ (pixel & 0x0000_FF00) &* w
                }
                target[x] = pack(redBlue: redBlue, green: green)
            }
        }
    }
}
