/// The page dots drawn into a buffer of their own, for an overlay plane to
/// show over the slides: `argb8888` with premultiplied alpha (the `pixel
/// blend mode` planes take by default), anti-aliased as `PageIndicator.draw`
/// draws them onto a frame. The buffer covers `bounds`
/// (`LayerStack.indicatorBounds`).
///
/// The dots' shapes do not change while a page changes, only their colours,
/// so each dot's coverage is worked out once, here, and every frame of a
/// transition is integer arithmetic over a few thousand pixels.
public struct IndicatorLayer: Sendable {
    /// One dot's pixels: its rectangle inside the buffer and each pixel's
    /// coverage, 0...65535.
    private struct DotMask: Sendable {
        var rect: PixelRect
        var coverage: [UInt16]
    }

    public let bounds: PixelRect
    public let count: Int
    public let style: IndicatorStyle
    private let masks: [DotMask]

    /// The dots of a `count`-page indicator in `style` on an output of
    /// `output` size, for a buffer that shows at `bounds`.
    public init(count: Int, style: IndicatorStyle, output: PixelSize, bounds: PixelRect) {
        self.bounds = bounds
        self.count = count
        self.style = style
        masks = PageIndicator.dots(count: count, style: style, output: output).map { dot in
            guard let rect = dot.pixels(within: bounds) else {
                return DotMask(rect: PixelRect(x: 0, y: 0, width: 0, height: 0), coverage: [])
            }
            var coverage: [UInt16] = []
            coverage.reserveCapacity(rect.width * rect.height)
            for y in rect.y..<rect.maxY {
                for x in rect.x..<rect.maxX { coverage.append(UInt16((dot.coverage(x: x, y: y) * 65535).rounded())) }
            }
            return DotMask(rect: PixelRect(x: rect.x - bounds.x, y: rect.y - bounds.y, width: rect.width, height: rect.height),
                           coverage: coverage)
        }
    }

    /// Draws the dots of `state` (whose count must be this layer's) into
    /// `buffer`, which is `bounds`' size; every pixel is written, transparent
    /// where no dot is.
    public func draw(_ state: IndicatorState, into buffer: PixelCanvas) {
        precondition(buffer.size == PixelSize(width: bounds.width, height: bounds.height), "\(buffer.size) for \(bounds)")
        precondition(state.count == count, "an indicator of \(state.count) pages drawn with \(count) dots")
        for y in 0..<bounds.height { buffer.row(y).update(repeating: 0, count: bounds.width) }
        for (index, mask) in masks.enumerated() {
            let color = PageIndicator.color(ofDot: index, state: state, style: style)
            guard color.alpha > 0, mask.rect.width > 0 else { continue }
            let opacity = UInt32(color.alpha)
            mask.coverage.withUnsafeBufferPointer { coverage in
                var next = 0
                for y in mask.rect.y..<(mask.rect.y + mask.rect.height) {
                    let row = buffer.row(y) + mask.rect.x
                    for x in 0..<mask.rect.width {
                        let covered = UInt32(coverage[next])
                        next += 1
                        guard covered > 0 else { continue }
                        // round(coverage × alpha), as the compositor's dots are.
                        let alpha = (covered * opacity + 32767) / 65535
                        // Neighbouring dots' anti-aliased edges can share a pixel: "over" within the buffer.
                        row[x] = PixelBlend.premultipliedOver(color: color, alpha: alpha, destination: row[x])
                    }
                }
            }
        }
    }
}
