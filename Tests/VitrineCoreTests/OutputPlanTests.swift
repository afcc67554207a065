import Testing
import VitrineCore

/// The output plan on plain values: a Raspberry Pi 4's connectors (two HDMI
/// and the DSI panel, each wired to one CRTC), outputs missing, mirrors, a
/// canvas across two screens with a bezel, more outputs than CRTCs, and no
/// `outputs` section at all.
@Suite("Output plan")
struct OutputPlanTests {
    typealias Connector = OutputPlan.Connector

    static let fullHD = OutputMode(width: 1920, height: 1080, refreshMillihertz: 60_000, isPreferred: true)
    static let hd = OutputMode(width: 1280, height: 720, refreshMillihertz: 60_000)
    static let tv = [fullHD, OutputMode(width: 1920, height: 1080, refreshMillihertz: 50_000), hd]
    static let panel = OutputMode(width: 800, height: 480, refreshMillihertz: 60_000, isPreferred: true)

    /// The Pi 4 under vc4-kms-v3d, as CRTCAssignmentTests has it: six CRTCs, DSI-1 on
    /// CRTC 2 only, HDMI-A-1 on 3 (the console's, now), HDMI-A-2 on 4. Two 1210x680 mm
    /// televisions and the 7-inch panel (155x86 mm), each connected unless `unplugged`.
    static func pi4(unplugged: Set<String> = []) -> [Connector] {
        func connector(_ name: String, _ size: (Int, Int), _ modes: [OutputMode], crtc: Int, current: Int? = nil) -> Connector {
            let away = unplugged.contains(name)
            return Connector(name: name, status: away ? .disconnected : .connected, widthMillimetres: away ? 0 : size.0,
                             heightMillimetres: away ? 0 : size.1, modes: away ? [] : modes, possibleCRTCs: [crtc], currentCRTC: away ? nil : current)
        }
        return [connector("HDMI-A-1", (1210, 680), tv, crtc: 3, current: 3), connector("HDMI-A-2", (1210, 680), tv, crtc: 4),
                connector("DSI-1", (155, 86), [panel], crtc: 2), connector("Writeback-1", (0, 0), [], crtc: 0)]
    }

    func plan(_ outputs: [ConfiguredOutput]?, _ connectors: [Connector], crtcs: Int = 6,
              single: OutputPlan.SingleOutput = OutputPlan.SingleOutput()) -> OutputPlan {
        OutputPlan(layout: outputs.map(OutputLayout.init), single: single, connectors: connectors, crtcCount: crtcs)
    }

    func driven(_ plan: OutputPlan, _ name: String) -> PlannedOutput? { plan.driven.first { $0.connector == name } }

    // MARK: No outputs section

