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
        let examples = try blocks("yaml", after: "Keys").filter { $0.contains("\noutputs:") && !$0.contains("touch:") }
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

    /// The touch example binds the monitor's touch shown in `vitrine touch list`'s
    /// printout to the output the printout says, for the reason it says.
    @Test func theTouchExampleBindsAsTheListingSays() throws {
        let examples = try blocks("yaml", after: "Keys").filter { $0.contains("\noutputs:") && $0.contains("touch:") }
        #expect(examples.count == 1)
        let c = try ConfigLoader.parse(try #require(examples.first), baseDirectory: "/etc/vitrine")
        let layout = try #require(c.outputs)
        #expect(layout.outputs.map(\.touch) == [[InputDevicePattern(physicalPathPrefix: "usb-0000:01:00.0-1.1")],
                                                [InputDevicePattern(physicalPathPrefix: "usb-0000:01:00.0-1.2")], []])
        let text = try String(contentsOfFile: repositoryRoot + "/docs/configuration.md", encoding: .utf8)
        let start = try #require(text.range(of: "```\noutputs (/dev/dri/card1): "))
        let end = try #require(text.range(of: "\n```", range: start.upperBound..<text.endIndex))
        let printed = text[start.upperBound..<end.lowerBound].split(separator: "\n").map(String.init)
        // The device as that listing describes it: eGalax 0eef:0001, 0...4095 without a resolution, on the second port.
        let device = InputDeviceDescription(
            name: "eGalax Inc. eGalaxTouch EXC3000", identity: InputDeviceIdentity(bus: InputBus.usb, vendor: 0x0eef, product: 0x0001),
            physicalPath: "usb-0000:01:00.0-1.2/input0", properties: [EvdevCode.propertyDirect],
            codes: [EvdevCode.absolute: [EvdevCode.absMTSlot, EvdevCode.absMTPositionX, EvdevCode.absMTPositionY]],
            axes: [EvdevCode.absMTPositionX: AxisRange(minimum: 0, maximum: 4095), EvdevCode.absMTPositionY: AxisRange(minimum: 0, maximum: 4095)])
        #expect(printed[2] == "  uses it as \(TouchDeviceSelection().decide(device).kind!.rawValue): \(TouchDeviceSelection().decide(device).reason)")
        #expect(printed[4] == "  bus \(device.identity!.busName), phys \(device.physicalPath!)")
        var outputs = layout.outputs.map { TouchOutputBinding.Output(name: $0.name, touch: $0.touch) }
        outputs[0].size = MillimetreSize(width: 527, height: 296)
        outputs[1].size = MillimetreSize(width: 527, height: 296)
        #expect(printed[0] == "HDMI-A-1 527x296 mm, HDMI-A-2 527x296 mm, DSI-1 (no size reported)")
        #expect(printed[1] == "/dev/input/event3  \"\(device.name)\" [\(device.identity!)]")
        let assignment = TouchOutputBinding(devices: [TouchOutputBinding.Device(device, kind: .multitouchB)], outputs: outputs).assignments[0]
        #expect(printed[5] == "  output: \(assignment.output!): \(assignment.reason)")
    }
}
