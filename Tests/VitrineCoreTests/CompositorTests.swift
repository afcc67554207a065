import Testing
@testable import VitrineCore

@Suite("Compositor")
struct CompositorTests {
    typealias Layer = Scene.Layer
    static let size = PixelSize(width: 8, height: 3)
    static let background = RGBAColor(red: 0, green: 0, blue: 77)

    /// Frame A: every pixel different, tagged 0xA0 in red.
    static let frameA = makeImage(width: 8, height: 3) { x, y in xrgb(0xA0, y, x) }
    /// Frame B: every pixel different, tagged 0xB0 in red.
    static let frameB = makeImage(width: 8, height: 3) { x, y in xrgb(0xB0, y, x) }

    static func frames(_ layer: Scene.Layer) -> PixelImage? {
        switch layer.content {
        case .slide(0): frameA
        case .slide(1): frameB
        default: nil
        }
    }

    static func compose(_ scene: Scene, compositor: Compositor = Compositor(background: background),
                        frame: (Scene.Layer) -> PixelImage? = frames) -> PixelImage {
        let canvas = PixelImage(size: size, fill: RGBAColor(red: 1, green: 1, blue: 1))
        compositor.compose(scene, into: canvas.canvas, frame: frame)
        return canvas
    }

    @Test func restingSceneCopiesTheFrameExactly() {
        let result = Self.compose(Scene(layers: [Layer(content: .slide(0))], indicator: nil))
        #expect(grid(result) == grid(Self.frameA))
    }

