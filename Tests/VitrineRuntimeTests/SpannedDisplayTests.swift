import Logging
import Testing
import VitrineCore
@testable import VitrineRuntime

/// A canvas picture spanned across member displays: what each member shows,
/// and how the members' states add up.
@Suite("Spanned display")
struct SpannedDisplayTests {
    static let opaque: UInt32 = 0xFF00_0000
    /// A value no two canvas pixels share: x in bits 12-23, y in bits 0-11.
    static func tag(_ x: Int, _ y: Int) -> UInt32 { opaque | UInt32(x) << 12 | UInt32(y) }

    static func headless(_ width: Int, _ height: Int) -> HeadlessDisplay {
        HeadlessDisplay(size: PixelSize(width: width, height: height), previewPath: nil, logger: Logger(label: "test"))
    }

    /// Draws `value(x, y)` at every pixel of the span's canvas, as the kiosk would.
    static func draw(_ span: SpannedDisplay, _ value: (Int, Int) -> UInt32) {
        let canvas = span.acquireCanvas()!
        for y in 0..<canvas.size.height {
            for x in 0..<canvas.size.width { canvas.row(y)[x] = value(x, y) }
        }
    }

    static func pixel(_ display: HeadlessDisplay, _ x: Int, _ y: Int) -> UInt32 { display.currentFrame[x, y] }

    /// A 70x24 wall: a 30x24 screen, a 10-column bezel, another 30x24 screen.
    let canvasSize = PixelSize(width: 70, height: 24)
    let left = PixelRect(x: 0, y: 0, width: 30, height: 24)
    let right = PixelRect(x: 40, y: 0, width: 30, height: 24)

    @Test func eachMemberShowsExactlyItsRegionAndNoBezel() throws {
        let first = Self.headless(30, 24), second = FakeDisplay("right", size: PixelSize(width: 30, height: 24))
        let span = SpannedDisplay(canvasSize: canvasSize, members: [
            SpannedDisplay.Member(display: first, region: left), SpannedDisplay.Member(display: second, region: right)])
        #expect(span.outputSize == canvasSize)
        Self.draw(span, Self.tag)
        try span.present(at: .seconds(1))
        for y in 0..<24 {
            for x in 0..<30 {
                #expect(Self.pixel(first, x, y) == Self.tag(x, y))
                #expect(second[x, y] == Self.tag(40 + x, y))
            }
        }
        #expect(second.paddingIntact, "nothing is written past a row of a strided buffer")
        #expect(first.framesPresented == 1 && second.presented == [.seconds(1)])
    }

    @Test func distinctColoursPerRegionAndTheBezelShowsNowhereAtAnyScale() throws {
        let red = RGBAColor(red: 255, green: 0, blue: 0).xrgb, blue = RGBAColor(red: 0, green: 0, blue: 255).xrgb
        let green = RGBAColor(red: 0, green: 255, blue: 0).xrgb
        // The same region at its own size, shrunk 1.5 times, and enlarged 1.5 times:
        // a sample at a region's edge must never reach the bezel beside it.
        for size in [PixelSize(width: 30, height: 24), PixelSize(width: 20, height: 16), PixelSize(width: 45, height: 36)] {
            let first = FakeDisplay("left", size: size), second = FakeDisplay("right", size: size)
            let span = SpannedDisplay(canvasSize: canvasSize, members: [
                SpannedDisplay.Member(display: first, region: left), SpannedDisplay.Member(display: second, region: right)])
            Self.draw(span) { x, _ in x < 30 ? red : x >= 40 ? blue : green }
            try span.present(at: .seconds(1))
            #expect(first.pixels.allSatisfy { $0 == red }, "\(size): the left screen shows its region only")
            #expect(second.pixels.allSatisfy { $0 == blue }, "\(size): the right screen shows its region only")
        }
    }

    @Test func aRegionScaledToItsMemberIsSampledBilinearlyAtPixelCentres() throws {
        // Red rises 8 levels a column across the right region and green 5 a row:
        // a bilinear sample of a linear ramp is the ramp at the sample's position,
        // clamped to the region. The steep ramp tells a sample a quarter of a
        // pixel off (2 levels) from the rounding (1 level).
        let gradient: (Int, Int) -> UInt32 = { x, y in Self.opaque | UInt32(8 * max(x - 40, 0)) << 16 | UInt32(5 * y) << 8 }
        for size in [PixelSize(width: 20, height: 16), PixelSize(width: 45, height: 36), PixelSize(width: 30, height: 10)] {
            let member = FakeDisplay("right", size: size)
            let span = SpannedDisplay(canvasSize: canvasSize, members: [SpannedDisplay.Member(display: member, region: right)])
            Self.draw(span, gradient)
            try span.present(at: .seconds(1))
            func expected(_ u: Int, output: Int, region: Int, origin: Int, step: Double) -> Double {
                let position = (Double(u) + 0.5) * Double(region) / Double(output) - 0.5
                return step * (Double(origin) + min(max(position, 0), Double(region - 1)))
            }
            for v in 0..<size.height {
                for u in 0..<size.width {
                    let value = member[u, v]
                    let red = Double(value >> 16 & 0xFF), greenValue = Double(value >> 8 & 0xFF)
                    #expect(abs(red - expected(u, output: size.width, region: 30, origin: 0, step: 8)) <= 1, "\(size) (\(u), \(v))")
                    #expect(abs(greenValue - expected(v, output: size.height, region: 24, origin: 0, step: 5)) <= 1, "\(size) (\(u), \(v))")
                }
            }
        }
    }

