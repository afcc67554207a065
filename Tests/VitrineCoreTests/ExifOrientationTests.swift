import Testing
@testable import VitrineCore

/// The eight EXIF orientations, checked against the standard definitions with
/// rotate/flip helpers written here, independently of `storedPixel`.
@Suite("ExifOrientation and SlideFramer")
struct ExifOrientationTests {
    typealias Grid = [[UInt32]]

    // MARK: Reference transforms on row grids

    static func mirrorHorizontal(_ g: Grid) -> Grid { g.map { Array($0.reversed()) } }
    static func mirrorVertical(_ g: Grid) -> Grid { Array(g.reversed()) }
    /// Turns the picture a quarter turn clockwise: the left column becomes the top row.
    static func rotateClockwise(_ g: Grid) -> Grid {
        let h = g.count, w = g[0].count
        return (0..<w).map { r in (0..<h).map { c in g[h - 1 - c][r] } }
    }
    static func rotateCounterClockwise(_ g: Grid) -> Grid {
        let h = g.count, w = g[0].count
        return (0..<w).map { r in (0..<h).map { c in g[c][w - 1 - r] } }
    }
    /// Mirror about the top-left/bottom-right diagonal.
    static func transpose(_ g: Grid) -> Grid {
        let h = g.count, w = g[0].count
        return (0..<w).map { r in (0..<h).map { c in g[c][r] } }
    }
    /// Mirror about the top-right/bottom-left diagonal.
    static func transverse(_ g: Grid) -> Grid {
        let h = g.count, w = g[0].count
        return (0..<w).map { r in (0..<h).map { c in g[h - 1 - c][w - 1 - r] } }
    }

    /// The upright picture for a stored picture, by the EXIF definition of each value.
    static func upright(_ g: Grid, _ orientation: ExifOrientation) -> Grid {
        switch orientation.rawValue {
        case 1: g
        case 2: mirrorHorizontal(g)
        case 3: rotateClockwise(rotateClockwise(g))
        case 4: mirrorVertical(g)
        case 5: transpose(g)
        case 6: rotateClockwise(g)
        case 7: transverse(g)
        case 8: rotateCounterClockwise(g)
        default: fatalError()
        }
    }

    /// A 3x2 stored picture whose pixels are all different:
    ///     a b c
    ///     d e f
    static let (a, b, c, d, e, f): (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32) =
        (0xFF10_2030, 0xFF40_5060, 0xFF70_8090, 0xFFA0_B0C0, 0xFFD0_E0F0, 0xFF01_0203)
    static let stored: Grid = [[a, b, c], [d, e, f]]

    // MARK: The helpers themselves

    @Test func referenceHelpersAgreeWithTheStandardPictures() {
        let (a, b, c, d, e, f) = (Self.a, Self.b, Self.c, Self.d, Self.e, Self.f)
        // 6: rotate 90° clockwise.
        #expect(Self.rotateClockwise(Self.stored) == [[d, a], [e, b], [f, c]])
        // 8: rotate 90° counter-clockwise.
        #expect(Self.rotateCounterClockwise(Self.stored) == [[c, f], [b, e], [a, d]])
        // 3: rotate 180°.
        #expect(Self.upright(Self.stored, .down) == [[f, e, d], [c, b, a]])
        // 5 is mirror-horizontal then 270° clockwise; 7 is mirror-horizontal then 90° clockwise.
        #expect(Self.transpose(Self.stored) == Self.rotateCounterClockwise(Self.mirrorHorizontal(Self.stored)))
        #expect(Self.transverse(Self.stored) == Self.rotateClockwise(Self.mirrorHorizontal(Self.stored)))
        #expect(Self.transverse(Self.stored) == [[f, c], [e, b], [d, a]])
        #expect(Self.transpose(Self.stored) == [[a, d], [b, e], [c, f]])
        // Four quarter turns are the identity; counter-clockwise undoes clockwise.
        let g = Self.stored
        #expect(Self.rotateClockwise(Self.rotateClockwise(Self.rotateClockwise(Self.rotateClockwise(g)))) == g)
        #expect(Self.rotateCounterClockwise(Self.rotateClockwise(g)) == g)
    }