    @Test func slideSceneAtAQuarterPlacesColumnsExactly() {
        let scene = Scene(layers: [
            Layer(content: .slide(0), offset: -0.25), Layer(content: .slide(1), offset: 0.75),
        ], indicator: nil)
        let result = Self.compose(scene)
        // The outgoing frame is shifted left by 2 columns, the incoming one starts at column 6.
        for y in 0..<3 {
            for x in 0..<6 { #expect(result[x, y] == xrgb(0xA0, y, x + 2), "(\(x), \(y))") }
            for x in 6..<8 { #expect(result[x, y] == xrgb(0xB0, y, x - 6), "(\(x), \(y))") }
        }
        // The boundary precisely: column 5 is A's last column, column 6 is B's first.
        #expect(result[5, 1] == Self.frameA[7, 1])
        #expect(result[6, 1] == Self.frameB[0, 1])
    }

    @Test func slideSceneBoundaryAtHalfPixels() {
        // Width 10 at a quarter: 2.5 columns. floor(x + 0.5) moves both layers alike.
        let a = makeImage(width: 10, height: 1) { x, _ in xrgb(0xA0, 0, x) }
        let b = makeImage(width: 10, height: 1) { x, _ in xrgb(0xB0, 0, x) }
        let canvas = PixelImage(size: PixelSize(width: 10, height: 1))
        let scene = Scene(layers: [
            Layer(content: .slide(0), offset: -0.25), Layer(content: .slide(1), offset: 0.75),
        ], indicator: nil)
        Compositor(background: Self.background).compose(scene, into: canvas.canvas) { $0.content == .slide(0) ? a : b }
        #expect(grid(canvas)[0] == (2..<10).map { xrgb(0xA0, 0, $0) } + (0..<2).map { xrgb(0xB0, 0, $0) })
    }

    @Test func slideLayersStayAdjacentAtEveryFraction() {
        // No background seam and no overlap at any fraction, for several widths.
        let background = RGBAColor(red: 255, green: 0, blue: 0)
        for width in [7, 8, 10, 333, 1366, 1920] {
            let a = makeImage(width: width, height: 1) { x, _ in 0xFF00_0000 | UInt32(x) }
            let b = makeImage(width: width, height: 1) { x, _ in 0xFF01_0000 | UInt32(x) }
            let canvas = PixelImage(size: PixelSize(width: width, height: 1))
            var failures = 0
            for step in 0...1000 where failures < 3 {
                let f = Double(step) / 1000
                let eased = Easing.easeOut(f)
                for fraction in [f, eased] {
                    let scene = Scene(layers: [
                        Layer(content: .slide(0), offset: -fraction), Layer(content: .slide(1), offset: 1 - fraction),
                    ], indicator: nil)
                    Compositor(background: background).compose(scene, into: canvas.canvas) { $0.content == .slide(0) ? a : b }
                    // The first column of B, wherever it is, decides the rest.
                    let k = (0..<width).first { canvas[$0, 0] >> 16 & 0xFF == 1 } ?? width
                    let exact = (0..<k).allSatisfy { canvas[$0, 0] == a[$0 + width - k, 0] }
                        && (k..<width).allSatisfy { canvas[$0, 0] == b[$0 - k, 0] }
                    let placed = abs(Double(k) - (1 - fraction) * Double(width)) <= 0.5 + 1e-9
                    if !(exact && placed) {
                        failures += 1
                        Issue.record("width \(width), fraction \(fraction): boundary \(k), exact \(exact)")
                    }
                }
            }
        }
    }

    /// Wide, odd-sized frames of varied pixels, so that the streaming row kernels
    /// (CPixelRows) run their vector bodies from every alignment and their heads
    /// and tails too: the result must equal the per-pixel reference exactly.
    @Test func rowKernelsMatchThePerPixelReferenceAtEveryAlignment() {
        let size = PixelSize(width: 67, height: 5)
        var seed: UInt32 = 0x1234_5678
        func next() -> UInt32 { seed = seed &* 1_664_525 &+ 1_013_904_223; return seed }
        let a = makeImage(width: size.width, height: size.height) { _, _ in next() | 0xFF00_0000 }
        let b = makeImage(width: size.width, height: size.height) { _, _ in next() | 0xFF00_0000 }
        let frames: (Scene.Layer) -> PixelImage? = { $0.content == .slide(0) ? a : $0.content == .slide(1) ? b : nil }
        for opacity in [0.0, 1.0 / 256, 0.25, 0.5, 0.77, 255.0 / 256, 1.0] {
            let canvas = PixelImage(size: size)
            Compositor().compose(Scene(layers: [Layer(content: .slide(0)), Layer(content: .slide(1), opacity: opacity)], indicator: nil),
                                 into: canvas.canvas, frame: frames)
            let alpha = UInt32((opacity * 256).rounded())
            let expected = (0..<size.width * size.height).map {
                alpha == 0 ? a.pixels[$0] : PixelBlend.blend(b.pixels[$0], over: a.pixels[$0], alpha256: alpha)
            }
            #expect(Array(canvas.pixels) == expected, "crossfade at alpha \(alpha)/256")
        }
        for shift in 1..<size.width {
            let canvas = PixelImage(size: size)
            let offset = -Double(shift) / Double(size.width)
            Compositor().compose(Scene(layers: [Layer(content: .slide(0), offset: offset), Layer(content: .slide(1), offset: 1 + offset)],
                                       indicator: nil), into: canvas.canvas, frame: frames)
            var expected: [UInt32] = []
            for y in 0..<size.height {
                for x in 0..<size.width {
                    let fromA = x + shift < size.width
                    expected.append(fromA ? a.pixels[y * size.width + x + shift] : b.pixels[y * size.width + x + shift - size.width])
                }
            }
            #expect(Array(canvas.pixels) == expected, "slide transition shifted by \(shift) columns")
        }
    }

    @Test func crossfadeAtHalfGivesTheAverage() {
        let a = makeImage(width: 8, height: 3) { x, y in xrgb(20 * x, 100, 2 * y) }
        let b = makeImage(width: 8, height: 3) { x, y in xrgb(20 * x + 40, 200, 2 * y + 100) }
        let canvas = PixelImage(size: Self.size)
        let scene = Scene(layers: [Layer(content: .slide(0)), Layer(content: .slide(1), opacity: 0.5)], indicator: nil)
        Compositor().compose(scene, into: canvas.canvas) { $0.content == .slide(0) ? a : b }
        let expected: [[UInt32]] = (0..<3).map { y in (0..<8).map { x in xrgb(20 * x + 20, 150, 2 * y + 50) } }
        #expect(grid(canvas) == expected)
    }

    @Test func crossfadeEndpoints() {
        let none = Self.compose(Scene(layers: [Layer(content: .slide(0)), Layer(content: .slide(1), opacity: 0)], indicator: nil))
        #expect(grid(none) == grid(Self.frameA))
        let full = Self.compose(Scene(layers: [Layer(content: .slide(0)), Layer(content: .slide(1), opacity: 1)], indicator: nil))
        #expect(grid(full) == grid(Self.frameB))
        // A quarter: 0xA0 × 192/256 + 0xB0 × 64/256 = 120 + 44 = 164.
        let quarter = Self.compose(Scene(layers: [Layer(content: .slide(0)), Layer(content: .slide(1), opacity: 0.25)], indicator: nil))
        #expect(red(quarter[3, 1]) == 164)
    }

    @Test func missingFrameDrawsTheBackground() {
        let missing = Self.compose(Scene(layers: [Layer(content: .slide(7))], indicator: nil))
        #expect((0..<Self.size.pixelCount).allSatisfy { missing.pixels[$0] == Self.background.xrgb })
        let placeholder = Self.compose(Scene(layers: [Layer(content: .placeholder)], indicator: nil))
        #expect((0..<Self.size.pixelCount).allSatisfy { placeholder.pixels[$0] == Self.background.xrgb })

        // Sliding towards a slide that is not decoded: its columns are background.
        let scene = Scene(layers: [
            Layer(content: .slide(0), offset: -0.25), Layer(content: .slide(9), offset: 0.75),
        ], indicator: nil)
        let result = Self.compose(scene)
        for y in 0..<3 {
            for x in 0..<6 { #expect(result[x, y] == xrgb(0xA0, y, x + 2)) }
            for x in 6..<8 { #expect(result[x, y] == Self.background.xrgb) }
        }
        // And the other way round.
        let reversed = Self.compose(Scene(layers: [
            Layer(content: .slide(9), offset: -0.25), Layer(content: .slide(1), offset: 0.75),
        ], indicator: nil))
        for y in 0..<3 {
            for x in 0..<6 { #expect(reversed[x, y] == Self.background.xrgb) }
            for x in 6..<8 { #expect(reversed[x, y] == xrgb(0xB0, y, x - 6)) }
        }
    }

    @Test func missingFrameInACrossfadeFadesTheBackgroundIn() {
        // The incoming slide is not decoded: the background takes its place at the
        // layer's opacity, rather than replacing the outgoing slide at once.
        let scene = Scene(layers: [Layer(content: .slide(0)), Layer(content: .slide(9), opacity: 0.25)], indicator: nil)
        let result = Self.compose(scene)
        let expected: [[UInt32]] = (0..<3).map { y in
            (0..<8).map { x in PixelBlend.blend(Self.background.xrgb, over: Self.frameA[x, y], alpha256: 64) }
        }
        #expect(grid(result) == expected)
        // 0xA0 × 192/256 = 120 red; 77 × 64/256 = 19 blue.
        #expect(result[0, 0] == xrgb(120, 0, 19))
    }

    @Test func uncoveredColumnsShowTheBackground() {
        // A lone layer pulled a quarter to the right (as an edge drag would).
        let shifted = Self.compose(Scene(layers: [Layer(content: .slide(0), offset: 0.25)], indicator: nil))
        for y in 0..<3 {
            for x in 0..<2 { #expect(shifted[x, y] == Self.background.xrgb) }
            for x in 2..<8 { #expect(shifted[x, y] == xrgb(0xA0, y, x - 2)) }
        }
        // A lone translucent layer is blended over the background, not over stale pixels.
        let faded = Self.compose(Scene(layers: [Layer(content: .slide(0), opacity: 0.5)], indicator: nil))
        let expected: [[UInt32]] = (0..<3).map { y in
            (0..<8).map { x in PixelBlend.blend(Self.frameA[x, y], over: Self.background.xrgb, alpha256: 128) }
        }
        #expect(grid(faded) == expected)
    }

    @Test func frameOfTheWrongSizeCountsAsMissing() {
        let wrong = PixelImage(size: PixelSize(width: 7, height: 3), fill: .white)
        let result = Self.compose(Scene(layers: [Layer(content: .slide(0))], indicator: nil)) { _ in wrong }
        #expect((0..<Self.size.pixelCount).allSatisfy { result.pixels[$0] == Self.background.xrgb })
    }

    @Test func layerOffTheCanvasIsNotDrawn() {
        let result = Self.compose(Scene(layers: [
            Layer(content: .slide(0), offset: -1), Layer(content: .slide(1), offset: 0),
        ], indicator: nil))
        #expect(grid(result) == grid(Self.frameB))
    }

    @Test func indicatorIsDrawnOnTop() {
        let size = PixelSize(width: 200, height: 100)
        let grey = PixelImage(size: size, fill: RGBAColor(red: 100, green: 100, blue: 100))
        let canvas = PixelImage(size: size)
        let compositor = Compositor(background: .black, indicator: IndicatorStyle())
        let scene = Scene(layers: [Layer(content: .slide(0))], indicator: IndicatorState(count: 3, position: 0))
        compositor.compose(scene, into: canvas.canvas) { _ in grey }
        #expect(canvas[72, 61] == 0xFFFF_FFFF)  // current dot, opaque white
        // Other dots: white at alpha 110 over grey: (255 × 110 + 100 × 146) / 256 = 166.
        #expect(canvas[100, 61] == xrgb(166, 166, 166))
        #expect(canvas[0, 0] == xrgb(100, 100, 100))
        #expect(canvas[79, 61] == xrgb(100, 100, 100))
        // Without an indicator state nothing is drawn over the frame.
        compositor.compose(Scene(layers: [Layer(content: .slide(0))], indicator: nil), into: canvas.canvas) { _ in grey }
        #expect(canvas[72, 61] == xrgb(100, 100, 100))
        // Hidden by style.
        let hidden = Compositor(background: .black, indicator: IndicatorStyle(visible: false))
        hidden.compose(scene, into: canvas.canvas) { _ in grey }
        #expect(canvas[72, 61] == xrgb(100, 100, 100))
    }

    @Test func canvasWithAWiderStride() {
        let stride = 13, sentinel: UInt32 = 0xDEAD_BEEF
        let scenes: [Scene] = [
            Scene(layers: [Layer(content: .slide(0))], indicator: nil),
            Scene(layers: [Layer(content: .slide(0), offset: -0.25), Layer(content: .slide(1), offset: 0.75)], indicator: nil),
            Scene(layers: [Layer(content: .slide(0)), Layer(content: .slide(1), opacity: 0.5)], indicator: nil),
            Scene(layers: [Layer(content: .slide(0), offset: -0.5), Layer(content: .slide(5), offset: 0.5)], indicator: nil),
            Scene(layers: [Layer(content: .placeholder)], indicator: nil),
            Scene(layers: [Layer(content: .slide(1))], indicator: IndicatorState(count: 2, position: 0.5)),
        ]
        let compositor = Compositor(
            background: Self.background,
            indicator: IndicatorStyle(diameter: 2, spacing: 1, margin: 0))
        for scene in scenes {
            let buffer = UnsafeMutableBufferPointer<UInt32>.allocate(capacity: stride * Self.size.height)
            defer { buffer.deallocate() }
            buffer.initialize(repeating: sentinel)
            compositor.compose(scene, into: PixelCanvas(base: buffer.baseAddress!, size: Self.size, stride: stride), frame: Self.frames)
            let packed = Self.compose(scene, compositor: compositor)
            for y in 0..<Self.size.height {
                #expect(Array(buffer[(y * stride)..<(y * stride + 8)]) == grid(packed)[y], "\(scene) row \(y)")
                #expect(buffer[(y * stride + 8)..<(y * stride + stride)].allSatisfy { $0 == sentinel }, "\(scene) row \(y) padding")
            }
        }
    }

    @Test func engineScenesComposeAsExpected() {
        // The engine's scene half-way through a slide (ease-out: 0.875) on an 8-wide output:
        // A moves left by 7 columns, B's first 7 columns fill the rest.
        let engine = makeEngine(count: 2)
        #expect(engine.perform(.next, at: ms(0)))
        let canvas = PixelImage(size: Self.size)
        Compositor(background: Self.background, indicator: IndicatorStyle(visible: false))
            .compose(engine.scene(at: ms(200)), into: canvas.canvas, frame: Self.frames)
        for y in 0..<3 {
            #expect(canvas[0, y] == xrgb(0xA0, y, 7))
            for x in 1..<8 { #expect(canvas[x, y] == xrgb(0xB0, y, x - 1)) }
        }
    }
}
