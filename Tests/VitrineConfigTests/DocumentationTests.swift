import Foundation
import Testing
import VitrineConfig
import VitrineCore

/// docs/configuration.md's complete example must stay a valid configuration,
/// and its JSON version must say the same thing.
@Suite("docs/configuration.md")
struct DocumentationTests {
    /// The fenced blocks of `language` after the heading `heading`.
    func blocks(_ language: String, after heading: String) throws -> [String] {
        let text = try String(contentsOfFile: repositoryRoot + "/docs/configuration.md", encoding: .utf8)
        let section = try #require(text.range(of: "\n## \(heading)\n"))
        var blocks: [String] = []
        var current: [Substring]?
        for line in text[section.upperBound...].split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("## ") { break }
            if current == nil, line == "```\(language)" {
                current = []
            } else if current != nil, line == "```" {
                blocks.append(current!.joined(separator: "\n"))
                current = nil
            } else {
                current?.append(line)
            }
        }
        return blocks
    }

    @Test func theCompleteExampleIsValidAndItsJSONEqualsIt() throws {
        let yaml = try #require(try blocks("yaml", after: "Complete example").first)
        let json = try #require(try blocks("json", after: "Complete example").first)
        let fromYAML = try ConfigLoader.parse(yaml, baseDirectory: "/etc/vitrine")
        let fromJSON = try ConfigLoader.parse(json, baseDirectory: "/etc/vitrine")
        #expect(fromJSON == fromYAML)
        #expect(fromYAML.slides.count == 4)
        #expect(fromYAML.interval == .seconds(8))
        #expect(fromYAML.slides[3].duration == .seconds(90))
        #expect(fromYAML.background == RGBAColor(red: 0x10, green: 0x14, blue: 0x18))
        #expect(fromYAML.resolve(fromYAML.slides[0].path) == "/etc/vitrine/images/welcome.jpg")
    }

    @Test func theQuotingExampleFailsAsDocumented() throws {
        let yaml = try #require(try blocks("yaml", after: "Colours").first)
        let wrong = try #require(yaml.split(separator: "\n").first)
        #expect(issues(String(wrong)) == [
            "background: must be a colour \"#RRGGBB\" or \"#RRGGBBAA\", found nothing (null) (quote the colour: an unquoted # starts a YAML comment)",
        ])
        #expect(try ConfigLoader.parse(String(yaml.split(separator: "\n")[1])).background
            == RGBAColor(red: 0x10, green: 0x14, blue: 0x18))
    }

    /// The `outputs` examples are valid, and the plan `vitrine displays --config` is
    /// shown printing for the canvas example is the plan's, on a Raspberry Pi 4's
    /// connectors (as OutputPlanTests has them) with HDMI-A-2 unplugged.
    @Test func theOutputsExamplesAreValidAndThePlanShownIsThePlans() throws {
        let examples = try blocks("yaml", after: "Keys").filter { $0.contains("\noutputs:") }
        #expect(examples.count == 2)
        let configurations = try examples.map { try ConfigLoader.parse($0, baseDirectory: "/etc/vitrine") }
        #expect(configurations.map { $0.outputs?.outputs.count } == [3, 3])
        #expect(configurations[0].outputs?.outputs[2].role == .mirror(of: "HDMI-A-1"))
        let text = try String(contentsOfFile: repositoryRoot + "/docs/configuration.md", encoding: .utf8)
        let start = try #require(text.range(of: "```\n  plan for /etc/vitrine/vitrine.yaml"))
        let end = try #require(text.range(of: "\n```", range: start.upperBound..<text.endIndex))
        let printed = "  plan for /etc/vitrine/vitrine.yaml" + text[start.upperBound..<end.lowerBound]
        let tv = [OutputMode(width: 1920, height: 1080, refreshMillihertz: 60_000, isPreferred: true)]
        let connectors = [
            OutputPlan.Connector(name: "HDMI-A-1", status: .connected, widthMillimetres: 1210, heightMillimetres: 680, modes: tv,
                                 possibleCRTCs: [3], currentCRTC: 3),
            OutputPlan.Connector(name: "HDMI-A-2", status: .disconnected, modes: [], possibleCRTCs: [4]),
            OutputPlan.Connector(name: "DSI-1", status: .connected, widthMillimetres: 155, heightMillimetres: 86,
                                 modes: [OutputMode(width: 800, height: 480, refreshMillihertz: 60_000, isPreferred: true)], possibleCRTCs: [2]),
            OutputPlan.Connector(name: "Writeback-1", status: .connected, modes: [], possibleCRTCs: [0]),
        ]
        let plan = OutputPlan(layout: configurations[1].outputs, single: configurations[1].singleOutput, connectors: connectors, crtcCount: 6)
        let lines = printed.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(lines == ["plan for /etc/vitrine/vitrine.yaml (3 outputs):"] + plan.lines)
    }
}
