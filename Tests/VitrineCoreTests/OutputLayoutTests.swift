import Testing
import VitrineCore

@Suite("Output layout")
struct OutputLayoutTests {
    func issues(_ outputs: [ConfiguredOutput]) -> [String] { OutputLayout(outputs).issues.map(\.description) }

    @Test func connectorNamesAreTheKernels() {
        for name in ["HDMI-A-1", "HDMI-A-2", "DSI-1", "DP-12", "eDP-1", "Virtual-1", "DVI-I-1", "Writeback-1", "USB-1"] {
            #expect(ConnectorName.isValid(name), "\(name)")
        }
        for name in ["HDMI1", "HDMI-1", "hdmi-a-1", "HDMI-A-0", "HDMI-A-01", "HDMI-A-", "DSI", "-1", "", "HDMI-A-1 ", "DP-12345"] {
            #expect(!ConnectorName.isValid(name), "\(name)")
        }
        #expect(ConnectorName.suggestion(for: "HDMI1") == "HDMI-A-1")
        #expect(ConnectorName.suggestion(for: "HDMI-2") == "HDMI-A-2")
        #expect(ConnectorName.suggestion(for: "dsi1") == "DSI-1")
        #expect(ConnectorName.suggestion(for: "DP_3") == "DP-3")
        #expect(ConnectorName.suggestion(for: "edp-1") == "eDP-1")
        #expect(ConnectorName.suggestion(for: "screen") == nil && ConnectorName.suggestion(for: "X1") == nil)
    }

    @Test func aValidLayoutHasNoIssues() {
        #expect(issues([ConfiguredOutput(name: "HDMI-A-1", content: .playlist("lobby")),
                        ConfiguredOutput(name: "HDMI-A-2", role: .mirror(of: "HDMI-A-1")),
                        ConfiguredOutput(name: "DP-1", role: .canvas(CanvasMembership(name: "wall", x: 0, y: 0, width: 500, height: 300))),
                        ConfiguredOutput(name: "DP-2", role: .canvas(CanvasMembership(name: "wall", x: 500, y: 0, width: 500, height: 300)))]) == [])
    }

    @Test func namesAreConnectorNamesListedOnce() {
        #expect(issues([ConfiguredOutput(name: "HDMI1")]) == [
            "outputs[0].name: HDMI1 is not a connector name (did you mean HDMI-A-1?): the kernel names them TYPE-N, such as HDMI-A-1, DSI-1 or DP-1, and `vitrine displays` lists this board's",
        ])
        #expect(issues([ConfiguredOutput(name: "DSI-1"), ConfiguredOutput(name: "DSI-1")]) == ["outputs[1].name: DSI-1 is outputs[0] already: list each connector once"])
    }

    @Test func mirrorsShowAnotherListedOutputAndDoNotChain() {
        #expect(issues([ConfiguredOutput(name: "DSI-1", role: .mirror(of: "DSI-1"))]) == ["outputs[0].mirror: an output cannot mirror itself"])
        #expect(issues([ConfiguredOutput(name: "DSI-1"), ConfiguredOutput(name: "DP-1", role: .mirror(of: "HDMI-A-1"))])
            == ["outputs[1].mirror: HDMI-A-1 is not one of the outputs (DSI-1, DP-1): a mirror shows what another of them shows"])
        #expect(issues([ConfiguredOutput(name: "DSI-1"), ConfiguredOutput(name: "DP-1", role: .mirror(of: "DSI-1")),
                        ConfiguredOutput(name: "DP-2", role: .mirror(of: "DP-1"))])
            == ["outputs[2].mirror: DP-1 is a mirror itself (of DSI-1): mirror DSI-1; mirrors do not chain"])
        // A cycle: each is told.
        #expect(issues([ConfiguredOutput(name: "DP-1", role: .mirror(of: "DP-2")), ConfiguredOutput(name: "DP-2", role: .mirror(of: "DP-1"))]).count == 2)
        #expect(issues([ConfiguredOutput(name: "DSI-1"), ConfiguredOutput(name: "DP-1", content: .playlist("menu"), role: .mirror(of: "DSI-1"))])
            == ["outputs[1].playlist: a mirror shows what DSI-1 shows, so it has no playlist of its own (found menu): leave playlist out"])
    }

    @Test func aCanvasHasTwoOrMoreOutputsThatAgreeAndDoNotOverlap() {
        func member(_ name: String, x: Double, width: Double? = nil, playlist: String? = nil, fit: FitMode? = nil) -> ConfiguredOutput {
            ConfiguredOutput(name: name, fit: fit, content: playlist.map { .playlist($0) } ?? .programme,
                             role: .canvas(CanvasMembership(name: "wall", x: x, y: 0, width: width, height: width.map { _ in 680 })))
        }
        #expect(issues([member("DP-1", x: 0)]) == [
            "outputs[0].canvas: canvas wall has only this output: a canvas spans two or more (give the others canvas: {name: wall, x: …, y: …})",
        ])
        #expect(issues([member("DP-1", x: 0, playlist: "lobby"), member("DP-2", x: 1230)])
            == ["outputs[1].playlist: canvas wall shows playlist lobby on outputs[0] and the programme here: give every output of a canvas the same playlist, or none"])
        #expect(issues([member("DP-1", x: 0), member("DP-2", x: 1230, fit: .cover)])
            == ["outputs[1].fit: canvas wall fits with the top-level fit on outputs[0] and cover here: give every output of a canvas the same fit, or none"])
        #expect(issues([member("DP-1", x: 0, width: 1210), member("DP-2", x: 1200, width: 1210)])
            == ["outputs[1].canvas: overlaps outputs[0] (DP-1) by 10x680 mm in canvas wall: the picture areas of a canvas's outputs must not overlap (x and y place each one's top left corner, in millimetres)"])
        // Touching is not overlapping; the displays' own sizes are checked on the board.
        #expect(issues([member("DP-1", x: 0, width: 1210), member("DP-2", x: 1210, width: 1210)]) == [])
        #expect(issues([member("DP-1", x: 0), member("DP-2", x: 5)]) == [])
    }

    @Test func checkConfigWarnsOfATouchDeviceTwoOutputsList() {
        let goodix = InputDevicePattern("Goodix"), usb = InputDevicePattern("0eef:0001")
        #expect(OutputLayout([ConfiguredOutput(name: "DSI-1", touch: [goodix]), ConfiguredOutput(name: "HDMI-A-1", touch: [usb])])
            .touchWarnings.isEmpty)
        let twice = OutputLayout([ConfiguredOutput(name: "DSI-1", touch: [goodix]), ConfiguredOutput(name: "HDMI-A-1", touch: [usb, goodix])])
        #expect(twice.touchWarnings.map(\.path) == ["outputs[1].touch[1]"])
        #expect(twice.touchWarnings.first?.message == "Goodix is listed by outputs[0] (DSI-1) too: the first listed output, DSI-1, takes the device")
    }
}
