import Testing
import VitrineCore
@testable import VitrineRuntime

/// A finger on one screen of a canvas lands on what that screen shows under
/// it: the touch mapper with the screen's region and rotation against what
/// `SpannedDisplay` draws on the panel.
@Suite("Touch on a canvas screen, against its picture")
struct CanvasTouchTests {
    static func tag(_ x: Int, _ y: Int) -> UInt32 { 0xFF00_0000 | UInt32(x) << 12 | UInt32(y) }

    @Test(arguments: DisplayRotation.allCases)
    func aTapLandsOnTheCanvasPixelUnderTheFinger(rotation: DisplayRotation) throws {
        // A 70x24 canvas: a 30x24 screen, a 10-column bezel, then the turned screen.
        let canvas = PixelSize(width: 70, height: 24), left = PixelRect(x: 0, y: 0, width: 30, height: 24)
        let right = PixelRect(x: 40, y: 0, width: 30, height: 24)
        let orientation = ExifOrientation(turningClockwise: rotation)
        let panel = orientation.swapsAxes ? right.size.transposed : right.size
        let screen = FakeDisplay("right", size: panel)
        let span = SpannedDisplay(canvasSize: canvas, members: [
            SpannedDisplay.Member(display: FakeDisplay("left", size: left.size), region: left),
            SpannedDisplay.Member(display: screen, region: right, rotation: rotation)])
        let frame = try #require(span.acquireCanvas())
        for y in 0..<canvas.height { for x in 0..<canvas.width { frame.row(y)[x] = Self.tag(x, y) } }
        try span.present(at: .seconds(1))
        // The panel's touchscreen: two raw units a panel pixel, so that 2u + 1 is a pixel's centre.
        let settings = TouchInputSettings(output: canvas)
        let mapper = TouchCoordinateMapper(xAxis: AxisRange(minimum: 0, maximum: Int32(2 * panel.width)),
                                           yAxis: AxisRange(minimum: 0, maximum: Int32(2 * panel.height)),
                                           output: settings.output, rotation: rotation, region: right)
        for v in 0..<panel.height {
            for u in 0..<panel.width {
                let point = mapper.map(x: Int32(2 * u + 1), y: Int32(2 * v + 1))
                let x = Int(point.x.rounded(.down)), y = Int(point.y.rounded(.down))
                #expect(screen[u, v] == Self.tag(x, y), "\(rotation): panel (\(u), \(v)) touched at \(point)")
            }
        }
    }

    @Test func theSettingsMapADeviceBoundToACanvasScreenOntoItsRegion() {
        let region = PixelRect(x: 40, y: 0, width: 30, height: 24)
        let device = InputDeviceDescription(name: "panel", axes: [:])
        let settings = TouchInputSettings(output: PixelSize(width: 70, height: 24))
        let mapper = settings.mapper(for: device, kind: .multitouchB, rotation: .half, region: region)
        #expect(mapper.region == region && mapper.rotation == .half)
        #expect(mapper.map(x: 0, y: 0) == TouchPoint(x: 70, y: 24), "the turned panel's top-left is the region's bottom-right")
    }
}
