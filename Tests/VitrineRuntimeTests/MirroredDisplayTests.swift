import Logging
import Testing
import VitrineCore
@testable import VitrineRuntime

/// A source display and its mirrors: the same picture on each at its own
/// size, and the group's states.
@Suite("Mirrored display")
struct MirroredDisplayTests {
    static let opaque: UInt32 = 0xFF00_0000
    static let black = RGBAColor.black.xrgb
    /// A value no two pixels share, never black.
    static func tag(_ x: Int, _ y: Int) -> UInt32 { opaque | UInt32(x + 1) << 12 | UInt32(y + 1) }

    static func draw(_ display: MirroredDisplay, _ value: (Int, Int) -> UInt32) {
        let canvas = display.acquireCanvas()!
        #expect(canvas.size == display.outputSize)
        for y in 0..<canvas.size.height {
            for x in 0..<canvas.size.width { canvas.row(y)[x] = value(x, y) }
        }
    }

    /// A 48x27 source (1920x1080 shrunk 40 times).
    let sourceSize = PixelSize(width: 48, height: 27)

    @Test func aMirrorOfTheSourcesSizeIsAnExactCopy() throws {
        let source = HeadlessDisplay(size: sourceSize, previewPath: nil, logger: Logger(label: "test"))
        let mirror = FakeDisplay("mirror", size: sourceSize)
        let group = MirroredDisplay(source: .init(display: source), mirrors: [.init(display: mirror)])
        #expect(group.outputSize == sourceSize)
        Self.draw(group, Self.tag)
        try group.present(at: .seconds(1))
        for y in 0..<sourceSize.height {
            for x in 0..<sourceSize.width {
                #expect(source.currentFrame[x, y] == Self.tag(x, y))
                #expect(mirror[x, y] == Self.tag(x, y))
            }
        }
        #expect(mirror.paddingIntact)
        #expect(source.framesPresented == 1 && mirror.presented == [.seconds(1)])
    }

    @Test func aSmallerMirrorOfTheSameShapeIsScaledBilinearly() throws {
        // 1920x1080 to 1280x720, shrunk 40 times: 1.5 source pixels a mirror pixel.
        let mirror = FakeDisplay("720p", size: PixelSize(width: 32, height: 18))
        let group = MirroredDisplay(source: .init(display: FakeDisplay("source", size: sourceSize)), mirrors: [.init(display: mirror)])
        Self.draw(group) { x, y in Self.opaque | UInt32(5 * x) << 16 | UInt32(9 * y) << 8 }
        try group.present(at: .seconds(1))
        func expected(_ u: Int, source: Int, mirror: Int, step: Double) -> Double {
            let position = (Double(u) + 0.5) * Double(source) / Double(mirror) - 0.5
            return step * min(max(position, 0), Double(source - 1))
        }
        for v in 0..<18 {
            for u in 0..<32 {
                let red = Double(mirror[u, v] >> 16 & 0xFF), green = Double(mirror[u, v] >> 8 & 0xFF)
                #expect(abs(red - expected(u, source: 48, mirror: 32, step: 5)) <= 1, "(\(u), \(v))")
                #expect(abs(green - expected(v, source: 27, mirror: 18, step: 9)) <= 1, "(\(u), \(v))")
            }
        }
    }

    @Test(arguments: [PixelSize(width: 32, height: 24), PixelSize(width: 60, height: 20), PixelSize(width: 96, height: 60)])
    func aMirrorOfAnotherShapeIsLetterboxedWithItsAspectRatioKept(size: PixelSize) throws {
        let mirror = FakeDisplay("mirror", size: size)
        let group = MirroredDisplay(source: .init(display: FakeDisplay("source", size: sourceSize)), mirrors: [.init(display: mirror)])
        Self.draw(group, Self.tag)
        try group.present(at: .seconds(1))
        let placement = SlideLayout.placement(of: sourceSize, in: size, fit: .contain)
        // The picture fills one side, and keeps 16:9 within a pixel on the other.
        #expect(placement.width == size.width || placement.height == size.height)
        #expect(abs(Double(placement.width) / Double(placement.height) - 48.0 / 27) < 48.0 / 27 / Double(min(placement.width, placement.height)))
        for y in 0..<size.height {
            for x in 0..<size.width {
                let inside = placement.x <= x && x < placement.maxX && placement.y <= y && y < placement.maxY
                #expect((mirror[x, y] != Self.black) == inside, "\(size) (\(x), \(y)): black exactly outside \(placement)")
            }
        }
        #expect(mirror.paddingIntact)
    }

