import CLibDRM
import Testing
@testable import VitrineDRM

@Suite("DRM hotplug")
struct DRMHotplugTests {
    let fullHD = mode(1920, 1080, clock: 148_500, htotal: 2200, vtotal: 1125, preferred: true)
    let fullHD50 = mode(1920, 1080, clock: 148_500, htotal: 2640, vtotal: 1125)
    let hd = mode(1280, 720, clock: 74_250, htotal: 1650, vtotal: 750, preferred: true)
    let svga = mode(800, 600, clock: 40_000, htotal: 1056, vtotal: 628)

    func connector(_ status: DRMConnector.Status, _ modes: [DRMMode]) -> DRMConnector {
        DRMConnector(id: 42, name: "HDMI-A-1", status: status, modes: modes)
    }

    func decide(showing: Bool, current: DRMMode? = nil, _ probed: DRMConnector?,
                request: String? = nil) -> DRMScanout.HotplugDecision {
        DRMScanout.hotplugDecision(showing: showing, current: current ?? fullHD, probed: probed,
                                   request: request.flatMap(DRMModeRequest.init(parsing:)))
    }

    @Test func anUnplugStopsPresentingOnce() {
        #expect(decide(showing: true, connector(.disconnected, [])) == .stop)
        // The kernel may keep the old mode list on a disconnected connector until it probes.
        #expect(decide(showing: true, connector(.disconnected, [fullHD])) == .stop)
        // A connector that is gone from the card (an MST branch unplugged).
        #expect(decide(showing: true, nil) == .stop)
        // Already stopped: a second event changes nothing.
        #expect(decide(showing: false, connector(.disconnected, [])) == .none)
    }

    @Test func aReplugSetsTheModeAgain() {
        #expect(decide(showing: false, connector(.connected, [fullHD, hd])) == .modeset(fullHD))
        // "unknown" with modes is a display (some connectors cannot detect).
        #expect(decide(showing: false, connector(.unknown, [fullHD])) == .modeset(fullHD))
        // The requested mode, when the new display has it.
        #expect(decide(showing: false, connector(.connected, [fullHD, svga]), request: "800x600") == .modeset(svga))
    }

    @Test func aDifferentDisplayMayBringADifferentMode() {
        // Replugged with another monitor whose preferred mode is smaller.
        #expect(decide(showing: false, connector(.connected, [hd, svga])) == .modeset(hd))
        // Swapped faster than the unplug was seen: still showing, but the mode changed.
        #expect(decide(showing: true, connector(.connected, [hd, svga])) == .modeset(hd))
        #expect(decide(showing: true, connector(.connected, [fullHD50, hd]), request: "1920x1080") == .modeset(fullHD50))
    }

    @Test func aHotplugElsewhereChangesNothing() {
        #expect(decide(showing: true, connector(.connected, [fullHD, hd])) == .none)
        // The same timings without the preferred flag are the same mode: no modeset, no blanking.
        let unflagged = mode(1920, 1080, clock: 148_500, htotal: 2200, vtotal: 1125)
        #expect(decide(showing: true, connector(.connected, [unflagged])) == .none)
        #expect(unflagged.hasSameTimings(as: fullHD) && unflagged != fullHD)
        #expect(!fullHD50.hasSameTimings(as: fullHD))
    }

    @Test func aDisplayWithoutTheRequestedModeIsUnusable() {
        let decision = decide(showing: false, connector(.connected, [hd]), request: "800x600")
        guard case .unusable(let error) = decision else {
            Issue.record("expected unusable, got \(decision)")
            return
        }
        #expect(error.description.contains("mode 800x600 is not available"))
        // A connected connector that reports no modes yet is not a display to set a mode on.
        #expect(decide(showing: false, connector(.connected, [])) == .none)
    }

    // MARK: Uevents

    /// A uevent as the kernel sends it when a connector's status changes.
    func uevent(minor: String = "0", connector: String? = nil, hotplug: String? = "1") -> [String: String] {
        var event = ["ACTION": "change", "DEVPATH": "/devices/pci0000:00/0000:00:01.0/drm/card\(minor)",
                     "SUBSYSTEM": "drm", "DEVNAME": "dri/card\(minor)", "DEVTYPE": "drm_minor",
                     "MAJOR": "226", "MINOR": minor, "SEQNUM": "1234"]
        event["HOTPLUG"] = hotplug
        event["CONNECTOR"] = connector
        return event
    }

    @Test func hotplugUeventsAreMatchedByDeviceNumberAndConnector() {
        let card1 = (major: UInt32(226), minor: UInt32(1))
        #expect(DRMHotplugFilter.concerns(uevent(minor: "1"), device: card1, connectorID: 42))
        #expect(DRMHotplugFilter.concerns(uevent(minor: "1", connector: "42"), device: card1, connectorID: 42))
        // Another connector of the same card.
        #expect(!DRMHotplugFilter.concerns(uevent(minor: "1", connector: "43"), device: card1, connectorID: 42))
        // card11 is not card1 (a suffix match on DEVNAME would say it is).
        #expect(!DRMHotplugFilter.concerns(uevent(minor: "11"), device: card1, connectorID: 42))
        // Not a hotplug: a plain change event of the card.
        #expect(!DRMHotplugFilter.concerns(uevent(minor: "1", hotplug: nil), device: card1, connectorID: 42))
        // A synthetic change of the card (udevadm trigger, or `change` written to its uevent file): look again.
        var synthetic = uevent(minor: "1", hotplug: nil)
        synthetic["SYNTH_UUID"] = "0"
        #expect(DRMHotplugFilter.concerns(synthetic, device: card1, connectorID: 42))
        synthetic["ACTION"] = "add"
        #expect(!DRMHotplugFilter.concerns(synthetic, device: card1, connectorID: 42))
        var input = uevent(minor: "1")
        input["SUBSYSTEM"] = "input"
        #expect(!DRMHotplugFilter.concerns(input, device: card1, connectorID: 42))
    }
}
