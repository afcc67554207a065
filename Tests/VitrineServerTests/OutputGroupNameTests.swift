import Logging
import Testing
import VitrineConfig
import VitrineCore
@testable import VitrineRuntime
@testable import VitrineAssembly
@testable import VitrineHTTP

/// A group keeps its leading output's name when a mirror stands in for that
/// output (it could not be opened): the API, its events, plays, metrics and
/// the override file it keeps stay under one name, whatever opened this time.
@Suite("Output groups: one name, whatever opened")
struct OutputGroupNameTests {
    @Test func aGroupShownByItsMirrorKeepsItsLeadersName() throws {
        let headless = HeadlessDisplay(size: PixelSize(width: 8, height: 6), previewPath: nil, logger: Logger(label: "test"))
        // HDMI-A-1 could not be opened; its mirror DSI-1 shows the group (`OutputGroupAssembly`).
        let standIn = OutputDisplay(display: headless, shown: OutputShown(output: "HDMI-A-1", drawsUpright: true), connectors: ["DSI-1"])
        let other = OutputDisplay(display: headless, shown: OutputShown(output: "HDMI-A-2"), connectors: ["HDMI-A-2"])
        let displays = KioskDisplays(groups: [other, standIn])
        let configuration = try ConfigLoader.parse("""
            slides: [a.jpg]
            outputs:
              - {name: HDMI-A-2}
              - {name: HDMI-A-1}
              - {name: DSI-1, mirror: HDMI-A-1}
            """)
        #expect(OutputGroup.names(displays, configuration: configuration) == ["HDMI-A-2", "HDMI-A-1"])

        let group = OutputGroupLink(name: "HDMI-A-1", connectors: ["DSI-1"], loop: FakeDisplayLoop())
        #expect(group.name == "HDMI-A-1")
        #expect(group.answers(to: "HDMI-A-1") && group.answers(to: "DSI-1") && !group.answers(to: "HDMI-A-2"))
        let groups = [OutputGroupLink(connectors: ["HDMI-A-2"], loop: FakeDisplayLoop()), group]
        #expect(OutputAddress.knownNames(groups) == ["HDMI-A-2", "HDMI-A-1", "DSI-1"])
        // Without a name, the first connector, as before.
        #expect(groups[0].name == "HDMI-A-2")
    }
}
