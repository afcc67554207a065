import Testing
@testable import VitrineCore

/// Which kinds of page change the planner's models put on planes
/// (`PlanePlanner.carriesPageChanges`): what decides whether an output's
/// slides are decoded into scan-out buffers or into ordinary memory.
@Suite("Page changes on the planes, by the drivers' models")
struct PageChangesOnPlanesTests {
    static let hd = PixelSize(width: 1920, height: 1080), uhd = PixelSize(width: 3840, height: 2160)

    @Test func vc4CarriesEveryKindAt1080pAndACrossfadeOfRGBSlidesNotAt4K() {
        let planner = PlanePlanner(planes: DisplayPlane.vc4Output(overlays: 8), traits: .of(driver: "vc4"), refreshHz: 60)
        for kind in TransitionKind.allCases {
            #expect(planner.carriesPageChanges(kind, at: Self.hd), "\(kind) at 1080p")
        }
        #expect(planner.carriesPageChanges(.slide, at: Self.uhd))
        #expect(planner.carriesPageChanges(.cut, at: Self.uhd))
        // Two whole 4K RGB slides read 4.0 GB/s at 60 Hz, over vc4's budget of 2.5.
        #expect(!planner.carriesPageChanges(.crossfade, at: Self.uhd))
    }

    @Test func vkmsHasNoPlaneAlphaSoItsCrossfadesAreComposed() {
        let planner = PlanePlanner(planes: DisplayPlane.vkms(), traits: .of(driver: "vkms"), refreshHz: 60)
        #expect(planner.carriesPageChanges(.slide, at: Self.hd))
        #expect(planner.carriesPageChanges(.cut, at: Self.hd))
        #expect(!planner.carriesPageChanges(.crossfade, at: Self.hd))
    }

    @Test func withPlanesSetToCPUNothingIsCarried() {
        let planner = PlanePlanner(planes: DisplayPlane.vc4Output(overlays: 8), traits: .of(driver: "vc4"), refreshHz: 60, mode: .cpu)
        for kind in TransitionKind.allCases { #expect(!planner.carriesPageChanges(kind, at: Self.hd)) }
    }
}
