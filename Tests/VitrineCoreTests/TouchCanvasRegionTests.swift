import Testing
@testable import VitrineCore

/// A touchscreen on one screen of a canvas: its touches land on that screen's
/// part of the canvas picture, turned as the screen is mounted, rather than
/// across the whole picture.
@Suite("Touch on one screen of a canvas")
struct TouchCanvasRegionTests {
    /// OutputPlanTests' wall: two 1210x680 mm televisions, 20 mm of frames between them.
    static func wallPlan() -> OutputPlan {
        OutputPlan(layout: OutputLayout(OutputPlanTests.wall), single: OutputPlan.SingleOutput(),
                   connectors: OutputPlanTests.pi4(), crtcCount: 6)
    }

    /// A touchscreen over a 1210x680 mm picture area: 0...12100 across at 10 units a millimetre, 0...6800 down.
    static let x = AxisRange(minimum: 0, maximum: 12_100, resolution: 10), y = AxisRange(minimum: 0, maximum: 6_800, resolution: 10)

    @Test func theRightScreensTouchesLandOnTheRightPartOfTheCanvasNotAcrossIt() throws {
        let plan = Self.wallPlan()
        let canvas = try #require(plan.canvases.first)
        let regions = TouchOutputContext.canvasRegions(plan)
        let left = try #require(regions["HDMI-A-1"]), right = try #require(regions["HDMI-A-2"])
        #expect(regions.count == 2)
        #expect("\(left)" == "1922x1080+0+0" && "\(right)" == "1921x1080+1954+0", "as docs/configuration.md shows them")
        #expect(left.x == 0 && right.maxX == canvas.size.width && right.x > left.maxX, "the bezel between them: \(left) \(right)")
        let mapper = TouchCoordinateMapper(xAxis: Self.x, yAxis: Self.y, output: canvas.size, region: right)
        // A tap in the middle of the right-hand screen is in the middle of its part of the picture.
        let middle = mapper.map(x: 6_050, y: 3_400)
        #expect(middle.x == Double(right.x) + Double(right.width) / 2 && middle.y == Double(canvas.size.height) / 2)
        // A swipe from its left edge to its right edge crosses its part alone, bezel and left screen untouched.
        let from = mapper.map(x: 0, y: 3_400), to = mapper.map(x: 12_100, y: 3_400)
        #expect(from.x == Double(right.x) && to.x == Double(canvas.size.width))
        // Its finger travel: the canvas's density (1080 pixels over 680 mm), not twice it as across the whole picture.
        let density = try #require(mapper.pixelsPerMillimetre)
        #expect(abs(density - canvas.pixelsPerMillimetre) < 0.01, "\(density) against \(canvas.pixelsPerMillimetre)")
        // Without a region, the whole output, as before.
        let whole = TouchCoordinateMapper(xAxis: Self.x, yAxis: Self.y, output: canvas.size)
        #expect(whole.map(x: 0, y: 0).x == 0 && whole.map(x: 12_100, y: 0).x == Double(canvas.size.width))
    }

    @Test func aTurnedScreensTouchesTurnWithinItsRegion() {
        // A portrait screen, mounted a quarter turned clockwise, showing 1080x1920+1953+0 of a canvas.
        let region = PixelRect(x: 1953, y: 0, width: 1080, height: 1920), canvas = PixelSize(width: 3033, height: 1920)
        let mapper = TouchCoordinateMapper(xAxis: AxisRange(minimum: 0, maximum: 1920), yAxis: AxisRange(minimum: 0, maximum: 1080),
                                           output: canvas, rotation: .quarter, region: region)
        // The panel's top-left shows the region's bottom-left, its top-right the region's top-left.
        #expect(mapper.map(x: 0, y: 0) == TouchPoint(x: 1953, y: 1920))
        #expect(mapper.map(x: 1920, y: 0) == TouchPoint(x: 1953, y: 0))
        #expect(mapper.map(x: 1920, y: 1080) == TouchPoint(x: 3033, y: 0))
        // A finger moving along the panel's long side moves up the portrait picture.
        let start = mapper.map(x: 200, y: 540), end = mapper.map(x: 1720, y: 540)
        #expect(start.x == end.x && start.y > end.y && start.x == 1953 + 540)
    }

    @Test func thePlanGivesTheContextEachCanvasScreensRegionAndNoneToOthers() throws {
        let plan = Self.wallPlan()
        var context = TouchOutputContext(taken: ["HDMI-A-1", "HDMI-A-2"],
                                         outputs: [TouchOutputBinding.Output(name: "HDMI-A-1"), TouchOutputBinding.Output(name: "HDMI-A-2"),
                                                   TouchOutputBinding.Output(name: "DSI-1")])
        #expect(context.regions.isEmpty, "unplanned: the canvas is not laid out yet")
        context.plan(plan, connectors: OutputPlanTests.pi4())
        guard case .canvas(let rightPart) = try #require(plan.driven.first { $0.connector == "HDMI-A-2" }).showing else {
            Issue.record("HDMI-A-2 shows its part of the canvas")
            return
        }
        #expect(context.region(for: TouchOutputBinding.Assignment(output: "HDMI-A-2", reason: .listedByNone)) == rightPart.region)
        #expect(context.region(for: TouchOutputBinding.Assignment(output: "DSI-1", reason: .listedByNone)) == nil)
        #expect(context.region(for: TouchOutputBinding.Assignment(output: nil, reason: .listedByNone)) == nil)
        #expect(context.region(for: nil) == nil)
    }
}
