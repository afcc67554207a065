import CLibDRM
import Testing
import VitrineCore
@testable import VitrineDRM

/// A mode with real CVT-like timings: `clock` in kHz and the totals.
func mode(_ width: Int, _ height: Int, clock: Int, htotal: Int, vtotal: Int, preferred: Bool = false) -> DRMMode {
    var info = drmModeModeInfo()
    info.hdisplay = UInt16(width)
    info.vdisplay = UInt16(height)
    info.clock = UInt32(clock)
    info.htotal = UInt16(htotal)
    info.vtotal = UInt16(vtotal)
    info.vrefresh = UInt32((Double(clock) * 1000 / Double(htotal * vtotal)).rounded())
    info.type = preferred ? UInt32(DRM_MODE_TYPE_PREFERRED) : 0
    return DRMMode(info)
}

@Suite("DRM modes")
struct DRMModeTests {
    // 1920x1080@60 (CEA), 1920x1080@50, 1280x720@59.94, 800x600@60.32 (VESA)
    let modes = [
        mode(1920, 1080, clock: 148_500, htotal: 2200, vtotal: 1125, preferred: true),
        mode(1920, 1080, clock: 148_500, htotal: 2640, vtotal: 1125),
        mode(1280, 720, clock: 74_176, htotal: 1650, vtotal: 750),
        mode(800, 600, clock: 40_000, htotal: 1056, vtotal: 628),
    ]

    @Test func refreshComesFromThePixelClock() {
        #expect(modes[0].refreshMillihertz == 60_000)
        #expect(modes[1].refreshMillihertz == 50_000)
        #expect(modes[2].refreshMillihertz == 59_940)
        #expect(modes.map(\.description) == ["1920x1080@60", "1920x1080@50", "1280x720@59.94", "800x600@60.31"])
        #expect(modes[0].refreshInterval == .nanoseconds(16_666_666))
        #expect(modes[0].size == PixelSize(width: 1920, height: 1080))
    }

    @Test func requestsParseAndMatch() throws {
        let any = try #require(DRMModeRequest(parsing: "1920x1080"))
        #expect(any.match(in: modes) == modes[0])  // the preferred one of that size
        #expect(DRMModeRequest(parsing: "1920x1080@50")?.match(in: modes) == modes[1])
        #expect(DRMModeRequest(parsing: "1280x720@60")?.match(in: modes) == modes[2])  // within half a hertz
        #expect(DRMModeRequest(parsing: "1280x720@59.94")?.match(in: modes) == modes[2])
        #expect(DRMModeRequest(parsing: "1280x720@50")?.match(in: modes) == nil)
        #expect(DRMModeRequest(parsing: "1024x768")?.match(in: modes) == nil)
        for bad in ["", "1920", "1920x", "x1080", "1920x1080@", "1920x1080@0", "1920x1080@60@60", "axb"] {
            #expect(DRMModeRequest(parsing: bad) == nil, "\(bad) parsed")
        }
        #expect(DRMModeRequest(parsing: "800x600@60")?.description == "800x600@60")
    }

    @Test("the modes offered to the driver: the preferred first, then the rest largest and fastest first, each timing once")
    func candidatesInOrder() throws {
        let duplicate = mode(1280, 720, clock: 74_176, htotal: 1650, vtotal: 750)
        let connector = DRMConnector(id: 1, name: "HDMI-A-1", status: .connected, modes: [modes[2], modes[3], modes[1], modes[0], duplicate])
        #expect(try DRMScanout.candidates(mode: nil, for: connector).map(\.description)
                == ["1920x1080@60", "1920x1080@50", "1280x720@59.94", "800x600@60.31"])
        // Asked for by name: that mode or nothing, never another size behind the operator's back.
        #expect(try DRMScanout.candidates(mode: DRMModeRequest(parsing: "1280x720"), for: connector).map(\.description) == ["1280x720@59.94"])
        #expect(throws: DRMError.self) { try DRMScanout.candidates(mode: DRMModeRequest(parsing: "1024x768"), for: connector) }
        #expect(DRMError.modeRefused(connector: "HDMI-A-1", refusals: ["3840x2160@60: test of atomic modeset on /dev/dri/card0: Invalid argument"]).description
                == "HDMI-A-1: the driver refuses every mode tried (3840x2160@60: test of atomic modeset on /dev/dri/card0: Invalid argument); set output.mode to one the display and the board can drive")
    }

    @Test func preferredModeFallsBackToTheFirst() {
        #expect(modes.preferred == modes[0])
        #expect(Array(modes.dropFirst()).preferred == modes[1])
        #expect([DRMMode]().preferred == nil)
    }
}

@Suite("DRM events and errors")
struct DRMEventTests {
    func event(type: UInt32, length: UInt32, seconds: UInt32 = 0, microseconds: UInt32 = 0, sequence: UInt32 = 0) -> [UInt8] {
        func le(_ v: UInt32) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 24)] }
        var bytes = le(type) + le(length) + [UInt8](repeating: 0xAB, count: 8) + le(seconds) + le(microseconds) + le(sequence) + le(42)
        bytes += [UInt8](repeating: 0, count: max(0, Int(length) - bytes.count))
        return Array(bytes.prefix(Int(length)))
    }

    @Test func flipCompletionsAreParsed() {
        let bytes = event(type: 0x01, length: 32, seconds: 1) + event(type: 0x02, length: 32, seconds: 12, microseconds: 345_678, sequence: 7)
        #expect(DRMEventParser.flipCompletions(in: bytes) == [
            DRMFlipCompletion(timestampNanoseconds: 12_345_678_000, sequence: 7),
        ])
    }

    @Test func truncatedOrBogusEventsAreIgnored() {
        let whole = event(type: 0x02, length: 32, seconds: 1)
        #expect(DRMEventParser.flipCompletions(in: Array(whole.prefix(20))).isEmpty)
        #expect(DRMEventParser.flipCompletions(in: event(type: 0x02, length: 4)).isEmpty)
        #expect(DRMEventParser.flipCompletions(in: []).isEmpty)
    }

    @Test func messagesSayWhatToDo() {
        #expect(DRMError.noCard(directory: "/dev/dri").description
            == "no DRM device: /dev/dri has no card* (no KMS driver loaded? on a Raspberry Pi enable dtoverlay=vc4-kms-v3d)")
        #expect(DRMError.permissionDenied(path: "/dev/dri/card0", group: "video").description
            == "/dev/dri/card0: permission denied; add the kiosk's user to the 'video' group (the device's group)")
        #expect(DRMError.masterHeld(path: "/dev/dri/card0").description.contains("another process is DRM master"))
        #expect(DRMError.modeUnavailable(connector: "HDMI-A-1", requested: "1234x567", available: ["1920x1080@60 (preferred)", "1280x720@60"]).description
            == "HDMI-A-1: mode 1234x567 is not available; available modes: 1920x1080@60 (preferred), 1280x720@60")
        #expect(DRMError.noConnectedConnector(card: "/dev/dri/card0", connectors: ["HDMI-A-1 (disconnected)"]).description
            == "/dev/dri/card0: no connected display (saw HDMI-A-1 (disconnected)); check the cable and that the display is on")
    }

    @Test func cardDiscoveryOnADirectoryWithoutCards() {
        #expect(DRMCard.cardPaths(in: "/nonexistent").isEmpty)
        #expect(DRMCard.cardPaths(in: "/dev").allSatisfy { $0.hasPrefix("/dev/card") })
    }
}
