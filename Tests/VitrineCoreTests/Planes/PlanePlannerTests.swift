import Testing
@testable import VitrineCore

/// The planner against models of vc4 (a Raspberry Pi 4 or 5) and of VKMS:
/// which frames the planes carry, which fall back and why, and the fetch budget.
@Suite("Plane planner")
struct PlanePlannerTests {
    static let hd = PixelSize(width: 1920, height: 1080)
    static let uhd = PixelSize(width: 3840, height: 2160)

    static func slide(_ index: Int, offset: Double = 0, opacity: Double = 1) -> Scene.Layer {
        Scene.Layer(content: .slide(index), offset: offset, opacity: opacity)
    }

    /// The stack of `layers` on `output`: output-sized frames, slide 9 a Ken
    /// Burns frame, slide 7 missing; `format` is the slides' buffers' format.
    static func stack(_ layers: [Scene.Layer], output: PixelSize = hd, dots: Bool = false,
                      format: ScanoutFormat = .xrgb8888) -> LayerStack {
        var stack = LayerStack(scene: Scene(layers: layers, indicator: dots ? IndicatorState(count: 5, position: 2.5) : nil),
                               output: output, indicator: IndicatorStyle()) { layer in
            guard case .slide(let index) = layer.content, index != 7 else { return nil }
            return index == 9
                ? LayerStack.Picture(frameSize: PixelSize(width: output.width * 5 / 4, height: output.height * 5 / 4),
                                     region: FrameRect(x: 0.1, y: 0.1, width: 0.7, height: 0.7))
                : LayerStack.Picture(frameSize: output)
        }
        for index in stack.layers.indices where stack.layers[index].format == .xrgb8888 { stack.layers[index].format = format }
        return stack
    }

    static let vc4 = PlanePlanner(planes: DisplayPlane.vc4Output(overlays: 8), traits: .of(driver: "vc4"), refreshHz: 60)
    static let vkms = PlanePlanner(planes: DisplayPlane.vkms(), traits: .of(driver: "vkms"), refreshHz: 60)

    @Test func aRestingSlideIsThePrimaryPlanesOwnBuffer() {
        let plan = Self.vc4.plan(for: Self.stack([Self.slide(0)]))
        #expect(plan.primary == .layer(0))
        #expect(plan.overlays.isEmpty)
        #expect(plan.path == "planes")
        #expect(plan.bytesPerRefresh == 1920 * 1080 * 4)
    }

    @Test func aSlideTransitionOnVC4IsTwoPlanesReadingOneScreen() {
        let plan = Self.vc4.plan(for: Self.stack([Self.slide(0, offset: -0.25), Self.slide(1, offset: 0.75)], dots: true))
        #expect(plan.primary == .layer(0))
        #expect(plan.overlays.map(\.layer) == [1, 2])
        #expect(plan.primaryZpos == 0)
        #expect(plan.overlays.map(\.zpos) == [1, 2])
        #expect(plan.composedLayers.isEmpty)
    }

    @Test func aCrossfadeAndKenBurnsTakePlanesOnVC4() {
        for layers in [[Self.slide(0), Self.slide(1, opacity: 0.3)], [Self.slide(9)], [Self.slide(9), Self.slide(0, opacity: 0.5)]] {
            #expect(Self.vc4.plan(for: Self.stack(layers, dots: true)).path == "planes", "\(layers)")
        }
    }

    @Test func aFourKCrossfadeInRGBIsOverVC4sBudgetAndInYUVUnderIt() {
        let layers = [Self.slide(0), Self.slide(1, opacity: 0.5)]
        let rgb = Self.stack(layers, output: Self.uhd)
        #expect(Self.vc4.plan(for: rgb).isCPUComposition)
        let refusal = Self.vc4.refusal(for: rgb)
        #expect(refusal?.description == "the planes would read 4.0 GB/s, over vc4's budget of 2.5 GB/s")
        let yuv = Self.stack(layers, output: Self.uhd, format: .nv12)
        let plan = Self.vc4.plan(for: yuv)
        #expect(plan.path == "planes")
        #expect(plan.bytesPerRefresh * 60 < 2.5e9)
        // A 4K slide transition reads one screen: RGB fits.
        #expect(Self.vc4.plan(for: Self.stack([Self.slide(0, offset: -0.5), Self.slide(1, offset: 0.5)], output: Self.uhd)).path == "planes")
    }

