import Testing
@testable import VitrineCore

/// A font of blocks: every character a full-coverage cell `pixelHeight / 2`
/// wide, with a one-pixel gap, the whole line `pixelHeight` high.
struct BlockFont: TextRasterizer {
    func mask(for text: String, pixelHeight: Int) throws -> TextMask {
        let cell = max(pixelHeight / 2, 1), width = text.count * (cell + 1)
        var coverage = [UInt8](repeating: 0, count: width * pixelHeight)
        for index in 0..<text.count {
            for y in 0..<pixelHeight { for x in 0..<cell { coverage[y * width + index * (cell + 1) + x] = 255 } }
        }
        return TextMask(width: width, height: pixelHeight, ascent: pixelHeight * 3 / 4, coverage: coverage)
    }
}

@Suite("Notice painter")
struct NoticePainterTests {
    static let hd = PixelSize(width: 1280, height: 720)

    @Test func theBoxSitsInTheTopLeftCornerSizedFromTheOutput() throws {
        let notice = ScreenNotice(lines: ["abc", "abcdef"])
        let image = try #require(try NoticePainter.paint(notice, output: Self.hd, indicator: .bottomCenter, with: BlockFont()))
        // 720 / 27 = 26 px text; margin and padding 13, gap 6; a cell is 13 + 1 px.
        #expect(NoticePainter.pixelHeight(for: Self.hd) == 26)
        #expect(image.destination == PixelRect(x: 13, y: 13, width: 6 * 14 + 26, height: 26 * 2 + 6 + 26))
        // The box's corner is the box; the first cell of the first line is white text.
        #expect(image.image[0, 0] == 0xC000_0000)
        #expect(image.image[13, 13] == 0xFFFF_FFFF)
        // Between the two lines, the gap is box.
        #expect(image.image[13, 13 + 26 + 2] == 0xC000_0000)
    }

    @Test func theBoxGoesToTheBottomWhenTheDotsAreAtTheTop() throws {
        let image = try #require(try NoticePainter.paint(ScreenNotice(lines: ["a"]), output: Self.hd, indicator: .topRight, with: BlockFont()))
        #expect(image.destination.maxY == 720 - 13)
        #expect(image.destination.x == 13)
    }

    @Test func sizesFollowTheShorterSideWithinBounds() {
        #expect(NoticePainter.pixelHeight(for: PixelSize(width: 1920, height: 1080)) == 40)
        #expect(NoticePainter.pixelHeight(for: PixelSize(width: 3840, height: 2160)) == 80)
        #expect(NoticePainter.pixelHeight(for: PixelSize(width: 1080, height: 1920)) == 40)
        #expect(NoticePainter.pixelHeight(for: PixelSize(width: 160, height: 90)) == 12)
        #expect(NoticePainter.pixelHeight(for: PixelSize(width: 10000, height: 8000)) == 120)
    }

    @Test func aLineTooWideIsDrawnSmallerToFitTheOutput() throws {
        let output = PixelSize(width: 640, height: 480)
        let long = ScreenNotice(lines: [String(repeating: "x", count: 80)])
        let image = try #require(try NoticePainter.paint(long, output: output, indicator: .bottomCenter, with: BlockFont()))
        #expect(image.destination.maxX <= output.width - image.destination.x)
        // Drawn smaller, not cut: the last cell's text is in the box.
        let rightmostText = (0..<image.destination.width).last { image.image[$0, image.destination.height / 2] == 0xFFFF_FFFF }
        #expect(rightmostText != nil && rightmostText! < image.destination.width - 1)
    }

    @Test func theNoticesBlendIsPixelBlendsForEveryAlphaAndValue() {
        for alpha in UInt32(0)...255 {
            for value in stride(from: UInt32(0), through: alpha, by: 5) {
                let source = alpha << 24 | value << 16 | (alpha - value / 2) << 8 | value / 3
                for destination: UInt32 in [0xFF00_0000, 0xFFFF_FFFF, 0xFF80_40C0, 0xFF01_FE7F] {
                    #expect(NoticeImage.over(source, alpha: alpha, destination: destination)
                            == PixelBlend.premultipliedOver(source, destination: destination))
                }
            }
        }
    }

    @Test func nothingIsDrawnForNoLines() throws {
        #expect(try NoticePainter.paint(ScreenNotice(lines: []), output: Self.hd, indicator: .bottomCenter, with: BlockFont()) == nil)
    }

    @Test func theCompositorBlendsTheNoticeOverTheSlides() throws {
        let output = PixelSize(width: 320, height: 180)
        let notice = try #require(try NoticePainter.paint(ScreenNotice(lines: ["ab"]), output: output, indicator: .bottomCenter, with: BlockFont()))
        let frame = PixelImage(size: output, fill: RGBAColor(red: 200, green: 100, blue: 50))
        let canvas = PixelImage(size: output)
        Compositor().compose(Scene(layers: [Scene.Layer(content: .slide(0))], indicator: nil, notice: notice), into: canvas.canvas) { _ in frame }
        let box = notice.destination
        // The box: 63/255 of the slide shows through; text: white; outside: the slide.
        #expect(canvas[box.x, box.y] & 0xFFFFFF == 0x31190C)
        #expect(canvas[box.x + box.width - 1, box.y + box.height / 2] & 0xFFFFFF == 0x31190C)
        let firstCell = (box.x + 6, box.y + 6 + 2)  // 12 px text: padding 6
        #expect(canvas[firstCell.0, firstCell.1] & 0xFFFFFF == 0xFFFFFF)
        #expect(canvas[box.maxX + 1, box.maxY + 1] & 0xFFFFFF == 0xC86432)
    }

    @Test func withANoticeThePlannerComposesEveryLayer() throws {
        let output = PixelSize(width: 1920, height: 1080)
        let notice = try #require(try NoticePainter.paint(ScreenNotice(lines: ["ab"]), output: output, indicator: .bottomCenter, with: BlockFont()))
        let scene = Scene(layers: [Scene.Layer(content: .slide(0))], indicator: IndicatorState(count: 3, position: 1), notice: notice)
        let stack = LayerStack(scene: scene, output: output, indicator: IndicatorStyle()) { _ in LayerStack.Picture(frameSize: output) }
        #expect(stack.layers.count == 3)
        #expect(stack.layers.last?.isComposedOnly == true)
        let planner = PlanePlanner(planes: DisplayPlane.vc4Output(overlays: 8), traits: .of(driver: "vc4"), refreshHz: 60)
        let plan = planner.plan(for: stack)
        #expect(plan.isCPUComposition)
        #expect(stack.scene(composing: plan.composedLayers) == scene)
        // The same scene without it takes the planes.
        var without = scene
        without.notice = nil
        #expect(planner.plan(for: LayerStack(scene: without, output: output, indicator: IndicatorStyle()) { _ in LayerStack.Picture(frameSize: output) }).path == "planes")
    }
}
