import ArgumentParser
import VitrineConfig
import VitrineCore
import VitrineDRM

struct DisplaysCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "displays",
        abstract: "List DRM cards, their connectors and status, the modes they offer, and the CRTC each would get.",
        discussion: """
            With --config, each card's listing ends with the configuration's output plan: what each connector \
            would show, on which CRTC and in which mode, the configured outputs that are missing and what follows, \
            and what this build leaves undriven. Exit status: 0; 1 when no card can be read, or the configuration \
            has problems (one per line on standard error as FILE: KEY.PATH: PROBLEM).
            """)

    @Option(help: "The directory holding the card devices.") var directory = "/dev/dri"

    @Option(name: .shortAndLong, help: "A configuration file (YAML or JSON) whose outputs to plan on each card.")
    var config: String?

    func run() throws {
        var configuration: KioskConfiguration?
        if let config {
            do {
                configuration = try ConfigLoader.load(file: config)
            } catch {
                for issue in error.issues { writeToStandardError("\(config): \(issue)\n") }
                throw ExitCode(1)
            }
        }
        let cards = DRMCard.cardPaths(in: directory)
        guard !cards.isEmpty else {
            print(DRMError.noCard(directory: directory).description)
            throw ExitCode(1)
        }
        for path in cards {
            do {
                let card = try DRMCard(path: path)
                let outputs = try card.outputs()
                print("\(path)  driver \(card.driver)  \(outputs.crtcIDs.count) CRTCs")
                let assignment = outputs.assignment
                for output in outputs.outputs {
                    let connector = output.connector
                    let size = connector.widthMillimetres > 0 ? "  \(connector.widthMillimetres)x\(connector.heightMillimetres) mm" : ""
                    print("  \(connector.name)  \(connector.status.rawValue)\(size)  \(crtcText(output, assignment, outputs))")
                    if !connector.modes.isEmpty {
                        let modes = connector.modes.map { $0.description + ($0.isPreferred ? "*" : "") }
                        print("    modes: " + modes.joined(separator: " "))
                    }
                }
                if let configuration, let config {
                    let section = configuration.outputs == nil ? "no outputs section: one output" : "\(configuration.outputs!.outputs.count) outputs"
                    print("  plan for \(config) (\(section)):")
                    for line in outputs.plan(configuration.outputs, single: configuration.singleOutput).lines { print("    " + line) }
                } else if let single = outputs.singleOutput {
                    let crtc = single.crtc.map { "CRTC \($0)" } ?? "no CRTC"
                    print("  one output (no `outputs` section, no output.connector): \(single.connector.name) on \(crtc)")
                }
            } catch {
                print("\(path)  \(error)")
            }
        }
    }

    /// The CRTC the assignment gives a connector (by index, with its object ID), or why it gets none.
    private func crtcText(_ output: DRMOutputs.Output, _ assignment: CRTCAssignment, _ outputs: DRMOutputs) -> String {
        guard output.connector.status == .connected else { return "no CRTC (not connected)" }
        guard let index = assignment.crtc(for: output.connector.name) else {
            return output.possibleCRTCMask == 0 ? "no CRTC (its encoders can drive none)" : "no CRTC (every one it can drive is taken)"
        }
        let kept = output.currentCRTC == index ? ", as now" : ""
        return "CRTC \(index) (id \(outputs.crtcIDs[index])\(kept))"
    }
}
