import Logging
import ServerTestSupport
import Synchronization
import Testing
import VitrineConfig
import VitrineCore
import VitrineDRM
@testable import VitrineAssembly
@testable import VitrineRuntime

/// The lease path of `vitrine run` with several outputs, against a card that
/// is only a list of planes: which planes each lease asks for, and what
/// happens when the card lists none or they cannot be shared.
@Suite("Output group displays: one lease per output, each with its planes")
struct OutputGroupDisplaysTests {
    /// A lessor that records each lease it is asked for and answers with an in-memory display.
    final class RecordingLessor: OutputLessor, Sendable {
        struct Lease: Equatable {
            var connector: String
            var crtc: Int
            var planes: PlaneShare.Share?
            var waiting: Bool
        }

        let planes: [DRMPlaneDescription]?
        let failing: Set<String>
        let leases = Mutex<[Lease]>([])
        let listings = Mutex(0)
        let disabled = Mutex(0)

        init(planes: [DRMPlaneDescription]?, failing: Set<String> = []) {
            self.planes = planes
            self.failing = failing
        }

        var path: String { "/dev/dri/card1" }

        func planeDescriptions() throws -> [DRMPlaneDescription]? {
            listings.withLock { $0 += 1 }
            return planes
        }

        func disableUniversalPlanes() { disabled.withLock { $0 += 1 } }

        func display(leasing output: PlannedOutput, planes: PlaneShare.Share?, waiting: Bool) throws -> DisplayBackend {
            if failing.contains(output.connector) { throw DRMError.masterHeld(path: path) }
            leases.withLock { $0.append(Lease(connector: output.connector, crtc: output.crtc, planes: planes, waiting: waiting)) }
            return HeadlessDisplay(size: output.mode.size, previewPath: nil, logger: Logger(label: "test"))
        }
    }

    /// Three listed outputs on a card of three CRTCs; the third has no display yet (it waits).
    func plan() throws -> (OutputPlan, [OutputPlan.Connector]) {
        let configuration = try ConfigLoader.parse("""
            slides: [{path: "#ff0000"}]
            outputs:
              - {name: HDMI-A-1}
              - {name: HDMI-A-2}
              - {name: DP-1}
            """)
        let layout = try #require(configuration.outputs)
        var connectors = HeadlessOutputs.connectors(for: layout, size: PixelSize(width: 1920, height: 1080))
        connectors[2].status = .disconnected
        connectors[2].modes = []
        connectors[2].currentCRTC = nil
        let plan = OutputPlan(layout: layout, single: configuration.singleOutput, connectors: connectors, crtcCount: 3)
        #expect(plan.driven.map(\.connector) == ["HDMI-A-1", "HDMI-A-2"])
        #expect(plan.waiting.map(\.connector) == ["DP-1"])
        return (plan, connectors)
    }

    /// vc4's layout: a primary and a cursor of its own per CRTC, 16 overlays for any.
    var vc4Planes: [DRMPlaneDescription] {
        var planes: [DRMPlaneDescription] = []
        for crtc in 0..<3 {
            let bit: UInt32 = 1 << UInt32(crtc)
            planes.append(DRMPlaneDescription(id: UInt32(100 + crtc * 2), kind: .primary, possibleCRTCs: bit))
            planes.append(DRMPlaneDescription(id: UInt32(101 + crtc * 2), kind: .cursor, possibleCRTCs: bit))
        }
        for overlay in 0..<16 { planes.append(DRMPlaneDescription(id: UInt32(200 + overlay), kind: .overlay, possibleCRTCs: 0b111)) }
        return planes
    }

    @Test("the planes are shared once, before any lease, and a waiting output's share is kept for it")
    func eachLeaseCarriesItsShare() throws {
        let (plan, connectors) = try plan()
        let lessor = RecordingLessor(planes: vc4Planes)
        let log = CapturedLog()
        let groups = try OutputGroupDisplays.open(plan, connectors: connectors, on: lessor, logger: log.logger)
        #expect(groups.count == 3)
        #expect(lessor.listings.withLock { $0 } == 1)
        #expect(lessor.disabled.withLock { $0 } == 0)
        let leases = lessor.leases.withLock { $0 }
        #expect(leases.map(\.connector) == ["HDMI-A-1", "HDMI-A-2", "DP-1"])
        #expect(leases.map(\.waiting) == [false, false, true])
        for lease in leases {
            let planes = try #require(lease.planes)
            #expect(planes.primary == UInt32(100 + lease.crtc * 2))
            #expect(planes.cursor == UInt32(101 + lease.crtc * 2))
        }
        // 16 overlays over three screens: 6, 5 and 5, none in two leases.
        #expect(leases.map { $0.planes?.overlays.count } == [6, 5, 5])
        let all = leases.flatMap { $0.planes?.planeIDs ?? [] }
        #expect(Set(all).count == all.count)
        #expect(log.text.contains("HDMI-A-1 leased with primary plane 100, cursor plane 101, 6 overlay planes (200, 203, 206, 209, 212, 215)"))
    }

    @Test("a card that lists no planes: each lease gets the kernel's primary and cursor, said once")
    func noPlanesListed() throws {
        let (plan, connectors) = try plan()
        let lessor = RecordingLessor(planes: nil)
        let log = CapturedLog()
        _ = try OutputGroupDisplays.open(plan, connectors: connectors, on: lessor, logger: log.logger)
        #expect(lessor.leases.withLock { $0 }.allSatisfy { $0.planes == nil })
        #expect(lessor.disabled.withLock { $0 } == 0)
        #expect(log.text.components(separatedBy: "lists no planes to this process").count == 2)
        #expect(!log.text.contains("leased with"))
    }

    @Test("planes that cannot be shared out: universal planes off again, so the kernel adds each CRTC's own")
    func shareRefused() throws {
        let (plan, connectors) = try plan()
        // No primary can be CRTC 2's own.
        let lessor = RecordingLessor(planes: vc4Planes.filter { $0.id != 104 })
        let log = CapturedLog()
        let groups = try OutputGroupDisplays.open(plan, connectors: connectors, on: lessor, logger: log.logger)
        #expect(groups.count == 3)
        #expect(lessor.disabled.withLock { $0 } == 1)
        #expect(lessor.leases.withLock { $0 }.allSatisfy { $0.planes == nil })
        #expect(log.text.contains("warning /dev/dri/card1: the planes cannot be shared out (no primary plane is CRTC 2's own)"))
    }

    @Test("an output whose lease fails is left out; the others keep their shares")
    func aFailedLeaseLeavesTheOthers() throws {
        let (plan, connectors) = try plan()
        let lessor = RecordingLessor(planes: vc4Planes, failing: ["HDMI-A-2"])
        let log = CapturedLog()
        let groups = try OutputGroupDisplays.open(plan, connectors: connectors, on: lessor, logger: log.logger)
        #expect(groups.map(\.shown.output) == ["HDMI-A-1", "DP-1"])
        #expect(lessor.leases.withLock { $0 }.map { $0.planes?.overlays.count } == [6, 5])
        #expect(log.text.contains("cannot show HDMI-A-2"))
    }

    @Test("a preview PNG per output, named after it")
    func previewPaths() {
        #expect(OutputGroupDisplays.previewPath("/run/vitrine/preview.png", for: "HDMI-A-2") == "/run/vitrine/preview-HDMI-A-2.png")
        #expect(OutputGroupDisplays.previewPath("/run/v.d/preview", for: "DP-1") == "/run/v.d/preview-DP-1")
        #expect(OutputGroupDisplays.previewPath("preview", for: "DP-1") == "preview-DP-1")
    }
}