    @Test func vkmsHasNoPlaneAlphaAndDoesNotScale() {
        let crossfade = Self.stack([Self.slide(0), Self.slide(1, opacity: 0.3)])
        #expect(Self.vkms.plan(for: crossfade).isCPUComposition)
        #expect(Self.vkms.refusal(for: crossfade) == .needsPlaneAlpha(layer: 1))
        let kenBurns = Self.stack([Self.slide(9)])
        #expect(Self.vkms.plan(for: kenBurns).isCPUComposition)
        #expect(Self.vkms.refusal(for: kenBurns) == .needsScaling(layer: 0, driver: "vkms"))
    }

    @Test func onVKMSASlideTransitionGoesOnOverlaysOverAStillBackground() {
        let stack = Self.stack([Self.slide(0, offset: -0.25), Self.slide(1, offset: 0.75)], dots: true)
        let plan = Self.vkms.plan(for: stack)
        // The primary must cover the output, which a moving slide does not: it shows the background, drawn once.
        #expect(plan.primary == .composition(composed: 0..<0))
        #expect(plan.overlays.map(\.layer) == [0, 1, 2])
        #expect(plan.overlays.allSatisfy { $0.zpos == nil })
        #expect(plan.path == "planes")
        // At rest, the slide is the primary itself.
        #expect(Self.vkms.plan(for: Self.stack([Self.slide(0)], dots: true)).primary == .layer(0))
    }

    @Test func aMissingPictureIsComposedWithEverythingUnderIt() {
        let plan = Self.vc4.plan(for: Self.stack([Self.slide(0, offset: -0.5), Self.slide(7, offset: 0.5)], dots: true))
        #expect(plan.primary == .composition(composed: 0..<2))
        #expect(plan.overlays.map(\.layer) == [2])
        #expect(plan.path == "mixed")
    }

    @Test func tooFewOverlaysFallBackLayerByLayer() {
        let one = PlanePlanner(planes: DisplayPlane.vc4Output(overlays: 1), traits: .of(driver: "vc4"), refreshHz: 60)
        let stack = Self.stack([Self.slide(0, offset: -0.25), Self.slide(1, offset: 0.75)], dots: true)
        let plan = one.plan(for: stack)
        // The dots take the one overlay; both slides are composed.
        #expect(plan.primary == .composition(composed: 0..<2))
        #expect(plan.overlays.map(\.layer) == [2])
        let none = PlanePlanner(planes: DisplayPlane.vc4Output(overlays: 0), traits: .of(driver: "vc4"), refreshHz: 60)
        #expect(none.plan(for: stack).isCPUComposition)
        #expect(none.refusal(for: stack) == .tooFewOverlays(needed: 2, available: 0))
    }

    @Test func theCPUSettingAndARefusingTestCommitFallBack() {
        var forced = Self.vc4
        forced.mode = .cpu
        let stack = Self.stack([Self.slide(0), Self.slide(1, opacity: 0.3)], dots: true)
        #expect(forced.candidates(for: stack).count == 1)
        #expect(forced.plan(for: stack).isCPUComposition)
        #expect(forced.refusal(for: stack) == .forcedCPU)
        // A driver that refuses every test commit gets the CPU's plan, which is never tested.
        var tested: [PlanePlan] = []
        let plan = Self.vc4.plan(for: stack) { tested.append($0); return false }
        #expect(plan.isCPUComposition)
        #expect(tested.count == Self.vc4.candidates(for: stack).count - 1)
        // One that refuses only the first takes the second.
        var first = true
        let second = Self.vc4.plan(for: stack) { _ in defer { first = false }; return !first }
        #expect(second == Self.vc4.candidates(for: stack)[1])
    }

