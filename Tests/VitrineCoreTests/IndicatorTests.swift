import Testing
@testable import VitrineCore

@Suite("PageIndicator")
struct IndicatorTests {
    static let output = PixelSize(width: 200, height: 100)
    static let blueColor = RGBAColor(red: 0, green: 0, blue: 255)
    static let redColor = RGBAColor(red: 255, green: 0, blue: 0)

    static func centres(_ dots: [IndicatorDot]) -> [Double] { dots.map(\.centerX) }

    // MARK: Geometry

    @Test func defaultStyle() {
        let style = IndicatorStyle()
        #expect(style.visible)
        #expect(style.diameter == 14)
        #expect(style.spacing == 14)
        #expect(style.margin == 32)
        #expect(style.position == .bottomCenter)
        #expect(style.currentColor == .white)
        #expect(style.color == RGBAColor(red: 255, green: 255, blue: 255, alpha: 110))
    }

    @Test func bottomCentreRow() {
        let dots = PageIndicator.dots(count: 3, style: IndicatorStyle(), output: Self.output)
        // Row: 3 × 14 + 2 × 14 = 70 wide, starting at (200 − 70) / 2 = 65; bottom edge at 100 − 32.
        #expect(dots == [
            IndicatorDot(centerX: 72, centerY: 61, radius: 7),
            IndicatorDot(centerX: 100, centerY: 61, radius: 7),
            IndicatorDot(centerX: 128, centerY: 61, radius: 7),
        ])
        // Centre-to-centre distance is diameter plus spacing.
        let wide = PageIndicator.dots(count: 5, style: IndicatorStyle(diameter: 10, spacing: 6), output: Self.output)
        #expect(wide.count == 5)
        #expect(zip(wide, wide.dropFirst()).allSatisfy { $1.centerX - $0.centerX == 16 })
        #expect(Self.centres(wide) == [68, 84, 100, 116, 132])  // a row 74 wide from x = 63
        #expect((wide.first!.centerX - 5) + (wide.last!.centerX + 5) == 200)
    }

    @Test func rowOnAnOddWidthStartsOnAWholePixel() {
        let dots = PageIndicator.dots(count: 3, style: IndicatorStyle(), output: PixelSize(width: 201, height: 100))
        #expect(Self.centres(dots) == [72, 100, 128])
    }

    @Test(arguments: [
        (IndicatorPosition.bottomCenter, [72.0, 100, 128], 61.0),
        (.bottomLeft, [39, 67, 95], 61),
        (.bottomRight, [105, 133, 161], 61),
        (.topCenter, [72, 100, 128], 39),
        (.topLeft, [39, 67, 95], 39),
        (.topRight, [105, 133, 161], 39),
    ])
    func placements(position: IndicatorPosition, xs: [Double], y: Double) {
        let dots = PageIndicator.dots(count: 3, style: IndicatorStyle(position: position), output: Self.output)
        #expect(Self.centres(dots) == xs)
        #expect(dots.allSatisfy { $0.centerY == y && $0.radius == 7 })
    }

    @Test func longPlaylistShrinksTheRowToFit() {
        let dots = PageIndicator.dots(count: 20, style: IndicatorStyle(), output: Self.output)
        #expect(dots.count == 20)
        let radius = dots[0].radius
        #expect(radius < 7)
        #expect(abs(radius - 7 * 136.0 / 546.0) < 1e-9)
        #expect(abs((dots.first!.centerX - radius) - 32) < 1e-9)
        #expect(abs((dots.last!.centerX + radius) - 168) < 1e-9)
        // Still at the bottom margin.
        #expect(abs(dots[0].centerY + radius - 68) < 1e-9)
    }

    @Test func hiddenForFewerThanTwoPagesOrWhenInvisible() {
        #expect(PageIndicator.dots(count: 0, style: IndicatorStyle(), output: Self.output).isEmpty)
        #expect(PageIndicator.dots(count: 1, style: IndicatorStyle(), output: Self.output).isEmpty)
        #expect(PageIndicator.dots(count: 2, style: IndicatorStyle(), output: Self.output).count == 2)
        #expect(PageIndicator.dots(count: 5, style: IndicatorStyle(visible: false), output: Self.output).isEmpty)
        #expect(PageIndicator.dots(count: 5, style: IndicatorStyle(diameter: 0), output: Self.output).isEmpty)

        for (count, style) in [(1, IndicatorStyle()), (4, IndicatorStyle(visible: false))] {
            let image = PixelImage(size: Self.output, fill: .black)
            PageIndicator.draw(IndicatorState(count: count, position: 0), style: style, into: image.canvas)
            #expect((0..<image.size.pixelCount).allSatisfy { image.pixels[$0] == RGBAColor.black.xrgb })
        }
    }

    // MARK: Emphasis and colours

    @Test func emphasisFollowsThePosition() {
        let resting = IndicatorState(count: 4, position: 2)
        #expect((0..<4).map(resting.emphasis(ofDot:)) == [0, 0, 1, 0])
        let between = IndicatorState(count: 4, position: 1.25)
        #expect((0..<4).map(between.emphasis(ofDot:)) == [0, 0.75, 0.25, 0])
        // From the last dot towards the first.
        let wrapping = IndicatorState(count: 4, position: 3.75)
        #expect((0..<4).map(wrapping.emphasis(ofDot:)) == [0.75, 0, 0, 0.25])
        #expect(IndicatorState(count: 0, position: 0).emphasis(ofDot: 0) == 0)
    }

    @Test func currentDotUsesCurrentColourOthersTheColour() {
        let style = IndicatorStyle(color: Self.blueColor, currentColor: Self.redColor)
        let state = IndicatorState(count: 3, position: 1)
        #expect(PageIndicator.color(ofDot: 0, state: state, style: style) == Self.blueColor)
        #expect(PageIndicator.color(ofDot: 1, state: state, style: style) == Self.redColor)
        #expect(PageIndicator.color(ofDot: 2, state: state, style: style) == Self.blueColor)
    }

    @Test func coloursBlendMidTransition() {
        let style = IndicatorStyle(color: Self.blueColor, currentColor: Self.redColor)
        let state = IndicatorState(count: 3, position: 0.25)
        #expect(PageIndicator.color(ofDot: 0, state: state, style: style) == RGBAColor(red: 191, green: 0, blue: 64))
        #expect(PageIndicator.color(ofDot: 1, state: state, style: style) == RGBAColor(red: 64, green: 0, blue: 191))
        #expect(PageIndicator.color(ofDot: 2, state: state, style: style) == Self.blueColor)
    }

    @Test func coloursBlendAcrossTheWrapFromLastToFirst() {
        let style = IndicatorStyle(color: Self.blueColor, currentColor: Self.redColor)
        let state = IndicatorState(count: 3, position: 2.5)
        #expect(PageIndicator.color(ofDot: 2, state: state, style: style) == RGBAColor(red: 128, green: 0, blue: 128))
        #expect(PageIndicator.color(ofDot: 0, state: state, style: style) == RGBAColor(red: 128, green: 0, blue: 128))
        #expect(PageIndicator.color(ofDot: 1, state: state, style: style) == Self.blueColor)
        // The default colours blend their alpha too.
        let defaults = IndicatorStyle()
        let late = IndicatorState(count: 3, position: 2.75)
        #expect(PageIndicator.color(ofDot: 0, state: late, style: defaults) == RGBAColor(red: 255, green: 255, blue: 255, alpha: 219))
        #expect(PageIndicator.color(ofDot: 2, state: late, style: defaults) == RGBAColor(red: 255, green: 255, blue: 255, alpha: 146))
    }

    // MARK: Drawing

    @Test func drawingIsAntiAliased() {
        let image = PixelImage(size: Self.output, fill: .black)
        PageIndicator.draw(IndicatorState(count: 3, position: 0), style: IndicatorStyle(), into: image.canvas)
        // Centre pixels: full coverage. The current dot is opaque white; the others
        // white at alpha 110 over black: 255 × round(110/255 × 256) / 256 = 109.
        #expect(image[72, 61] == 0xFFFF_FFFF)
        #expect(image[71, 60] == 0xFFFF_FFFF)
        #expect(image[100, 61] == xrgb(109, 109, 109))
        #expect(image[128, 61] == xrgb(109, 109, 109))
        // Just outside the radius (pixel centre 7.5 from the dot centre): untouched.
        #expect(image[79, 61] == RGBAColor.black.xrgb)
        #expect(image[64, 61] == RGBAColor.black.xrgb)
        #expect(image[72, 68] == RGBAColor.black.xrgb)
        #expect(image[72, 53] == RGBAColor.black.xrgb)
        // Inside, a pixel right at the edge: partial coverage, strictly between.
        let coverage = 7.5 - (5.5 * 5.5 + 4.5 * 4.5).squareRoot()
        let edge = red(image[77, 65])
        #expect(edge > 0 && edge < 255)
        #expect(abs(Double(edge) - 255 * coverage) <= 1.5, "edge \(edge), coverage \(coverage)")
        #expect(green(image[77, 65]) == edge && blue(image[77, 65]) == edge)
    }

    @Test func drawingTouchesOnlyTheDiscs() {
        let image = PixelImage(size: Self.output, fill: RGBAColor(red: 0, green: 40, blue: 0))
        let style = IndicatorStyle(color: .white, currentColor: .white)
        PageIndicator.draw(IndicatorState(count: 3, position: 0), style: style, into: image.canvas)
        let dots = PageIndicator.dots(count: 3, style: style, output: Self.output)
        var inked = [Double](repeating: 0, count: 3)
        for y in 0..<Self.output.height {
            for x in 0..<Self.output.width {
                let nearest = dots.enumerated().min {
                    Self.distance($0.element, x, y) < Self.distance($1.element, x, y)
                }!
                let distance = Self.distance(nearest.element, x, y)
                if distance >= 7.5 {
                    #expect(image[x, y] == xrgb(0, 40, 0), "(\(x), \(y)) outside every dot was drawn on")
                } else {
                    inked[nearest.offset] += Double(red(image[x, y])) / 255
                    if distance <= 6.5 { #expect(image[x, y] == 0xFFFF_FFFF) }
                }
            }
        }
        // Each dot's ink adds up to its area, π r², to within a percent.
        for ink in inked { #expect(abs(ink - Double.pi * 49) < Double.pi * 49 * 0.01, "ink \(ink)") }
    }

    static func distance(_ dot: IndicatorDot, _ x: Int, _ y: Int) -> Double {
        let dx = Double(x) + 0.5 - dot.centerX, dy = Double(y) + 0.5 - dot.centerY
        return (dx * dx + dy * dy).squareRoot()
    }

    @Test func drawingMidTransitionUsesTheBlendedColours() {
        let style = IndicatorStyle(color: Self.blueColor, currentColor: Self.redColor)
        let image = PixelImage(size: Self.output, fill: .black)
        PageIndicator.draw(IndicatorState(count: 3, position: 2.5), style: style, into: image.canvas)
        #expect(image[72, 61] == xrgb(128, 0, 128))
        #expect(image[100, 61] == xrgb(0, 0, 255))
        #expect(image[128, 61] == xrgb(128, 0, 128))
    }

    @Test func transparentDotsAreSkipped() {
        let style = IndicatorStyle(color: RGBAColor(red: 255, green: 0, blue: 0, alpha: 0), currentColor: .white)
        let image = PixelImage(size: Self.output, fill: .black)
        PageIndicator.draw(IndicatorState(count: 3, position: 0), style: style, into: image.canvas)
        #expect(image[72, 61] == 0xFFFF_FFFF)
        #expect(image[100, 61] == RGBAColor.black.xrgb)
    }

    @Test func drawingClipsToTheCanvasAndKeepsToTheStride() {
        // A canvas narrower than the row of dots: the row hangs off both sides.
        let size = PixelSize(width: 10, height: 100), stride = 16
        let buffer = UnsafeMutableBufferPointer<UInt32>.allocate(capacity: stride * size.height)
        defer { buffer.deallocate() }
        buffer.initialize(repeating: 0xDEAD_BEEF)
        let canvas = PixelCanvas(base: buffer.baseAddress!, size: size, stride: stride)
        canvas.fill(with: .black)
        PageIndicator.draw(IndicatorState(count: 3, position: 1), style: IndicatorStyle(), into: canvas)
        for y in 0..<size.height {
            for x in size.width..<stride { #expect(buffer[y * stride + x] == 0xDEAD_BEEF) }
        }
        // The middle dot (centre x = 5 on this canvas) is drawn.
        let dots = PageIndicator.dots(count: 3, style: IndicatorStyle(), output: size)
        #expect(dots[1].centerX == 5)
        #expect(buffer[61 * stride + 5] == 0xFFFF_FFFF)
    }

    @Test func positionRawValues() {
        #expect(IndicatorPosition(rawValue: "bottom-center") == .bottomCenter)
        #expect(IndicatorPosition(rawValue: "top-right") == .topRight)
        #expect(IndicatorPosition.allCases.count == 6)
    }
}