    // MARK: Orientation values

    @Test func rawValuesAndAxes() {
        #expect(ExifOrientation.allCases.map(\.rawValue) == Array(1...8))
        #expect(ExifOrientation(rawValue: 0) == nil)
        #expect(ExifOrientation(rawValue: 9) == nil)
        #expect(ExifOrientation.right.rawValue == 6)
        #expect(ExifOrientation.left.rawValue == 8)
        for orientation in ExifOrientation.allCases {
            #expect(orientation.swapsAxes == (orientation.rawValue >= 5))
            let display = orientation.displaySize(forStored: PixelSize(width: 3, height: 2))
            #expect(display == (orientation.swapsAxes ? PixelSize(width: 2, height: 3) : PixelSize(width: 3, height: 2)))
        }
    }

    @Test(arguments: ExifOrientation.allCases)
    func storedPixelMatchesTheDefinition(orientation: ExifOrientation) {
        // 4x3 with unique values, so every mapping is checked on a non-square picture.
        let storedSize = PixelSize(width: 4, height: 3)
        let grid: Grid = (0..<3).map { y in (0..<4).map { x in UInt32(y * 4 + x) } }
        let expected = Self.upright(grid, orientation)
        let display = orientation.displaySize(forStored: storedSize)
        #expect(expected.count == display.height && expected[0].count == display.width)
        for v in 0..<display.height {
            for u in 0..<display.width {
                let (x, y) = orientation.storedPixel(u: u, v: v, stored: storedSize)
                #expect(grid[y][x] == expected[v][u], "\(orientation) at (\(u), \(v))")
            }
        }
    }

    // MARK: Turning pictures upright

    @Test(arguments: ExifOrientation.allCases)
    func uprightedMatchesTheDefinition(orientation: ExifOrientation) {
        let picture = makeImage(rows: Self.stored)
        let result = orientation.uprighted(picture)
        #expect(result.size == orientation.displaySize(forStored: picture.size))
        #expect(grid(result) == Self.upright(Self.stored, orientation))
    }

    /// A picture larger than a tile of the turn (32 pixels) and of no
    /// multiple of it, drawn into a view with a stride of its own: every
    /// pixel where `storedPixel` says, and nothing written beside the view.
    @Test(arguments: ExifOrientation.allCases)
    func aLargePictureTurnsTileByTileIntoAStridedView(orientation: ExifOrientation) {
        let stored = PixelImage(size: PixelSize(width: 70, height: 45))
        for index in 0..<stored.size.pixelCount { stored.pixels[index] = UInt32(index) | 0xFF00_0000 }
        // Turned from a part of a larger frame, as a composite display's member is.
        let frame = PixelImage(size: PixelSize(width: 75, height: 47))
        for y in 0..<45 { for x in 0..<70 { frame[x + 3, y + 1] = stored[x, y] } }
        let part = frame.canvas.cropped(to: PixelRect(x: 3, y: 1, width: 70, height: 45))
        let display = orientation.displaySize(forStored: stored.size)
        let panel = PixelImage(size: PixelSize(width: display.width + 5, height: display.height + 2))
        let border: UInt32 = 0x1234_5678
        for index in 0..<panel.size.pixelCount { panel.pixels[index] = border }
        orientation.draw(part, into: panel.canvas.cropped(to: PixelRect(x: 2, y: 1, width: display.width, height: display.height)))
        let upright = orientation.uprighted(stored)
        var wrong = 0
        for v in 0..<panel.height {
            for u in 0..<panel.width {
                let inside = u >= 2 && u < 2 + display.width && v >= 1 && v < 1 + display.height
                let expected: UInt32
                if inside {
                    let (x, y) = orientation.storedPixel(u: u - 2, v: v - 1, stored: stored.size)
                    expected = stored[x, y]
                    if upright[u - 2, v - 1] != expected { wrong += 1 }
                } else {
                    expected = border
                }
                if panel[u, v] != expected { wrong += 1 }
            }
        }
        #expect(wrong == 0, "\(orientation): \(wrong) pixels wrong")
    }

