/// Where the row of dots sits on the output.
public enum IndicatorPosition: String, Sendable, CaseIterable, Codable {
    case bottomCenter = "bottom-center"
    case bottomLeft = "bottom-left"
    case bottomRight = "bottom-right"
    case topCenter = "top-center"
    case topLeft = "top-left"
    case topRight = "top-right"
}

/// How the page indicator looks. Sizes are output pixels.
public struct IndicatorStyle: Hashable, Sendable {
    public var visible: Bool
    public var diameter: Int
    /// The gap between neighbouring dots, edge to edge.
    public var spacing: Int
    public var color: RGBAColor
    public var currentColor: RGBAColor
    public var position: IndicatorPosition
    /// Distance from the output's edges to the row of dots.
    public var margin: Int

    public init(visible: Bool = true, diameter: Int = 14, spacing: Int = 14,
                color: RGBAColor = RGBAColor(red: 255, green: 255, blue: 255, alpha: 110),
                currentColor: RGBAColor = .white, position: IndicatorPosition = .bottomCenter, margin: Int = 32) {
        self.visible = visible
        self.diameter = diameter
        self.spacing = spacing
        self.color = color
        self.currentColor = currentColor
        self.position = position
        self.margin = margin
    }
}

/// One dot: centre and radius in output pixels (pixel centres are at +0.5).
public struct IndicatorDot: Hashable, Sendable {
    public var centerX: Double
    public var centerY: Double
    public var radius: Double

    /// The pixels the dot touches, its anti-aliased edge included, inside
    /// `clip`; nil when none is.
    public func pixels(within clip: PixelRect) -> PixelRect? {
        let x0 = max(clip.x, Int((centerX - radius - 1).rounded(.down)))
        let x1 = min(clip.x + clip.width - 1, Int((centerX + radius + 1).rounded(.up)))
        let y0 = max(clip.y, Int((centerY - radius - 1).rounded(.down)))
        let y1 = min(clip.y + clip.height - 1, Int((centerY + radius + 1).rounded(.up)))
        guard x0 <= x1, y0 <= y1 else { return nil }
        return PixelRect(x: x0, y: y0, width: x1 - x0 + 1, height: y1 - y0 + 1)
    }

    /// How much of output pixel (`x`, `y`) the dot covers, 0...1, by the
    /// pixel centre's distance to its edge.
    public func coverage(x: Int, y: Int) -> Double {
        let dx = Double(x) + 0.5 - centerX, dy = Double(y) + 0.5 - centerY
        return min(max(radius + 0.5 - (dx * dx + dy * dy).squareRoot(), 0), 1)
    }
}

/// Geometry and drawing of the page indicator.
public enum PageIndicator {
    /// The dots for `count` pages on an output of `output` size; empty when the
    /// indicator is hidden or there is only one page.
    public static func dots(count: Int, style: IndicatorStyle, output: PixelSize) -> [IndicatorDot] {
        guard style.visible, count >= 2, style.diameter > 0 else { return [] }
        var diameter = Double(style.diameter), spacing = Double(max(style.spacing, 0))
        let available = Double(output.width - 2 * style.margin)
        let needed = Double(count) * diameter + Double(count - 1) * spacing
        // A long playlist shrinks the row to fit rather than run off the screen.
        if needed > available, available > 0 {
            let shrink = available / needed
            diameter *= shrink
            spacing *= shrink
        }
        let rowWidth = Double(count) * diameter + Double(count - 1) * spacing
        let margin = Double(style.margin)
        let left: Double
        switch style.position {
        case .bottomCenter, .topCenter: left = ((Double(output.width) - rowWidth) / 2).rounded(.down)
        case .bottomLeft, .topLeft: left = margin
        case .bottomRight, .topRight: left = Double(output.width) - margin - rowWidth
        }
        let top: Double
        switch style.position {
        case .bottomCenter, .bottomLeft, .bottomRight: top = Double(output.height) - margin - diameter
        case .topCenter, .topLeft, .topRight: top = margin
        }
        return (0..<count).map { index in
            IndicatorDot(
                centerX: left + diameter / 2 + Double(index) * (diameter + spacing),
                centerY: top + diameter / 2,
                radius: diameter / 2)
        }
    }

    /// The colour of dot `index`: the current colour at full emphasis, blending
    /// from one dot to the next while a page change is under way.
    public static func color(ofDot index: Int, state: IndicatorState, style: IndicatorStyle) -> RGBAColor {
        style.color.mixed(with: style.currentColor, fraction: state.emphasis(ofDot: index))
    }

    /// Draws the indicator for `state` onto `canvas`, anti-aliased by each
    /// pixel's distance to the dot's edge.
    public static func draw(_ state: IndicatorState, style: IndicatorStyle, into canvas: PixelCanvas) {
        for (index, dot) in dots(count: state.count, style: style, output: canvas.size).enumerated() {
            let color = color(ofDot: index, state: state, style: style)
            guard color.alpha > 0,
                  let rect = dot.pixels(within: PixelRect(x: 0, y: 0, width: canvas.size.width, height: canvas.size.height))
            else { continue }
            for y in rect.y..<rect.maxY {
                let row = canvas.row(y)
                for x in rect.x..<rect.maxX {
                    let coverage = dot.coverage(x: x, y: y)
                    guard coverage > 0 else { continue }
                    let alpha = UInt32((coverage * Double(color.alpha) / 255 * 256).rounded())
                    row[x] = PixelBlend.blend(color.xrgb, over: row[x], alpha256: alpha)
                }
            }
        }
    }
}