    @Test(arguments: DisplayRotation.allCases)
    func aTurnedMemberShowsItsRegionTurnedAsExifOrientationMapsIt(rotation: DisplayRotation) throws {
        let orientation = ExifOrientation(turningClockwise: rotation)
        let panel = orientation.swapsAxes ? right.size.transposed : right.size
        let member = FakeDisplay("right", size: panel)
        let span = SpannedDisplay(canvasSize: canvasSize, members: [SpannedDisplay.Member(display: member, region: right, rotation: rotation)])
        Self.draw(span, Self.tag)
        try span.present(at: .seconds(1))
        for v in 0..<panel.height {
            for u in 0..<panel.width {
                let upright = orientation.storedPixel(u: u, v: v, stored: right.size)
                #expect(member[u, v] == Self.tag(right.x + upright.x, right.y + upright.y), "\(rotation) (\(u), \(v))")
            }
        }
        #expect(member.paddingIntact)
    }

    @Test(arguments: [DisplayRotation.quarter, .half, .threeQuarters])
    func aTurnedScaledMemberShowsTheUprightScaledPictureTurned(rotation: DisplayRotation) throws {
        let orientation = ExifOrientation(turningClockwise: rotation)
        let logical = PixelSize(width: 20, height: 16)
        let upright = FakeDisplay("upright", size: logical)
        let turned = FakeDisplay("turned", size: orientation.displaySize(forStored: logical))
        let span = SpannedDisplay(canvasSize: canvasSize, members: [
            SpannedDisplay.Member(display: upright, region: right),
            SpannedDisplay.Member(display: turned, region: right, rotation: rotation)])
        Self.draw(span) { x, y in Self.opaque | UInt32(3 * x) << 16 | UInt32(7 * y) << 8 | UInt32((x * y) % 256) }
        try span.present(at: .seconds(1))
        for v in 0..<turned.outputSize.height {
            for u in 0..<turned.outputSize.width {
                let source = orientation.storedPixel(u: u, v: v, stored: logical)
                #expect(turned[u, v] == upright[source.x, source.y], "\(rotation) (\(u), \(v))")
            }
        }
    }

    @Test func anUnpluggedMemberDoesNotHoldUpTheOthers() throws {
        let first = FakeDisplay("left", size: left.size), second = FakeDisplay("right", size: right.size)
        let span = SpannedDisplay(canvasSize: canvasSize, members: [
            SpannedDisplay.Member(display: first, region: left), SpannedDisplay.Member(display: second, region: right)])
        second.isShowing = false
        #expect(span.isShowing && span.isReadyForFrame)
        Self.draw(span, Self.tag)
        try span.present(at: .seconds(1))
        #expect(first.presented == [.seconds(1)] && second.presented.isEmpty)
        #expect(first[0, 0] == Self.tag(0, 0))
        #expect(second.pixels.allSatisfy { $0 == FakeDisplay.paddingMarker }, "an unplugged member's buffer is not drawn into")

        // A flip pending on an unplugged member does not count either.
        second.isFlipPending = true
        #expect(span.isReadyForFrame)
        // None showing: nothing to show frames on.
        first.isShowing = false
        #expect(!span.isShowing && !span.isReadyForFrame)
        // Back: it takes the frame again.
        first.isShowing = true
        second.isShowing = true
        second.isFlipPending = false
        try span.present(at: .seconds(2))
        #expect(second.presented == [.seconds(2)] && second[0, 0] == Self.tag(40, 0))
    }

    @Test func aFlipPendingOnAnyShowingMemberHoldsTheFrameForAll() throws {
        let first = FakeDisplay("left", size: left.size), second = FakeDisplay("right", size: right.size)
        first.flipsOnPresent = true
        second.flipsOnPresent = true
        let span = SpannedDisplay(canvasSize: canvasSize, members: [
            SpannedDisplay.Member(display: first, region: left), SpannedDisplay.Member(display: second, region: right)])
        #expect(span.isReadyForFrame && !span.isFlipPending)
        try span.present(at: .seconds(1))
        #expect(!span.isReadyForFrame && span.isFlipPending)
        first.completeFlip(at: .seconds(1.016))
        #expect(!span.isReadyForFrame && span.isFlipPending, "the right screen's flip is still pending")
        second.completeFlip(at: .seconds(1.017))
        #expect(span.isReadyForFrame && !span.isFlipPending)
        #expect(span.lastScanout == .seconds(1.017), "the latest member's scanout")
    }

