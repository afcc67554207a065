internal import CPixelRows

/// Draws a rectangle of a frame across an output of another size, bilinearly,
/// row by row: Ken Burns pan and zoom, whose rectangle of the stored frame
/// changes at every refresh. Each row is one pass of `vitrine_rows_bilinear`
/// (CPixelRows: AVX2, SSE2 or NEON, 16.16 fixed-point columns, 8-bit weights),
/// straight into the output with streaming stores, so a frame costs a small
/// multiple of a memcpy whatever the zoom (docs/benchmarks.md).
///
/// Output pixel (u, v) samples the frame at the centre of its footprint:
/// `region.x · W + (u + 0.5) · sx − 0.5` across, with `sx` the frame pixels
/// per output pixel, and likewise down; samples past the frame's edges take
/// the edge pixels.
public struct FrameRegionSampler {
    public let frame: PixelImage
    public let output: PixelSize
    /// The rectangle of `frame` sampled as if it were the whole frame.
    private let bounds: PixelRect
    /// The 16.16 fixed-point frame column of output column 0, and the step per output column.
    private let columnStart: Int64
    private let columnStep: Int64
    /// The frame row (in frame pixels) of output row 0, and the step per output row.
    private let rowStart: Double
    private let rowStep: Double

    /// `region` in fractions of `frame`'s width and height.
    public init(frame: PixelImage, region: FrameRect, output: PixelSize) {
        self.init(frame: frame, within: PixelRect(x: 0, y: 0, width: frame.width, height: frame.height),
                  region: region, output: output)
    }

    /// The pixels `pixels` of `frame` (a rectangle inside it) across `output`,
    /// as if they were the whole frame: samples past the rectangle's edges take
    /// its edge pixels, never the frame's pixels around it (a composite
    /// display's member shows its region of the picture and nothing beside it).
    public init(frame: PixelImage, pixels: PixelRect, output: PixelSize) {
        precondition(pixels.x >= 0 && pixels.y >= 0 && pixels.maxX <= frame.width && pixels.maxY <= frame.height,
                     "\(pixels) is not inside \(frame.size)")
        self.init(frame: frame, within: pixels, region: .whole, output: output)
    }

    private init(frame: PixelImage, within bounds: PixelRect, region: FrameRect, output: PixelSize) {
        self.frame = frame
        self.bounds = bounds
        self.output = output
        let scaleX = region.width * Double(bounds.width) / Double(max(output.width, 1))
        let scaleY = region.height * Double(bounds.height) / Double(max(output.height, 1))
        // Half of the kernel's 8-bit weight step (128 of 65536) on top, so that
        // the kernel's truncation of each column's fraction is a rounding.
        columnStart = Int64(((region.x * Double(bounds.width) + 0.5 * scaleX - 0.5) * 65536).rounded()) + 128
        columnStep = Int64((scaleX * 65536).rounded())
        rowStart = region.y * Double(bounds.height) + 0.5 * scaleY - 0.5
        rowStep = scaleY
    }

    /// The two frame rows output row `y` blends, and the lower one's weight (0...256).
    func rows(of y: Int) -> (top: Int, bottom: Int, weight: UInt32) {
        let last = bounds.height - 1
        let position = min(max(rowStart + Double(y) * rowStep, 0), Double(last))
        var top = Int(position)
        var weight = Int(((position - Double(top)) * 256).rounded())
        if weight == 256 {
            top += 1
            weight = 0
        }
        return (bounds.y + min(top, last), bounds.y + min(top + 1, last), UInt32(weight))
    }

    /// Output columns `columns` of output row `y`, written to `target[0..<columns.count]`
    /// with streaming stores on x86-64 (`vitrine_rows_finish` before reading them back).
    public func draw(row y: Int, columns: Range<Int>, into target: UnsafeMutablePointer<UInt32>) {
        guard !columns.isEmpty, bounds.width > 0, bounds.height > 0 else { return }
        let (top, bottom, weight) = rows(of: y)
        let base = frame.pixels.baseAddress! + bounds.x
        let topRow = base + top * frame.width, bottomRow = base + bottom * frame.width
        let last = bounds.width - 1
        let lastPosition = Int64(last) << 16
        func position(_ u: Int) -> Int64 { columnStart + Int64(u) * columnStep }
        func span(_ from: Int, _ to: Int, start: Int64, step: Int64) {
            guard to > from else { return }
            vitrine_rows_bilinear(target + (from - columns.lowerBound), topRow, bottomRow, weight, UInt32(start), UInt32(step),
                                  to - from, last)
        }
        // Columns left of the first pixel's centre take the first pixel, and
        // those right of the last pixel's centre the last: the kernel reads
        // only inside the row.
        var first = columns.lowerBound, end = columns.upperBound
        while first < end, position(first) < 0 { first += 1 }
        while end > first, position(end - 1) > lastPosition { end -= 1 }
        span(columns.lowerBound, first, start: 0, step: 0)
        span(first, end, start: position(first), step: columnStep)
        span(end, columns.upperBound, start: lastPosition, step: 0)
    }
}