    @Test func aTurnedMirrorShowsTheUprightPictureTurnedAndLetterboxedAtItsUprightSize() throws {
        // A portrait mirror of the source's size turned: an exact turned copy.
        let portrait = FakeDisplay("portrait", size: sourceSize.transposed)
        // A landscape panel mounted a quarter turn: upright it is 27x48, so the
        // landscape picture gets bars above and below.
        let turnedLandscape = FakeDisplay("turned", size: sourceSize)
        let group = MirroredDisplay(source: .init(display: FakeDisplay("source", size: sourceSize)), mirrors: [
            .init(display: portrait, rotation: .quarter), .init(display: turnedLandscape, rotation: .quarter)])
        Self.draw(group, Self.tag)
        try group.present(at: .seconds(1))
        let orientation = ExifOrientation.right
        for v in 0..<portrait.outputSize.height {
            for u in 0..<portrait.outputSize.width {
                let upright = orientation.storedPixel(u: u, v: v, stored: sourceSize)
                #expect(portrait[u, v] == Self.tag(upright.x, upright.y), "(\(u), \(v))")
            }
        }
        let logical = sourceSize.transposed
        let placement = SlideLayout.placement(of: sourceSize, in: logical, fit: .contain)
        #expect(placement.width == logical.width && placement.height < logical.height, "bars above and below, upright")
        for v in 0..<turnedLandscape.outputSize.height {
            for u in 0..<turnedLandscape.outputSize.width {
                let (x, y) = orientation.storedPixel(u: u, v: v, stored: logical)
                let inside = placement.y <= y && y < placement.maxY && placement.x <= x && x < placement.maxX
                #expect((turnedLandscape[u, v] != Self.black) == inside, "(\(u), \(v)) is upright (\(x), \(y))")
            }
        }
    }

    @Test func aTurnedSourceGivesTheKioskItsUprightSize() {
        let source = FakeDisplay("source", size: PixelSize(width: 1080, height: 1920))
        let group = MirroredDisplay(source: .init(display: source, rotation: .threeQuarters), mirrors: [])
        #expect(group.outputSize == PixelSize(width: 1920, height: 1080))
        #expect(group.acquireCanvas()?.size == PixelSize(width: 1920, height: 1080))
    }

    @Test func anUnpluggedSourceDoesNotStopTheMirrors() throws {
        let source = FakeDisplay("source", size: sourceSize)
        let mirror = FakeDisplay("mirror", size: sourceSize)
        let group = MirroredDisplay(source: .init(display: source), mirrors: [.init(display: mirror)])
        source.isShowing = false
        #expect(group.isShowing && group.isReadyForFrame)
        Self.draw(group, Self.tag)
        try group.present(at: .seconds(1))
        #expect(source.presented.isEmpty && mirror.presented == [.seconds(1)])
        #expect(mirror[47, 26] == Self.tag(47, 26))
        mirror.isShowing = false
        #expect(!group.isShowing && !group.isReadyForFrame)
    }

    @Test func theFrameFollowsTheSourcesSizeWhenItsModeChanges() throws {
        let source = FakeDisplay("source", size: sourceSize)
        let mirror = FakeDisplay("mirror", size: sourceSize)
        let group = MirroredDisplay(source: .init(display: source), mirrors: [.init(display: mirror)])
        let before = group.generation
        source.outputSize = PixelSize(width: 24, height: 27)
        source.generation += 1
        #expect(group.generation != before, "the kiosk sees the new size")
        #expect(group.outputSize == PixelSize(width: 24, height: 27))
        Self.draw(group, Self.tag)
        try group.present(at: .seconds(1))
        #expect(source[23, 26] == Self.tag(23, 26))
        // The wider mirror pillarboxes the narrower picture.
        let placement = SlideLayout.placement(of: PixelSize(width: 24, height: 27), in: sourceSize, fit: .contain)
        #expect(placement.x > 0 && mirror[0, 13] == Self.black && mirror[placement.x, 0] == Self.tag(0, 0))
    }

    @Test func aFlipPendingOnAMirrorHoldsTheFrameAndFailuresStayWithTheirMember() throws {
        let source = FakeDisplay("source", size: sourceSize, connector: "HDMI-A-1")
        let mirror = FakeDisplay("mirror", size: sourceSize, connector: "HDMI-A-2")
        source.eventDescriptors = [3]
        mirror.eventDescriptors = [4]
        let group = MirroredDisplay(source: .init(display: source), mirrors: [.init(display: mirror)])
        #expect(group.connectorName == "HDMI-A-1" && group.eventDescriptors == [3, 4])
        #expect(group.description == "mirror of fake source 48x27 to [fake mirror 48x27]")
        mirror.isFlipPending = true
        #expect(!group.isReadyForFrame && group.isFlipPending)
        try group.handleEvents(on: 4)
        #expect(source.handled.isEmpty && mirror.handled == [4])
        mirror.completeFlip(at: .seconds(0.5))
        #expect(group.isReadyForFrame && group.lastScanout == .seconds(0.5))

        source.failsPresent = true
        Self.draw(group, Self.tag)
        #expect(throws: FakeDisplay.Failure(what: "present source")) { try group.present(at: .seconds(1)) }
        #expect(mirror.presented == [.seconds(1)] && mirror[0, 0] == Self.tag(0, 0))

        source.failsPower = true
        #expect(throws: FakeDisplay.Failure(what: "power source")) { try group.setPower(false) }
        #expect(!mirror.isPoweredOn && group.isPoweredOn, "the mirror went dark; the group is lit while the source is")
        group.close()
        #expect(source.closed && mirror.closed)
    }
}