    @Test func aDarkMemberIsLeftOutAndPowerGoesToEveryMemberDespiteAFailure() throws {
        let first = FakeDisplay("left", size: left.size), second = FakeDisplay("right", size: right.size)
        let span = SpannedDisplay(canvasSize: canvasSize, members: [
            SpannedDisplay.Member(display: first, region: left), SpannedDisplay.Member(display: second, region: right)])
        first.failsPower = true
        #expect(throws: FakeDisplay.Failure(what: "power left")) { try span.setPower(false) }
        #expect(first.powerCalls == [false] && second.powerCalls == [false], "the right screen was switched despite the left one failing")
        #expect(first.isPoweredOn && !second.isPoweredOn)
        #expect(span.isPoweredOn, "lit while any member is, so that the kiosk tries again")
        // The left screen, still lit, takes frames; the dark one is left out.
        #expect(span.isReadyForFrame)
        try span.present(at: .seconds(1))
        #expect(first.presented.count == 1 && second.presented.isEmpty)
        first.failsPower = false
        try span.setPower(false)
        #expect(!span.isPoweredOn && !span.isReadyForFrame, "nothing is drawn while every screen is dark")
        try span.setPower(true)
        #expect(span.isPoweredOn && first.isPoweredOn && second.isPoweredOn)
    }

    @Test func aFailingPresentStillPresentsTheOthers() throws {
        let first = FakeDisplay("left", size: left.size), second = FakeDisplay("right", size: right.size)
        let span = SpannedDisplay(canvasSize: canvasSize, members: [
            SpannedDisplay.Member(display: first, region: left), SpannedDisplay.Member(display: second, region: right)])
        first.failsPresent = true
        Self.draw(span, Self.tag)
        #expect(throws: FakeDisplay.Failure(what: "present left")) { try span.present(at: .seconds(1)) }
        #expect(second.presented == [.seconds(1)] && second[29, 23] == Self.tag(69, 23))
    }

    @Test func generationChangesWhenAnyMembersDoesEvenInOppositeDirections() {
        let first = FakeDisplay("left", size: left.size), second = FakeDisplay("right", size: right.size)
        let span = SpannedDisplay(canvasSize: canvasSize, members: [
            SpannedDisplay.Member(display: first, region: left), SpannedDisplay.Member(display: second, region: right)])
        let start = span.generation
        #expect(span.generation == start)
        second.generation += 1
        let afterReplug = span.generation
        #expect(afterReplug != start)
        #expect(span.generation == afterReplug, "unchanged until a member changes again")
        first.generation += 1
        second.generation -= 1
        #expect(span.generation != afterReplug, "a sum would not have changed")
    }

    @Test func eventsGoToEveryMemberWatchingTheDescriptor() throws {
        let first = FakeDisplay("left", size: left.size), second = FakeDisplay("right", size: right.size)
        first.eventDescriptors = [5, 7]
        second.eventDescriptors = [7, 9]
        let span = SpannedDisplay(canvasSize: canvasSize, members: [
            SpannedDisplay.Member(display: first, region: left), SpannedDisplay.Member(display: second, region: right)])
        #expect(span.eventDescriptors == [5, 7, 9])
        try span.handleEvents(on: 9)
        #expect(first.handled.isEmpty && second.handled == [9])
        try span.handleEvents(on: 5)
        #expect(first.handled == [5] && second.handled == [9])
        first.failsEvents = true
        #expect(throws: FakeDisplay.Failure(what: "events left")) { try span.handleEvents(on: 7) }
        #expect(first.handled == [5, 7] && second.handled == [9, 7], "a shared descriptor reaches both, despite a failure")
        try span.handleEvents(on: 42)
        #expect(first.handled == [5, 7] && second.handled == [9, 7])
    }

    @Test func theSpanAnswersForItsMembers() {
        let first = FakeDisplay("left", size: left.size, connector: "HDMI-A-1")
        let second = FakeDisplay("right", size: right.size, connector: "HDMI-A-2")
        first.pacesItself = false
        second.refreshInterval = .microseconds(8_333)
        let span = SpannedDisplay(canvasSize: canvasSize, members: [
            SpannedDisplay.Member(display: first, region: left),
            SpannedDisplay.Member(display: second, region: right, rotation: .half)])
        #expect(span.refreshInterval == .microseconds(8_333))
        #expect(span.pacesItself)
        #expect(span.connectorName == "HDMI-A-1")
        #expect(span.lastScanout == nil)
        #expect(span.description == "span 70x24 over [30x24+0+0 on fake left 30x24, 30x24+40+0 rotation 180 on fake right 30x24]")
        second.pacesItself = false
        #expect(!span.pacesItself)
        span.close()
        #expect(first.closed && second.closed)
    }
}