    @Test func orientationsSixAndEightExplicitly() {
        let (a, b, c, d, e, f) = (Self.a, Self.b, Self.c, Self.d, Self.e, Self.f)
        let picture = makeImage(rows: Self.stored)
        #expect(grid(ExifOrientation.right.uprighted(picture)) == [[d, a], [e, b], [f, c]])
        #expect(grid(ExifOrientation.left.uprighted(picture)) == [[c, f], [b, e], [a, d]])
        #expect(grid(ExifOrientation.up.uprighted(picture)) == [[a, b, c], [d, e, f]])
        #expect(grid(ExifOrientation.upMirrored.uprighted(picture)) == [[c, b, a], [f, e, d]])
        #expect(grid(ExifOrientation.downMirrored.uprighted(picture)) == [[d, e, f], [a, b, c]])
    }

    /// Framing a stored picture into a canvas of exactly its display size (the
    /// placement equals the display size) yields the upright picture, pixel for pixel.
    @Test(arguments: ExifOrientation.allCases)
    func frameAtDisplaySizeIsExactlyUpright(orientation: ExifOrientation) {
        let picture = makeImage(rows: Self.stored)
        let display = orientation.displaySize(forStored: picture.size)
        for fit in FitMode.allCases {
            #expect(SlideLayout.placement(of: display, in: display, fit: fit)
                == PixelRect(x: 0, y: 0, width: display.width, height: display.height))
            let canvas = PixelImage(size: display, fill: RGBAColor(red: 1, green: 2, blue: 3))
            SlideFramer.frame(decoded: picture, orientation: orientation, fit: fit, background: .black, into: canvas.canvas)
            #expect(grid(canvas) == Self.upright(Self.stored, orientation), "\(orientation) \(fit)")
        }
    }

    @Test(arguments: ExifOrientation.allCases)
    func frameLetterboxesTheUprightPicture(orientation: ExifOrientation) {
        let picture = makeImage(rows: Self.stored)
        let upright = Self.upright(Self.stored, orientation)
        let display = orientation.displaySize(forStored: picture.size)
        // A canvas as tall as the upright picture and two pixels wider: contain is at
        // scale 1, centred, with one background column on each side.
        let canvasSize = PixelSize(width: display.width + 2, height: display.height)
        let canvas = PixelImage(size: canvasSize)
        let background = RGBAColor(red: 9, green: 9, blue: 9)
        SlideFramer.frame(decoded: picture, orientation: orientation, fit: .contain, background: background, into: canvas.canvas)
        let rows = grid(canvas)
        for y in 0..<canvasSize.height {
            #expect(rows[y].first == background.xrgb)
            #expect(rows[y].last == background.xrgb)
            #expect(Array(rows[y][1...display.width]) == upright[y], "\(orientation) row \(y)")
        }
    }

    @Test(arguments: ExifOrientation.allCases)
    func frameScaledUpKeepsTheOrientationCorners(orientation: ExifOrientation) {
        // Upscaled 3x with bilinear filtering: the four corner pixels stay exactly
        // the upright picture's corners, which pins down the orientation.
        let picture = makeImage(rows: Self.stored)
        let upright = Self.upright(Self.stored, orientation)
        let display = orientation.displaySize(forStored: picture.size)
        let canvasSize = PixelSize(width: display.width * 3, height: display.height * 3)
        let canvas = PixelImage(size: canvasSize)
        SlideFramer.frame(decoded: picture, orientation: orientation, fit: .contain, background: .black, into: canvas.canvas)
        let w = canvasSize.width, h = canvasSize.height
        #expect(canvas[0, 0] == upright[0][0])
        #expect(canvas[w - 1, 0] == upright[0][display.width - 1])
        #expect(canvas[0, h - 1] == upright[display.height - 1][0])
        #expect(canvas[w - 1, h - 1] == upright[display.height - 1][display.width - 1])
        // The centre of each 3x3 block is exactly the source pixel too (bilinear at a
        // source centre).
        for v in 0..<display.height {
            for u in 0..<display.width {
                #expect(canvas[u * 3 + 1, v * 3 + 1] == upright[v][u], "\(orientation) block (\(u), \(v))")
            }
        }
    }

    @Test func frameCoverCropsSymmetrically() {
        // A 6-wide, 1-high stored strip (orientation up) covering a 2x1 canvas:
        // cover scale 1, placement x = -2, so the middle two pixels show.
        let strip = makeImage(rows: [[1, 2, 3, 4, 5, 6].map { 0xFF00_0000 | UInt32($0) }])
        let canvas = PixelImage(size: PixelSize(width: 2, height: 1))
        SlideFramer.frame(decoded: strip, orientation: .up, fit: .cover, background: .black, into: canvas.canvas)
        #expect(grid(canvas) == [[0xFF00_0003, 0xFF00_0004]])
        // The same strip stored turned (orientation 6 shows a 1x6 column) on a 1x2 canvas.
        let column = makeImage(rows: [[1, 2, 3, 4, 5, 6].map { 0xFF00_0000 | UInt32($0) }])
        let tall = PixelImage(size: PixelSize(width: 1, height: 2))
        SlideFramer.frame(decoded: column, orientation: .right, fit: .cover, background: .black, into: tall.canvas)
        #expect(grid(tall) == [[0xFF00_0003], [0xFF00_0004]])
        SlideFramer.frame(decoded: column, orientation: .left, fit: .cover, background: .black, into: tall.canvas)
        #expect(grid(tall) == [[0xFF00_0004], [0xFF00_0003]])
    }

    @Test func frameRespectsCanvasStride() {
        let picture = makeImage(rows: Self.stored)
        let display = ExifOrientation.right.displaySize(forStored: picture.size)  // 2x3
        let stride = 5
        let buffer = UnsafeMutableBufferPointer<UInt32>.allocate(capacity: stride * display.height)
        defer { buffer.deallocate() }
        buffer.initialize(repeating: 0xDEAD_BEEF)
        let canvas = PixelCanvas(base: buffer.baseAddress!, size: display, stride: stride)
        SlideFramer.frame(decoded: picture, orientation: .right, fit: .contain, background: .black, into: canvas)
        let upright = Self.upright(Self.stored, .right)
        for y in 0..<display.height {
            #expect(Array(buffer[(y * stride)..<(y * stride + 2)]) == upright[y])
            #expect(Array(buffer[(y * stride + 2)..<(y * stride + stride)]) == [0xDEAD_BEEF, 0xDEAD_BEEF, 0xDEAD_BEEF])
        }
    }

    @Test func decodeTargetIsThePlacementInStoredOrientation() {
        let hd = PixelSize(width: 1920, height: 1080)
        // A 4000x3000 upright picture shows at 1440x1080.
        #expect(SlideFramer.decodeTarget(picture: PixelSize(width: 4000, height: 3000), orientation: .up, output: hd, fit: .contain)
            == PixelSize(width: 1440, height: 1080))
        // Stored turned: the decoder works on the stored picture.
        #expect(SlideFramer.decodeTarget(picture: PixelSize(width: 4000, height: 3000), orientation: .right, output: hd, fit: .contain)
            == PixelSize(width: 1080, height: 1440))
        // Never more than the picture itself.
        #expect(SlideFramer.decodeTarget(picture: PixelSize(width: 100, height: 50), orientation: .up, output: hd, fit: .contain)
            == PixelSize(width: 100, height: 50))
        #expect(SlideFramer.decodeTarget(picture: PixelSize(width: 100_000, height: 10), orientation: .up, output: hd, fit: .cover)
            == PixelSize(width: 100_000, height: 10))
    }
}
