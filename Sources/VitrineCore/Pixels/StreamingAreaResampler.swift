/// `AreaResampler`'s two passes over a picture that arrives a few rows at a
/// time, top to bottom, as a JPEG decoder produces it.
///
/// Each arriving row the output needs is filtered horizontally into a ring of
/// intermediate rows; an output row is written, vertically filtered, as soon as
/// its last source row is in. The ring holds only as many rows as one output
/// row draws from (two or three when shrinking by 1–2x), so neither the decoded
/// picture nor the horizontal pass is ever held whole: a 12 MP JPEG decoded at
/// 3/8 is 6.4 MiB that then never exists, and each row is resampled while it is
/// still in the cache the decoder wrote it through.
///
/// The arithmetic is `AreaResampler`'s, tap for tap, so the result is the same
/// to the bit whichever way the rows arrive.
public final class StreamingAreaResampler {
    /// The source rows any output row draws from; rows outside it are skipped.
    public let neededSourceRows: Range<Int>
    public let sourceSize: PixelSize

    private let canvas: PixelCanvas
    private let rect: PixelRect
    /// nil when the width is unchanged (rows are copied into the ring as they are).
    private let horizontal: AreaResampler.FilterTaps?
    /// nil when rows map one to one (each is written straight to its output row).
    private let vertical: AreaResampler.FilterTaps?
    /// The ring of horizontally filtered rows: row r lives in slot r % ringRows.
    private let ring: PixelImage?
    private let ringRows: Int
    private let tapRows: UnsafeMutablePointer<UnsafePointer<UInt32>>
    private var nextSourceRow = 0
    private var nextOutputRow = 0

    /// Resamples the `region` of a `sourceSize` picture into `rect` of `canvas`
    /// (which must lie inside it). `scratch`, when given, holds the ring.
    public init(sourceSize: PixelSize, region: AreaResampler.SourceRegion, into canvas: PixelCanvas, at rect: PixelRect,
                scratch: PixelStorage? = nil) {
        let target = rect.size
        precondition(!target.isEmpty, "resample target \(target) is empty")
        precondition(!sourceSize.isEmpty, "resample source \(sourceSize) is empty")
        precondition(rect.x >= 0 && rect.y >= 0 && rect.maxX <= canvas.size.width && rect.maxY <= canvas.size.height)
        self.sourceSize = sourceSize
        self.canvas = canvas
        self.rect = rect
        let sameWidth = sourceSize.width == target.width && region.x == 0 && region.width == Double(sourceSize.width)
        let sameRows = sourceSize.height == target.height && region.y == 0 && region.height == Double(sourceSize.height)
        horizontal = sameWidth ? nil
            : AreaResampler.FilterTaps(start: region.x, length: region.width, limit: sourceSize.width, targetLength: target.width)
        if sameRows {
            vertical = nil
            neededSourceRows = 0..<sourceSize.height
            ringRows = 0
            ring = nil
        } else {
            let taps = AreaResampler.FilterTaps(start: region.y, length: region.height, limit: sourceSize.height,
                                                targetLength: target.height)
            vertical = taps
            let last = target.height - 1
            neededSourceRows = Int(taps.starts[0])..<Int(taps.starts[last] + taps.counts[last])
            // Taps only move down the picture, so when source row r arrives every
            // output row still to come starts at r + 1 - maxTaps or later: a ring
            // of maxTaps rows never overwrites a row still needed.
            ringRows = taps.maxTaps
            ring = PixelImage(size: PixelSize(width: target.width, height: ringRows), storage: scratch ?? PixelStorage())
        }
        tapRows = .allocate(capacity: max(vertical?.maxTaps ?? 1, 1))
    }

    deinit { tapRows.deallocate() }

    /// Whether every output row has been written.
    public var isComplete: Bool { nextOutputRow == rect.height }

    /// Takes source rows `first ..< first + count`, `stride` pixels apart at
    /// `rows`. Rows arrive in order; rows skipped between calls must be outside
    /// `neededSourceRows`.
    public func consume(rows: UnsafePointer<UInt32>, first: Int, count: Int, stride: Int) {
        precondition(first >= nextSourceRow && first + count <= sourceSize.height, "rows \(first)..<\(first + count) out of order")
        precondition(max(nextSourceRow, neededSourceRows.lowerBound) >= min(first, neededSourceRows.upperBound),
                     "needed rows in \(nextSourceRow)..<\(first) were skipped")
        nextSourceRow = first + count
        let start = max(first, neededSourceRows.lowerBound), end = min(first + count, neededSourceRows.upperBound)
        // A strip wholly above or below the rows the output draws from is skipped.
        guard start < end else { return }
        for y in start..<end {
            let source = rows + (y - first) * stride
            guard let vertical else {
                store(source, into: canvas.row(rect.y + y) + rect.x)
                nextOutputRow = y + 1
                continue
            }
            store(source, into: ring!.pixels.baseAddress! + (y % ringRows) * rect.width)
            // Every output row whose last tap is this row can be written now.
            while nextOutputRow < rect.height,
                  Int(vertical.starts[nextOutputRow] + vertical.counts[nextOutputRow]) - 1 <= y {
                writeOutputRow(nextOutputRow, taps: vertical)
                nextOutputRow += 1
            }
        }
    }

    private func store(_ source: UnsafePointer<UInt32>, into target: UnsafeMutablePointer<UInt32>) {
        if let horizontal {
            AreaResampler.filterRow(source: source, target: target, taps: horizontal)
        } else {
            target.update(from: source, count: rect.width)
        }
    }

    private func writeOutputRow(_ y: Int, taps: AreaResampler.FilterTaps) {
        let first = Int(taps.starts[y]), count = Int(taps.counts[y])
        let base = ring!.pixels.baseAddress!, width = rect.width
        for k in 0..<count { tapRows[k] = UnsafePointer(base + ((first + k) % ringRows) * width) }
        taps.weights.withUnsafeBufferPointer { weights in
            AreaResampler.filterColumn(rows: tapRows, count: count, weights: weights.baseAddress! + y * taps.maxTaps,
                                       width: width, into: canvas.row(rect.y + y) + rect.x)
        }
    }
}
