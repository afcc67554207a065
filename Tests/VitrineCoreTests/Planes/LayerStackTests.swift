import Testing
@testable import VitrineCore

/// A frame as layers must be the picture the compositor draws: each planner
/// plan, composed as the display would compose its planes, equals
/// `Compositor`'s frame for the same scene (within the rounding of a plane's
/// 16-bit alpha and of premultiplied dots).
@Suite("Layer stacks")
struct LayerStackTests {
    static let output = PixelSize(width: 64, height: 36)
    static let style = IndicatorStyle(diameter: 6, spacing: 5, margin: 4)

    /// Output-sized frames for slides 0 and 1, and a larger frame for slide 2 (Ken Burns).
    static let frames: [Int: PixelImage] = [
        0: KenBurnsCompositorTests.noise(64, 36, seed: 1),
        1: KenBurnsCompositorTests.noise(64, 36, seed: 2),
        2: KenBurnsCompositorTests.noise(96, 54, seed: 3),
    ]
    static let kenBurns = FrameRect(x: 0.1, y: 0.15, width: 0.7, height: 0.7)

    static func picture(_ layer: Scene.Layer) -> LayerPicture? {
        guard case .slide(let slide) = layer.content, let frame = frames[slide] else { return nil }
        return LayerPicture(frame: frame, region: slide == 2 ? kenBurns : nil)
    }

    static func stack(_ scene: Scene) -> LayerStack {
        LayerStack(scene: scene, output: output, indicator: style) { layer in
            picture(layer).map { LayerStack.Picture(frameSize: $0.frame.size, region: $0.region) }
        }
    }

    static func cpuFrame(_ scene: Scene) -> PixelImage {
        let image = PixelImage(size: output)
        Compositor(background: .black, indicator: style).compose(scene, into: image.canvas, picture: picture)
        return image
    }

    static func planeFrame(_ plan: PlanePlan, _ stack: LayerStack) -> PixelImage {
        let image = PixelImage(size: output)
        PlaneStateCompositor(background: .black, indicator: style).compose(plan, of: stack, into: image.canvas, picture: picture)
        return image
    }

    static func slide(_ index: Int, offset: Double = 0, opacity: Double = 1) -> Scene.Layer {
        Scene.Layer(content: .slide(index), offset: offset, opacity: opacity)
    }

    static let dots = IndicatorState(count: 4, position: 1.3)

    /// A resting slide, slide transitions at odd offsets both ways, a
    /// crossfade, Ken Burns alone and inside each transition, a missing
    /// picture, each with and without dots.
    static let scenes: [(String, Scene)] = {
        let bare: [(String, [Scene.Layer])] = [
            ("resting", [slide(0)]),
            ("slide transition", [slide(0, offset: -0.3137), slide(1, offset: 0.6863)]),
            ("slide transition backwards", [slide(1, offset: -0.77), slide(0, offset: 0.23)]),
            ("crossfade", [slide(0), slide(1, opacity: 0.41)]),
            ("Ken Burns", [slide(2)]),
            ("Ken Burns sliding in", [slide(0, offset: -0.52), slide(2, offset: 0.48)]),
            ("Ken Burns crossfading", [slide(2), slide(0, opacity: 0.66)]),
            ("missing picture", [slide(0, offset: -0.5), slide(7, offset: 0.5)]),
        ]
        return bare.flatMap { name, layers in
            [(name, Scene(layers: layers, indicator: nil)), (name + " with dots", Scene(layers: layers, indicator: dots))]
        }
    }()

    static func difference(_ a: PixelImage, _ b: PixelImage) -> Int { KenBurnsCompositorTests.difference(a, b) }

    @Test func everyCandidatePlanOnVC4ComposesToTheCompositorsFrame() {
        let planner = PlanePlanner(planes: DisplayPlane.vc4Output(overlays: 8), traits: .of(driver: "vc4"), refreshHz: 60)
        for (name, scene) in Self.scenes {
            let stack = Self.stack(scene)
            let want = Self.cpuFrame(scene)
            for plan in planner.candidates(for: stack) {
                let got = Self.planeFrame(plan, stack)
                // The CPU's plan is the compositor's frame itself.
                #expect(Self.difference(got, want) <= (plan.isCPUComposition ? 0 : 2), "\(name): plan \(plan.path) \(plan.primary)")
            }
        }
    }

    @Test func opaqueUnscaledLayersComposeExactly() {
        let planner = PlanePlanner(planes: DisplayPlane.vkms(), traits: .of(driver: "vkms"), refreshHz: 60)
        for (name, scene) in Self.scenes where ["resting", "slide transition", "slide transition backwards"].contains(name) {
            let stack = Self.stack(scene)
            let plan = planner.plan(for: stack)
            #expect(plan.path == "planes", "\(name)")
            // Both images are kept until compared: their pixels belong to them.
            let got = Self.planeFrame(plan, stack), want = Self.cpuFrame(scene)
            withExtendedLifetime((got, want)) { #expect(Array(got.pixels) == Array(want.pixels), "\(name)") }
        }
    }

    @Test func aSlideTransitionIsTwoClippedLayersSideBySide() {
        let stack = Self.stack(Scene(layers: [Self.slide(0, offset: -0.3137), Self.slide(1, offset: 0.6863)], indicator: nil))
        // floor(-0.3137 * 64 + 0.5) = -20, floor(0.6863 * 64 + 0.5) = 44.
        #expect(stack.layers.map(\.destination) == [PixelRect(x: 0, y: 0, width: 44, height: 36),
                                                     PixelRect(x: 44, y: 0, width: 20, height: 36)])
        #expect(stack.layers.map(\.source) == [SourceRect(x: 20, y: 0, width: 44, height: 36),
                                                SourceRect(x: 0, y: 0, width: 20, height: 36)])
        #expect(stack.isCoveredOpaquely)
        #expect(stack.layers.allSatisfy { !$0.isScaled })
    }

    @Test func aKenBurnsLayerIsAScaledSourceRectangle() {
        let stack = Self.stack(Scene(layers: [Self.slide(2)], indicator: nil))
        let layer = try! #require(stack.layers.first)
        #expect(layer.isScaled)
        #expect(abs(layer.source.x - 9.6) < 1e-9 && abs(layer.source.y - 8.1) < 1e-9)
        #expect(abs(layer.source.width - 67.2) < 1e-9 && abs(layer.source.height - 37.8) < 1e-9)
        #expect(layer.source.fixed16.width == UInt32((67.2 * 65536).rounded()))
    }

    @Test func theDotsAreAnARGBLayerOverTheirOwnBounds() {
        let stack = Self.stack(Scene(layers: [Self.slide(0)], indicator: Self.dots))
        let dots = try! #require(stack.layers.last)
        #expect(dots.format == .argb8888)
        #expect(dots.content == .indicator(Self.dots))
        #expect(dots.destination.maxY <= Self.output.height && dots.destination.y > Self.output.height / 2)
        #expect(dots.bufferSize == PixelSize(width: dots.destination.width, height: dots.destination.height))
        #expect(!dots.isOpaque)
    }

    @Test func layersTheCompositorSkipsAreLeftOut() {
        let stack = Self.stack(Scene(layers: [Self.slide(0), Self.slide(1, offset: 1.0), Self.slide(1, opacity: 0.001)],
                                     indicator: nil))
        #expect(stack.layers.count == 1)
    }
}
