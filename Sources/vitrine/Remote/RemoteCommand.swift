import ArgumentParser
import Foundation
import VitrineServer

/// `vitrine remote status|next|previous|pause|resume|goto N|screenshot`.
struct RemoteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remote", abstract: "Ask a running kiosk for its status, step or pause it, or take a screenshot.",
        subcommands: [Status.self, Next.self, Previous.self, Pause.self, Resume.self, GoTo.self, Screenshot.self])

    struct Status: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print the kiosk's status as JSON.")
        @OptionGroup var remote: RemoteOptions

        func run() throws {
            let client = try remote.client()
            let reply = try waitFor { try await client.send(.GET, "/api/v1/status") }
            let data = try JSONSerialization.data(withJSONObject: reply.json, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
            print(String(decoding: data, as: UTF8.self))
        }
    }

    struct Next: ControlCommand {
        static let configuration = CommandConfiguration(abstract: "Page to the next slide.")
        @OptionGroup var remote: RemoteOptions
        var body: [String: Any] { ["command": "next"] }
    }

    struct Previous: ControlCommand {
        static let configuration = CommandConfiguration(abstract: "Page to the previous slide.")
        @OptionGroup var remote: RemoteOptions
        var body: [String: Any] { ["command": "previous"] }
    }

    struct Pause: ControlCommand {
        static let configuration = CommandConfiguration(abstract: "Stop the rotation until resume.")
        @OptionGroup var remote: RemoteOptions
        var body: [String: Any] { ["command": "pause"] }
    }

    struct Resume: ControlCommand {
        static let configuration = CommandConfiguration(abstract: "Start the rotation again.")
        @OptionGroup var remote: RemoteOptions
        var body: [String: Any] { ["command": "resume"] }
    }

    struct GoTo: ControlCommand {
        static let configuration = CommandConfiguration(commandName: "goto", abstract: "Show the slide with this index (from 0).")
        @Argument(help: "The slide index, counting from 0.")
        var slide: Int
        @OptionGroup var remote: RemoteOptions
        var body: [String: Any] { ["command": "goto", "slide": slide] }
    }

    struct Screenshot: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Save the frame on screen as a PNG.")
        @Option(name: .shortAndLong, help: "Where to save it.")
        var output = "screenshot.png"
        @OptionGroup var remote: RemoteOptions

        func run() throws {
            let client = try remote.client()
            let reply = try waitFor { try await client.send(.GET, "/api/v1/screenshot") }
            guard FileManager.default.createFile(atPath: output, contents: Data(reply.body)) else {
                throw ValidationError("cannot write \(output)")
            }
            print("\(output): \(reply.body.count) bytes")
        }
    }
}

/// One `POST /api/v1/control` command.
protocol ControlCommand: ParsableCommand {
    var remote: RemoteOptions { get }
    var body: [String: Any] { get }
}

extension ControlCommand {
    func run() throws {
        let json = Array(try JSONSerialization.data(withJSONObject: body))
        let client = try remote.client()
        _ = try waitFor { try await client.send(.POST, "/api/v1/control", body: json, contentType: "application/json", expecting: [202]) }
        print("\(body["command"] ?? ""): accepted")
    }
}
