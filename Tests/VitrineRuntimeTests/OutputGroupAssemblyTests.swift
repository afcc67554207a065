import Logging
import Testing
import VitrineConfig
import VitrineCore
@testable import VitrineRuntime

/// Which screens show when some outputs of a plan cannot be opened: the rest do.
@Suite("Output groups from the outputs that open")
struct OutputGroupAssemblyTests {
    /// A television with a mirror on a portrait panel, and a canvas across two more screens.
    static let yaml = """
        slides: [a.jpg]
        output: {display: headless, width: 64, height: 48}
        outputs:
          - {name: HDMI-A-1, mode: 64x48}
          - {name: DSI-1, mirror: HDMI-A-1, rotation: 90, mode: 40x30}
          - {name: HDMI-A-2, mode: 64x48, canvas: {name: wall, x: 0, y: 0, width: 100, height: 75}}
          - {name: DP-1, mode: 64x48, canvas: {name: wall, x: 110, y: 0, width: 100, height: 75}}
        """

    /// The displays of the plan, each output headless at its mode unless it is in `failing`.
    static func open(failing: Set<String>) throws -> [OutputDisplay] {
        let configuration = try ConfigLoader.parse(yaml)
        let layout = try #require(configuration.outputs)
        let connectors = HeadlessOutputs.connectors(for: layout, size: configuration.outputSize)
        let plan = OutputPlan(layout: layout, single: configuration.singleOutput, connectors: connectors, crtcCount: connectors.count)
        let logger = Logger(label: "test")
        return try OutputGroupAssembly.displays(for: plan, connectors: connectors, logger: logger) { output in
            if failing.contains(output.connector) { throw LeaseRefused(connector: output.connector) }
            return HeadlessDisplay(size: output.mode.size, previewPath: nil, logger: logger)
        }
    }

    struct LeaseRefused: Error, CustomStringConvertible {
        var connector: String
        var description: String { "the lease of \(connector) was refused" }
    }

    @Test func everythingOpens() throws {
        let groups = try Self.open(failing: [])
        #expect(groups.map(\.connectors) == [["HDMI-A-1", "DSI-1"], ["HDMI-A-2", "DP-1"]])
        #expect(groups.map(\.shown.output) == ["HDMI-A-1", "HDMI-A-2"])
        #expect(groups[0].display is MirroredDisplay && groups[1].display is SpannedDisplay)
        #expect(groups[0].display.outputSize == PixelSize(width: 64, height: 48), "the source's picture")
    }

    @Test func aSourceThatCannotBeOpenedIsStoodInForByItsMirror() throws {
        let groups = try Self.open(failing: ["HDMI-A-1"])
        #expect(groups.map(\.connectors) == [["DSI-1"], ["HDMI-A-2", "DP-1"]])
        let mirrored = try #require(groups[0].display as? MirroredDisplay)
        // The panel, turned a quarter, shows the group's picture upright at its own size.
        #expect(mirrored.outputSize == PixelSize(width: 30, height: 40))
        #expect(groups[0].shown.drawsUpright && groups[0].shown.output == "HDMI-A-1", "still the television's playlist")
    }

    @Test func aGroupWithNothingToShowOnIsLeftOutAndTheOthersShow() throws {
        let groups = try Self.open(failing: ["HDMI-A-1", "DSI-1", "DP-1"])
        #expect(groups.map(\.connectors) == [["HDMI-A-2"]], "the canvas on the screen it has left")
        // The canvas keeps its whole picture (two 64-pixel screens with 10 of 100 mm between them); HDMI-A-2 shows its part.
        #expect(groups[0].display is SpannedDisplay && groups[0].display.outputSize == PixelSize(width: 134, height: 48))
    }

    @Test func noGroupAtAllIsAnErrorNamingEach() throws {
        #expect {
            try Self.open(failing: ["HDMI-A-1", "DSI-1", "HDMI-A-2", "DP-1"])
        } throws: { error in
            let description = "\(error)"
            return error is OutputGroupAssembly.NoOutputGroup && description.contains("the lease of HDMI-A-1 was refused")
                && description.contains("no screen of canvas wall can be shown")
        }
    }
}
