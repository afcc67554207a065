import Testing
import VitrineCore
@testable import VitrineDRM

/// What an atomic commit sets for a plan, without a card: each plane's
/// framebuffer, 16.16 source, destination, alpha and zpos, and the planes it
/// switches off.
@Suite("Plane settings")
struct DRMPlaneSettingTests {
    static let output = PixelSize(width: 1920, height: 1080)

    static func stack(_ layers: [Scene.Layer], dots: Bool) -> LayerStack {
        LayerStack(scene: Scene(layers: layers, indicator: dots ? IndicatorState(count: 3, position: 1) : nil), output: output,
                   indicator: IndicatorStyle()) { _ in LayerStack.Picture(frameSize: output) }
    }

    @Test func aSlideTransitionOnVC4SetsEachPlaneAndSwitchesTheRestOff() {
        let planes = DisplayPlane.vc4Output(overlays: 4)
        let stack = Self.stack([Scene.Layer(content: .slide(0), offset: -0.25), Scene.Layer(content: .slide(1), offset: 0.75)],
                               dots: true)
        let plan = PlanePlanner(planes: planes, traits: .of(driver: "vc4"), refreshHz: 60).plan(for: stack)
        let settings = DRMPlaneSetting.settings(for: plan, of: stack, planes: planes, composition: 999) { 500 + UInt32($0) }
        // Primary: slide 0's right three quarters at the left; overlays: slide 1, then the dots; 2 overlays and the cursor off.
        #expect(settings.map(\.plane) == [100, 101, 102, 103, 104, 105])
        #expect(settings.map(\.framebuffer) == [500, 501, 502, 0, 0, 0])
        #expect(settings[0].source == (480 << 16, 0, 1440 << 16, 1080 << 16))
        #expect(settings[0].destination == PixelRect(x: 0, y: 0, width: 1440, height: 1080))
        #expect(settings[1].destination == PixelRect(x: 1440, y: 0, width: 480, height: 1080))
        // vc4's planes have alpha: an opaque layer says so; zpos goes up from the primary's.
        #expect(settings[0].alpha == 0xFFFF && settings[1].alpha == 0xFFFF)
        #expect(settings.prefix(3).map(\.zpos) == [0, 1, 2])
    }

    @Test func onVKMSNoPropertyThePlanesLackIsSet() {
        let planes = DisplayPlane.vkms(overlays: 2)
        let stack = Self.stack([Scene.Layer(content: .slide(0), offset: -0.5), Scene.Layer(content: .slide(1), offset: 0.5)],
                               dots: false)
        let plan = PlanePlanner(planes: planes, traits: .of(driver: "vkms"), refreshHz: 60).plan(for: stack)
        let settings = DRMPlaneSetting.settings(for: plan, of: stack, planes: planes, composition: 999) { 500 + UInt32($0) }
        // The primary shows the still background (the composition buffer); both slides ride overlays.
        #expect(settings.map(\.framebuffer) == [999, 500, 501])
        #expect(settings[0].destination == PixelRect(x: 0, y: 0, width: 1920, height: 1080))
        #expect(settings.allSatisfy { $0.alpha == nil && $0.zpos == nil })
    }

    @Test func theCPUPlanIsThePrimaryAloneWithEveryOtherPlaneOff() {
        let planes = DisplayPlane.vkms(overlays: 3)
        let stack = Self.stack([Scene.Layer(content: .slide(0)), Scene.Layer(content: .slide(1), opacity: 0.5)], dots: true)
        let plan = PlanePlanner(planes: planes, traits: .of(driver: "vkms"), refreshHz: 60, mode: .cpu).plan(for: stack)
        let settings = DRMPlaneSetting.settings(for: plan, of: stack, planes: planes, composition: 7) { _ in 1 }
        #expect(settings.map(\.framebuffer) == [7, 0, 0, 0])
    }

    @Test func planeDetailsBecomeThePlannersPlanes() {
        let details = DRMPlaneDetails(
            plane: DRMPlaneDescription(id: 40, kind: .overlay, possibleCRTCs: 1), formats: [0x3432_5258, 0x3432_5241, 0x3231_564E, 0x2020_2020],
            properties: ["alpha", "zpos"], zpos: 1...15, rotations: [], blendModes: [])
        let plane = details.displayPlane
        #expect(plane.formats == [.xrgb8888, .argb8888, .nv12])
        #expect(plane.hasAlpha && plane.kind == .overlay && plane.stacking == .adjustable(1...15))
        var fixed = details
        fixed.zposIsFixed = true
        fixed.zpos = 3...3
        #expect(fixed.displayPlane.stacking == .fixed(3))
        fixed.zpos = nil
        #expect(fixed.displayPlane.stacking == .implicit)
    }
}
