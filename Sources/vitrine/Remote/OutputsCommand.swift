import ArgumentParser
import FoundationEssentials
import VitrineConfig
import VitrineClient
import VitrineAPI

extension RemoteCommand {
    /// `vitrine remote outputs`: the kiosk's output groups (`GET /api/v1/outputs`).
    struct Outputs: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "outputs",
            abstract: "List the kiosk's output groups, each with its status; each name is a value for --output.",
            discussion: "A kiosk drives one output group per output with its own playlist (with its mirrors) or per canvas.")
        @Flag(help: "Print the answer as JSON rather than one line per output group.")
        var json = false
        @OptionGroup var remote: RemoteOptions

        func run() throws {
            let client = try remote.client()
            let reply = try waitFor { try await client.send(.GET, "/api/v1/outputs") }
            if json {
                print(String(decoding: try reply.decoded(JSONValue.self, from: "/api/v1/outputs")
                    .encoded([.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]), as: UTF8.self))
                return
            }
            for line in try reply.decoded(OutputsBody.self, from: "/api/v1/outputs").summaryLines { print(line) }
        }
    }
}
