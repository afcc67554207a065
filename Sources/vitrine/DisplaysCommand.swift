import ArgumentParser
import VitrineCore
import VitrineDRM

struct DisplaysCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "displays",
        abstract: "List DRM cards, their connectors and status, the modes they offer, and the CRTC each would get.")

    @Option(help: "The directory holding the card devices.") var directory = "/dev/dri"

    func run() throws {
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
                if let single = outputs.singleOutput {
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
