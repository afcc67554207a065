/// The page dots drawn into a buffer of their own, for an overlay plane to
/// show over the slides: `argb8888` with premultiplied alpha (the `pixel
/// blend mode` planes take by default), anti-aliased as `PageIndicator.draw`
/// draws them onto a frame. The buffer covers `LayerStack.indicatorBounds`.
public enum IndicatorLayer {
    /// Draws the dots of `state` into `buffer`, which shows at `bounds` on an
    /// output of `output` size; every pixel is written (transparent where no dot is).
    public static func draw(_ state: IndicatorState, style: IndicatorStyle, output: PixelSize, bounds: PixelRect,
                            into buffer: PixelCanvas) {
        precondition(buffer.size == PixelSize(width: bounds.width, height: bounds.height), "\(buffer.size) for \(bounds)")
        for y in 0..<bounds.height { buffer.row(y).update(repeating: 0, count: bounds.width) }
        for (index, dot) in PageIndicator.dots(count: state.count, style: style, output: output).enumerated() {
            let color = PageIndicator.color(ofDot: index, state: state, style: style)
            guard color.alpha > 0 else { continue }
            let x0 = max(bounds.x, Int((dot.centerX - dot.radius - 1).rounded(.down)))
            let x1 = min(bounds.x + bounds.width - 1, Int((dot.centerX + dot.radius + 1).rounded(.up)))
            let y0 = max(bounds.y, Int((dot.centerY - dot.radius - 1).rounded(.down)))
            let y1 = min(bounds.y + bounds.height - 1, Int((dot.centerY + dot.radius + 1).rounded(.up)))
            guard x0 <= x1, y0 <= y1 else { continue }
            for y in y0...y1 {
                let row = buffer.row(y - bounds.y)
                let dy = Double(y) + 0.5 - dot.centerY
                for x in x0...x1 {
                    let dx = Double(x) + 0.5 - dot.centerX
                    let coverage = min(max(dot.radius + 0.5 - (dx * dx + dy * dy).squareRoot(), 0), 1)
                    guard coverage > 0 else { continue }
                    let alpha = UInt32((coverage * Double(color.alpha)).rounded())
                    // Neighbouring dots' anti-aliased edges can share a pixel: "over" within the buffer.
                    row[x - bounds.x] = PixelBlend.premultipliedOver(color: color, alpha: alpha, destination: row[x - bounds.x])
                }
            }
        }
    }
}
