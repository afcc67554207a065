import Logging
import Testing
import VitrineConfig
import VitrineCore
@testable import VitrineAssembly
@testable import VitrineHTTP
@testable import VitrineRuntime

/// Each output group is one value, built in one place: its role, name,
/// connectors, loop and counters stay together, in group order.
@Suite("Output groups: one value each, built in one place")
struct OutputGroupAssemblyTests {
    private let logger = Logger(label: "test")

    private func headless(_ name: String) -> OutputDisplay {
        let display = HeadlessDisplay(size: PixelSize(width: 16, height: 12), previewPath: nil, logger: logger)
        return OutputDisplay(display: display, shown: OutputShown(output: name), connectors: [name])
    }

    @Test("the first group is the primary; each other one beats a heartbeat of its own; every part stays with its group")
    func rolesNamesAndParts() throws {
        let configuration = try ConfigLoader.parse("""
            slides: [{path: "#ff0000"}]
            outputs:
              - {name: HDMI-A-1}
              - {name: HDMI-A-2}
              - {name: DP-1}
            """)
        let displays = KioskDisplays(groups: ["HDMI-A-1", "HDMI-A-2", "DP-1"].map(headless))
        let groups = try OutputGroup.assemble(displays, configuration: configuration, version: "v1", decoder: InProcessSlideDecoder(),
                                              logger: logger)
        #expect(groups.map(\.name) == ["HDMI-A-1", "HDMI-A-2", "DP-1"])
        #expect(groups.map(\.output.connectors) == [["HDMI-A-1"], ["HDMI-A-2"], ["DP-1"]])
        guard case .primary = groups[0].role else { Issue.record("the first group is not the primary"); return }
        var heartbeats: [String] = []
        for group in groups.dropFirst() {
            guard case .companion(let heartbeat) = group.role else { Issue.record("\(group.name ?? "") is not a companion"); continue }
            heartbeats.append(heartbeat.name)
        }
        #expect(heartbeats == ["HDMI-A-2", "DP-1"])
        // The counters and the API's link carry each group's own loop, under its name.
        #expect(groups.map(\.metrics.output) == ["HDMI-A-1", "HDMI-A-2", "DP-1"])
        for group in groups {
            #expect(group.metrics.metrics === group.kiosk.metrics)
            #expect(group.link.control === group.kiosk.control)
            #expect(group.link.connectors == group.output.connectors)
        }
        // A companion's TV is the one on its own connector's adapter: a headless display has no connector, so none.
        #expect(groups.dropFirst().allSatisfy { $0.television == nil })
    }

    @Test("a single output without outputs has no name, as before there were groups")
    func singleOutputUnnamed() throws {
        let configuration = try ConfigLoader.parse("slides: [{path: \"#00ff00\"}]")
        let groups = try OutputGroup.assemble(KioskDisplays(groups: [headless("HDMI-A-1")]), configuration: configuration, version: "v1",
                                              decoder: InProcessSlideDecoder(), logger: logger)
        #expect(groups.count == 1)
        #expect(groups[0].name == nil)
        #expect(groups[0].metrics.output == nil)
    }
}