    @Test func withoutAnOutputsSectionItIsTodaysOneOutput() {
        let today = plan(nil, Self.pi4())
        #expect(today.driven.count == 1)
        let one = today.driven[0]
        #expect(one.connector == "HDMI-A-1" && one.crtc == 3 && one.keepsCRTC && one.mode == Self.fullHD)
        #expect(one.content == .programme && one.showing == .own && one.rotation == .none && one.fit == nil)
        #expect(today.entries.map(\.connector) == ["HDMI-A-1", "HDMI-A-2", "DSI-1", "Writeback-1"])
        #expect(today.entries[1].state == .undriven(.notTheOneOutput("HDMI-A-1")))
        #expect(today.missing.isEmpty && today.problems.isEmpty)
        // The first connected one with modes: HDMI-A-1 unplugged gives HDMI-A-2.
        #expect(plan(nil, Self.pi4(unplugged: ["HDMI-A-1"])).driven.map(\.connector) == ["HDMI-A-2"])
        // output.connector, output.mode and output.rotation choose as they always did.
        let named = plan(nil, Self.pi4(), single: OutputPlan.SingleOutput(connector: "DSI-1", rotation: .quarter))
        #expect(named.driven.map(\.connector) == ["DSI-1"] && named.driven[0].crtc == 2 && named.driven[0].rotation == .quarter)
        #expect(named.driven[0].logicalSize == PixelSize(width: 480, height: 800))
        let fifty = plan(nil, Self.pi4(), single: OutputPlan.SingleOutput(mode: DisplayModeSpec(parsing: "1920x1080@50")))
        #expect(fifty.driven[0].mode.refreshMillihertz == 50_000)
        // A named connector that is unplugged, or not on the card, or without the mode: none driven, and said.
        let away = plan(nil, Self.pi4(unplugged: ["DSI-1"]), single: OutputPlan.SingleOutput(connector: "DSI-1"))
        #expect(away.driven.isEmpty && away.missing.map(\.reason) == [.notConnected] && away.missing[0].policy == nil)
        #expect(plan(nil, Self.pi4(), single: OutputPlan.SingleOutput(connector: "DP-1")).missing.map(\.reason) == [.notOnCard])
        let wrongMode = plan(nil, Self.pi4(), single: OutputPlan.SingleOutput(connector: "DSI-1", mode: DisplayModeSpec(width: 1024, height: 600)))
        #expect(wrongMode.driven.isEmpty && wrongMode.missing.map(\.reason) == [.modeNotOffered(DisplayModeSpec(width: 1024, height: 600))])
        // Nothing connected: nothing driven, and every connector says why.
        let none = plan(nil, Self.pi4(unplugged: ["HDMI-A-1", "HDMI-A-2", "DSI-1"]))
        #expect(none.driven.isEmpty && none.entries.map(\.state) == [.undriven(.notConnected), .undriven(.notConnected),
                                                                        .undriven(.notConnected), .undriven(.noModes)])
    }

    // MARK: Raspberry Pi 4: two playlists, a mirror

    @Test func piFourWithTwoPlaylistsAndAMirror() {
        let outputs = [ConfiguredOutput(name: "HDMI-A-1", content: .playlist("lobby")),
                       ConfiguredOutput(name: "HDMI-A-2", mode: DisplayModeSpec(parsing: "1280x720"), fit: .cover, content: .playlist("menu")),
                       ConfiguredOutput(name: "DSI-1", rotation: .quarter, role: .mirror(of: "HDMI-A-1"))]
        let all = plan(outputs, Self.pi4())
        #expect(all.driven.map(\.connector) == ["HDMI-A-1", "HDMI-A-2", "DSI-1"])
        #expect(all.driven.map(\.crtc) == [3, 4, 2] && all.driven.map(\.keepsCRTC) == [true, false, false])
        #expect(all.driven.map(\.content) == [.playlist("lobby"), .playlist("menu"), .playlist("lobby")])
        #expect(all.driven.map(\.mode) == [Self.fullHD, Self.hd, Self.panel])
        #expect(all.driven[1].requestedMode == DisplayModeSpec(width: 1280, height: 720) && all.driven[1].fit == .cover)
        #expect(all.driven[2].showing == .mirror(of: "HDMI-A-1") && all.driven[2].rotation == .quarter && all.driven[2].standsInFor == nil)
        // A connector the section does not list is left as it is.
        #expect(all.entries[3].state == .undriven(.notListed))
        #expect(all.missing.isEmpty && all.problems.isEmpty)
        #expect(all.lines == [
            "HDMI-A-1: playlist lobby; CRTC 3 (as now), 1920x1080@60",
            "HDMI-A-2: playlist menu; CRTC 4, 1280x720@60, fit cover",
            "DSI-1: mirror of HDMI-A-1 (playlist lobby); CRTC 2, 800x480@60, rotation 90",
            "Writeback-1: not in outputs: left as it is",
        ])
        // The default rotation (output.rotation) is every output's that sets none.
        let turned = OutputPlan(layout: OutputLayout(outputs), single: OutputPlan.SingleOutput(rotation: .half), connectors: Self.pi4(), crtcCount: 6)
        #expect(turned.driven.map(\.rotation) == [.half, .half, .quarter])
    }

    @Test func anUnpluggedOutputWaitsOrIsSkipped() {
        let outputs = [ConfiguredOutput(name: "HDMI-A-1", content: .playlist("lobby")),
                       ConfiguredOutput(name: "HDMI-A-2", content: .playlist("menu"), whenMissing: .wait),
                       ConfiguredOutput(name: "DSI-1", content: .playlist("menu"), whenMissing: .skip)]
        let unplugged = plan(outputs, Self.pi4(unplugged: ["HDMI-A-2", "DSI-1"]))
        #expect(unplugged.driven.map(\.connector) == ["HDMI-A-1"])
        #expect(unplugged.missing.map(\.name) == ["HDMI-A-2", "DSI-1"])
        // wait keeps its CRTC free for it; skip keeps nothing.
        #expect(unplugged.missing[0].keptCRTC == 4 && unplugged.missing[1].keptCRTC == nil)
        #expect(unplugged.missing.map(\.description) == [
            "HDMI-A-2: not connected; wait: CRTC 4 kept for it",
            "DSI-1: not connected; skip: nothing kept for it",
        ])
        #expect(unplugged.entries[1].state == .undriven(.notConnected))
        // Plugged in, it is driven where it was waited for.
        #expect(driven(plan(outputs, Self.pi4()), "HDMI-A-2")?.crtc == 4)
        // The first listed output missing: the next one is the one a one-output kiosk drives.
        let firstAway = plan(outputs, Self.pi4(unplugged: ["HDMI-A-1"]))
        #expect(firstAway.driven.first?.connector == "HDMI-A-2" && firstAway.missing.map(\.name) == ["HDMI-A-1"])
        // Every listed output away: nothing driven, and each one is said.
        let none = plan(outputs, Self.pi4(unplugged: ["HDMI-A-1", "HDMI-A-2", "DSI-1"]))
        #expect(none.driven.isEmpty && none.missing.count == 3)
        // A connector this board does not have is missing too, with no CRTC to keep.
        let elsewhere = plan([ConfiguredOutput(name: "HDMI-A-1"), ConfiguredOutput(name: "DP-1")], Self.pi4())
        #expect(elsewhere.missing.map(\.description) == ["DP-1: not on this card; wait: no CRTC to keep for it on this card"])
    }

    @Test func aWaitingOutputNeverTakesACRTCFromOneThatIsThere() {
        // Both can drive CRTC 0 or 1; B, listed first but unplugged, waits; A and C are there.
        let connectors = [Connector(name: "DP-1", status: .connected, modes: [Self.fullHD], possibleCRTCs: [0, 1]),
                          Connector(name: "DP-2", status: .disconnected, modes: [], possibleCRTCs: [0, 1]),
                          Connector(name: "DP-3", status: .connected, modes: [Self.fullHD], possibleCRTCs: [0, 1])]
        let waiting = plan([ConfiguredOutput(name: "DP-2"), ConfiguredOutput(name: "DP-1"), ConfiguredOutput(name: "DP-3")], connectors, crtcs: 2)
        #expect(waiting.driven.map(\.connector) == ["DP-1", "DP-3"] && waiting.driven.map(\.crtc) == [0, 1])
        #expect(waiting.missing.map(\.description) == ["DP-2: not connected; wait: no CRTC left to keep for it"])
        // With one left over, it is kept.
        let roomy = plan([ConfiguredOutput(name: "DP-2"), ConfiguredOutput(name: "DP-1")], connectors, crtcs: 2)
        #expect(roomy.missing[0].keptCRTC == 1 && roomy.driven.map(\.crtc) == [0])
    }

    @Test func aMirrorWhoseSourceIsMissingTakesItsPlace() {
        let outputs = [ConfiguredOutput(name: "HDMI-A-1", fit: .cover, content: .playlist("lobby")),
                       ConfiguredOutput(name: "HDMI-A-2", role: .mirror(of: "HDMI-A-1"))]
        let standIn = plan(outputs, Self.pi4(unplugged: ["HDMI-A-1"]))
        #expect(standIn.driven.count == 1)
        let mirror = standIn.driven[0]
        #expect(mirror.connector == "HDMI-A-2" && mirror.content == .playlist("lobby") && mirror.showing == .own)
        #expect(mirror.standsInFor == "HDMI-A-1" && mirror.fit == .cover)
        #expect(standIn.missing.map(\.description) == ["HDMI-A-1: not connected; wait: CRTC 3 kept for it, HDMI-A-2 shows its pictures"])
        #expect(standIn.lines[1] == "HDMI-A-2: playlist lobby in place of HDMI-A-1; CRTC 4, 1920x1080@60, fit cover")
    }

    // MARK: A canvas across two screens with a bezel

    /// Two 1210x680 mm televisions side by side with 20 mm of frames between their
    /// picture areas: HDMI-A-2's begins at 1230 mm.
    static let wall = [ConfiguredOutput(name: "HDMI-A-1", content: .playlist("lobby"), role: .canvas(CanvasMembership(name: "wall", x: 0, y: 0))),
                       ConfiguredOutput(name: "HDMI-A-2", content: .playlist("lobby"), role: .canvas(CanvasMembership(name: "wall", x: 1230, y: 0)))]

    /// The wall with each screen's picture area given (1210x680 mm), so a missing one's place is known.
    static var sizedWall: [ConfiguredOutput] {
        wall.map { output in
            var sized = output
            if case .canvas(var membership) = output.role {
                (membership.width, membership.height) = (1210, 680)
                sized.role = .canvas(membership)
            }
            return sized
        }
    }

    @Test func aTwoScreenCanvasSkipsTheBezel() throws {
        let spanned = plan(Self.wall, Self.pi4())
        #expect(spanned.problems.isEmpty)
        let canvas = try #require(spanned.canvases.first)
        // The finer of each screen's densities: 1080 pixels over 680 mm.
        #expect(canvas.pixelsPerMillimetre == 1080.0 / 680.0)
        #expect(canvas.millimetres == MillimetreRect(x: 0, y: 0, width: 2440, height: 680))
        #expect(canvas.size == PixelSize(width: 3875, height: 1080))
        let left = try #require(driven(spanned, "HDMI-A-1")), right = try #require(driven(spanned, "HDMI-A-2"))
        guard case .canvas(let leftPart) = left.showing, case .canvas(let rightPart) = right.showing else {
            Issue.record("both show their part of the canvas: \(left.showing), \(right.showing)")
            return
        }
        #expect(leftPart.region == PixelRect(x: 0, y: 0, width: 1922, height: 1080))
        #expect(rightPart.region == PixelRect(x: 1954, y: 0, width: 1921, height: 1080))
        // The seam: every canvas column belongs to one screen, or to the bezel; the bezel's
        // 20 mm are the 32 columns between, which no screen shows.
        var owners: [[String]] = []
        for column in 0..<canvas.size.width { owners.append(canvas.members(at: column, 540).map(\.output)) }
        #expect(owners.allSatisfy { $0.count <= 1 })
        let bezel = owners.indices.filter { owners[$0].isEmpty }
        #expect(bezel == Array(1922..<1954))
        #expect(Double(bezel.count) / canvas.pixelsPerMillimetre > 19.5 && Double(bezel.count) / canvas.pixelsPerMillimetre < 20.5)
        // Each screen's pixels sample its own region only, from its first column to its last.
        #expect(leftPart.canvasPixel(x: 0, y: 0, outputSize: left.logicalSize) == (x: 0, y: 0))
        #expect(leftPart.canvasPixel(x: 1919, y: 1079, outputSize: left.logicalSize) == (x: 1921, y: 1079))
        #expect(rightPart.canvasPixel(x: 0, y: 0, outputSize: right.logicalSize).x == 1954)
        #expect(rightPart.canvasPixel(x: 1919, y: 0, outputSize: right.logicalSize).x == 3874)
        #expect(spanned.lines[0] == "HDMI-A-1: canvas wall 1922x1080+0+0 of 3875x1080 (playlist lobby); CRTC 3 (as now), 1920x1080@60")
    }

    @Test func aMissingScreenKeepsItsPlaceInTheCanvasOrGivesItUp() throws {
        // Configured sizes, so a missing screen's place is known.
        var sized = Self.sizedWall
        let waits = plan(sized, Self.pi4(unplugged: ["HDMI-A-2"]))
        let kept = try #require(waits.canvases.first)
        #expect(kept.size == PixelSize(width: 3875, height: 1080) && kept.members.map(\.shownAt) == [PixelSize(width: 1920, height: 1080), nil])
        #expect(waits.missing.map(\.description) == ["HDMI-A-2: not connected; wait: CRTC 4 kept for it, its place in canvas wall kept"])
        sized[1].whenMissing = .skip
        let skips = plan(sized, Self.pi4(unplugged: ["HDMI-A-2"]))
        let alone = try #require(skips.canvases.first)
        #expect(alone.members.map(\.output) == ["HDMI-A-1"] && alone.size == PixelSize(width: 1922, height: 1080))
        #expect(skips.missing.map(\.description) == ["HDMI-A-2: not connected; skip: nothing kept for it, canvas wall spans the outputs that are there"])
        // Without a configured size, a missing screen's place cannot be kept: said, and the canvas spans the rest.
        let unknown = plan(Self.wall, Self.pi4(unplugged: ["HDMI-A-2"]))
        #expect(unknown.problems == ["canvas wall: HDMI-A-2's place cannot be kept while it is missing: its size is not known (give canvas.width and canvas.height)"])
        #expect(unknown.canvases.first?.members.map(\.output) == ["HDMI-A-1"])
    }

    @Test func aCanvasThatCannotBeLaidOutShowsItsPicturesWhole() {
        // The displays' own sizes overlap at x = 1000: a problem, and each screen shows the pictures on its own.
        var overlapping = Self.wall
        overlapping[1].role = .canvas(CanvasMembership(name: "wall", x: 1000, y: 0))
        let overlap = plan(overlapping, Self.pi4())
        #expect(overlap.canvases.isEmpty && overlap.driven.map(\.showing) == [.own, .own])
        #expect(overlap.driven.map(\.content) == [.playlist("lobby"), .playlist("lobby")])
        #expect(overlap.problems == ["canvas wall is not spanned: HDMI-A-2 overlaps HDMI-A-1 by 210x680 mm with the sizes the displays report: correct x and y, or give canvas.width and canvas.height; its outputs show its pictures whole, each on its own"])
        // A display that reports no size and none configured.
        var connectors = Self.pi4()
        connectors[1].widthMillimetres = 0
        connectors[1].heightMillimetres = 0
        #expect(plan(Self.wall, connectors).problems.first?.contains("the size of HDMI-A-2's picture area is not known") == true)
    }

    @Test func aTurnedScreenInACanvasTakesItsMountedSize() throws {
        // Two portrait televisions: each 680 mm wide as mounted, 1080x1920 logical pixels.
        var portrait = Self.wall
        portrait[0].rotation = .quarter
        portrait[1].rotation = .threeQuarters
        portrait[1].role = .canvas(CanvasMembership(name: "wall", x: 700, y: 0))
        let canvas = try #require(plan(portrait, Self.pi4()).canvases.first)
        #expect(canvas.millimetres == MillimetreRect(x: 0, y: 0, width: 1380, height: 1210))
        #expect(canvas.members.map(\.shownAt) == [PixelSize(width: 1080, height: 1920), PixelSize(width: 1080, height: 1920)])
        #expect(canvas.members[1].region.x - canvas.members[0].region.maxX == 32)
    }

    // MARK: More outputs than CRTCs; determinism

    @Test func moreOutputsThanCRTCsLeavesTheLastListedWithout() {
        let connectors = ["DP-1", "DP-2", "DP-3"].map { Connector(name: $0, status: .connected, modes: [Self.fullHD], possibleCRTCs: [0, 1]) }
        let outputs = ["DP-3", "DP-1", "DP-2"].map { ConfiguredOutput(name: $0) }
        let two = plan(outputs, connectors, crtcs: 2)
        #expect(two.driven.map(\.connector) == ["DP-3", "DP-1"] && two.driven.map(\.crtc) == [0, 1])
        #expect(two.entries.map(\.state) == [.driven(two.driven[1]), .undriven(.noCRTCLeft), .driven(two.driven[0])])
        #expect(two.missing.isEmpty)
        #expect(two.lines[1] == "DP-2: every CRTC it can drive went to an output listed before it")
        // An encoder that can drive none of the card's CRTCs.
        let stranded = plan([ConfiguredOutput(name: "DP-1")], [Connector(name: "DP-1", status: .connected, modes: [Self.fullHD], possibleCRTCs: [5])], crtcs: 2)
        #expect(stranded.entries[0].state == .undriven(.noCRTC))
    }

    @Test func theSameInputsGiveTheSamePlan() {
        let outputs = Self.wall + [ConfiguredOutput(name: "DSI-1", content: .playlist("menu")),
                                   ConfiguredOutput(name: "DP-1", role: .mirror(of: "DSI-1"))]
        let first = plan(outputs, Self.pi4(unplugged: ["DSI-1"]))
        for _ in 0..<20 {
            let again = Self.pi4(unplugged: ["DSI-1"]).map { connector in
                var copy = connector
                copy.possibleCRTCs = Set(Array(connector.possibleCRTCs).shuffled())
                return copy
            }
            #expect(plan(outputs, again) == first)
        }
    }
}
