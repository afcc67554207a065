import ArgumentParser
import VitrineDRM

struct DisplaysCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "displays", abstract: "List DRM cards, their connectors and status, and the modes they offer.")

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
                print("\(path)  driver \(card.driver)")
                for connector in try card.connectors() {
                    let size = connector.widthMillimetres > 0 ? "  \(connector.widthMillimetres)x\(connector.heightMillimetres) mm" : ""
                    print("  \(connector.name)  \(connector.status.rawValue)\(size)")
                    if !connector.modes.isEmpty {
                        let modes = connector.modes.map { $0.description + ($0.isPreferred ? "*" : "") }
                        print("    modes: " + modes.joined(separator: " "))
                    }
                }
            } catch {
                print("\(path)  \(error)")
            }
        }
    }
}
