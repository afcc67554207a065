import Testing
import VitrineCore
@testable import VitrineDoctor

/// The doctor's per-output line for each kind of frame, on models of a
/// Raspberry Pi's vc4 and of VKMS, at 1080p and 4K.
@Suite("Doctor: transition paths")
struct TransitionPathsTests {
    static func facts(_ section: DoctorSection) -> [String: String] {
        Dictionary(uniqueKeysWithValues: section.facts.map { ($0.name, $0.value) })
    }

    @Test func vc4CarriesEveryKindAt1080p() {
        let section = TransitionPaths.section(planes: DisplayPlane.vc4Output(overlays: 8), driver: "vc4",
                                              output: PixelSize(width: 1920, height: 1080), refreshHz: 60)
        let facts = Self.facts(section)
        #expect(section.summary.hasPrefix("3 of 3 kinds of frame on planes"))
        #expect(facts["slide transition"]?.hasPrefix("planes, 2 overlays, 0.50 GB/s read") == true, "\(facts)")
        #expect(facts["crossfade"]?.hasPrefix("planes, 2 overlays, 1.00 GB/s read") == true, "\(facts)")
    }

    @Test func vc4ComposesA4KCrossfadeOfRGBSlidesOnTheCPU() {
        let section = TransitionPaths.section(planes: DisplayPlane.vc4Output(overlays: 8), driver: "vc4",
                                              output: PixelSize(width: 3840, height: 2160), refreshHz: 60)
        let facts = Self.facts(section)
        #expect(facts["slide transition"]?.hasPrefix("planes") == true)
        #expect(facts["crossfade"]?.contains("not on planes: the planes would read 4.0 GB/s, over vc4's budget of 2.5 GB/s") == true,
                "\(facts)")
    }

    @Test func vkmsAndTheCPUSettingSayWhy() {
        let section = TransitionPaths.section(planes: DisplayPlane.vkms(), driver: "vkms",
                                              output: PixelSize(width: 1920, height: 1080), refreshHz: 60)
        let facts = Self.facts(section)
        #expect(facts["crossfade"]?.contains("no plane left has an alpha property") == true, "\(facts)")
        #expect(facts["Ken Burns"]?.contains("vkms's planes do not scale") == true, "\(facts)")
        let forced = TransitionPaths.section(planes: DisplayPlane.vc4Output(overlays: 8), driver: "vc4",
                                             output: PixelSize(width: 1920, height: 1080), refreshHz: 60, mode: .cpu)
        #expect(Self.facts(forced).values.allSatisfy { $0.hasPrefix("cpu") && $0.contains("output.planes: cpu") })
    }
}
