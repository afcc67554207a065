import Testing
import VitrineCore

/// Which outputs one carousel drives: outputs with their own playlists apart,
/// a canvas as one group, mirrors with their source (even a mirror's mirror),
/// and a canvas that cannot be laid out falling apart into single outputs.
@Suite("Output groups")
struct OutputGroupTests {
    let plans = OutputPlanTests()
    typealias Fixture = OutputPlanTests

    @Test func withoutAnOutputsSectionThereIsOneGroup() {
        let groups = plans.plan(nil, Fixture.pi4()).groups
        #expect(groups.map(\.description) == ["HDMI-A-1 (the programme)"])
        #expect(groups[0].outputs.map(\.connector) == ["HDMI-A-1"] && groups[0].mirrors.isEmpty)
    }

    @Test func twoPlaylistsAreTwoGroupsAndAMirrorJoinsItsSource() {
        let outputs = [ConfiguredOutput(name: "DSI-1", role: .mirror(of: "HDMI-A-2")),
                       ConfiguredOutput(name: "HDMI-A-1", content: .playlist("lobby")),
                       ConfiguredOutput(name: "HDMI-A-2", content: .playlist("menu"))]
        let groups = plans.plan(outputs, Fixture.pi4()).groups
        // In the order of each group's first own output; the mirror listed first still joins its source.
        #expect(groups.map(\.description) == ["HDMI-A-1 (playlist lobby)", "HDMI-A-2 (playlist menu), mirrored on DSI-1"])
        #expect(groups.map(\.leader.connector) == ["HDMI-A-1", "HDMI-A-2"])
        #expect(groups[1].outputs.map(\.connector) == ["HDMI-A-2", "DSI-1"])
    }

    @Test func aMirrorOfAMirrorJoinsTheSameGroup() {
        let outputs = [ConfiguredOutput(name: "HDMI-A-1", content: .playlist("lobby")),
                       ConfiguredOutput(name: "DSI-1", role: .mirror(of: "HDMI-A-2")),
                       ConfiguredOutput(name: "HDMI-A-2", role: .mirror(of: "HDMI-A-1"))]
        let plan = plans.plan(outputs, Fixture.pi4())
        let groups = plan.groups
        #expect(groups.count == 1)
        #expect(groups[0].outputs.map(\.connector) == ["HDMI-A-1", "HDMI-A-2", "DSI-1"])
    }

    @Test func aCanvasIsOneGroupAcrossItsMembers() throws {
        let outputs = Fixture.wall + [ConfiguredOutput(name: "DSI-1", role: .mirror(of: "HDMI-A-2"))]
        let plan = plans.plan(outputs, Fixture.pi4())
        let groups = plan.groups
        #expect(groups.count == 1)
        guard case .canvas(let canvas, let members) = groups[0].layout else {
            Issue.record("a canvas group: \(groups[0].layout)")
            return
        }
        #expect(canvas.name == "wall" && canvas.size == PixelSize(width: 3875, height: 1080))
        #expect(members.map(\.connector) == ["HDMI-A-1", "HDMI-A-2"])
        #expect(groups[0].leader.connector == "HDMI-A-1" && groups[0].mirrors.map(\.connector) == ["DSI-1"])
        #expect(groups[0].description == "canvas wall 3875x1080 across HDMI-A-1, HDMI-A-2 (playlist lobby), mirrored on DSI-1")
    }

    @Test func aCanvasThatCannotBeLaidOutIsAGroupPerOutput() {
        var overlapping = Fixture.wall
        overlapping[1].role = .canvas(CanvasMembership(name: "wall", x: 1000, y: 0))
        let groups = plans.plan(overlapping, Fixture.pi4()).groups
        #expect(groups.map(\.description) == ["HDMI-A-1 (playlist lobby)", "HDMI-A-2 (playlist lobby)"])
    }

    @Test func aMissingSourceLeavesItsMirrorStandingInAlone() {
        let outputs = [ConfiguredOutput(name: "HDMI-A-1", content: .playlist("lobby")),
                       ConfiguredOutput(name: "HDMI-A-2", role: .mirror(of: "HDMI-A-1"))]
        let groups = plans.plan(outputs, Fixture.pi4(unplugged: ["HDMI-A-1"])).groups
        #expect(groups.map(\.description) == ["HDMI-A-2 (playlist lobby)"])
    }

    @Test func anOutputThatWaitsIsAGroupReadyForItsDisplay() throws {
        let outputs = [ConfiguredOutput(name: "HDMI-A-1", content: .playlist("lobby")),
                       ConfiguredOutput(name: "HDMI-A-2", mode: DisplayModeSpec(width: 1280, height: 720), content: .playlist("menu")),
                       ConfiguredOutput(name: "DSI-1", role: .mirror(of: "HDMI-A-1"))]
        let plan = plans.plan(outputs, Fixture.pi4(unplugged: ["HDMI-A-2", "DSI-1"]))
        // Each on its kept CRTC, in the mode it asks for (else the stand-in size).
        #expect(plan.waiting.map(\.connector) == ["HDMI-A-2", "DSI-1"])
        #expect(plan.waiting.map(\.crtc) == [4, 2])
        #expect(plan.waiting[0].mode.size == PixelSize(width: 1280, height: 720) && plan.waiting[0].content == .playlist("menu"))
        #expect(plan.waiting[1].mode == OutputPlan.waitingStandIn && plan.waiting[1].showing == .mirror(of: "HDMI-A-1"))
        // The driven group first (the kiosk's own), the mirror in it, the waiting playlist after.
        #expect(plan.groups.map(\.description) == ["HDMI-A-1 (playlist lobby), mirrored on DSI-1", "HDMI-A-2 (playlist menu)"])
        // With skip, nothing waits.
        var skipping = outputs
        skipping[1].whenMissing = .skip
        skipping[2].whenMissing = .skip
        #expect(plans.plan(skipping, Fixture.pi4(unplugged: ["HDMI-A-2", "DSI-1"])).waiting.isEmpty)
    }

    @Test func aCanvasScreenThatWaitsKeepsItsRegionInTheGroup() throws {
        let plan = plans.plan(Fixture.sizedWall, Fixture.pi4(unplugged: ["HDMI-A-2"]))
        guard case .canvas(let canvas, let members)? = plan.groups.first?.layout, plan.groups.count == 1 else {
            Issue.record("one canvas group: \(plan.groups)")
            return
        }
        #expect(canvas.size == PixelSize(width: 3875, height: 1080) && members.map(\.connector) == ["HDMI-A-1", "HDMI-A-2"])
        guard case .canvas(let placement) = members[1].showing else {
            Issue.record("the waiting screen shows its part: \(members[1].showing)")
            return
        }
        #expect(placement.region == PixelRect(x: 1954, y: 0, width: 1921, height: 1080))
    }
}