    @Test func fixedStackingOrderIsFollowed() {
        let formats: Set<ScanoutFormat> = [.xrgb8888, .argb8888]
        let planes = [
            DisplayPlane(id: 1, kind: .primary, formats: formats, hasAlpha: false, stacking: .fixed(0)),
            DisplayPlane(id: 2, kind: .overlay, formats: formats, hasAlpha: false, stacking: .fixed(5)),
            DisplayPlane(id: 3, kind: .overlay, formats: formats, hasAlpha: false, stacking: .fixed(3)),
            DisplayPlane(id: 4, kind: .cursor, formats: [.argb8888], hasAlpha: false, stacking: .fixed(9)),
        ]
        let planner = PlanePlanner(planes: planes, traits: .of(driver: "vc4"), refreshHz: 60)
        let plan = planner.plan(for: Self.stack([Self.slide(0, offset: -0.25), Self.slide(1, offset: 0.75)], dots: true))
        #expect(plan.primary == .layer(0))
        #expect(plan.overlays.map(\.plane) == [3, 2])
        // A fixed zpos is the plane's own: the commit sets none.
        #expect(plan.overlays.map(\.zpos) == [nil, nil])
        #expect(plan.primaryZpos == nil)
    }

    /// On random stacks and cards, every plan offered keeps the layers'
    /// order, uses a plane at most once, stays within the budget, and the
    /// CPU's plan comes last.
    @Test func plansAreAlwaysWellFormed() {
        var random = SplitMix64(seed: 40)
        for _ in 0..<400 {
            let overlays = Int(random.next() % 5)
            let vc4 = random.next() % 2 == 0
            let planner = vc4
                ? PlanePlanner(planes: DisplayPlane.vc4Output(overlays: overlays), traits: .of(driver: "vc4"), refreshHz: 60)
                : PlanePlanner(planes: DisplayPlane.vkms(overlays: overlays), traits: .of(driver: "vkms"), refreshHz: 60)
            let offset = -random.unit()
            let kinds: [[Scene.Layer]] = [
                [Self.slide(0)], [Self.slide(0, offset: offset), Self.slide(1, offset: offset + 1)],
                [Self.slide(0), Self.slide(1, opacity: random.unit())], [Self.slide(9)], [Self.slide(7)],
            ]
            let output = random.next() % 2 == 0 ? Self.hd : Self.uhd
            let stack = Self.stack(kinds[Int(random.next() % 5)], output: output, dots: random.next() % 2 == 0,
                                   format: random.next() % 2 == 0 ? .xrgb8888 : .nv12)
            let plans = planner.candidates(for: stack)
            #expect(plans.last?.isCPUComposition == true)
            for plan in plans {
                let placed = plan.composedLayers.map { $0 } + (plan.primary == .layer(0) ? [0] : []) + plan.overlays.map(\.layer)
                #expect(placed == Array(stack.layers.indices), "\(plan)")
                #expect(Set(plan.overlays.map(\.plane)).count == plan.overlays.count)
                let zs = plan.overlays.compactMap(\.zpos)
                #expect(zs == zs.sorted() && Set(zs).count == zs.count)
                if let z = plan.primaryZpos { #expect(zs.allSatisfy { $0 > z }) }
                if !plan.isCPUComposition, let budget = planner.traits.fetchBudget { #expect(plan.bytesPerRefresh * 60 <= budget) }
                for placement in plan.overlays {
                    let layer = stack.layers[placement.layer]
                    #expect(!layer.isFill)
                    if !vc4 { #expect(layer.opacity == 1 && !layer.isScaled) }
                }
            }
        }
    }
}
