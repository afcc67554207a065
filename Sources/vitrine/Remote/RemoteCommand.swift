import ArgumentParser
import FoundationEssentials
import VitrineConfig
import VitrineClient
import VitrineAPI
import VitrinePNG

/// `vitrine remote status|outputs|next|previous|pause|resume|goto N|screenshot|power [on|off]|override set|clear|show`;
/// each that addresses the screen takes `--output NAME` for one output group of several.
struct RemoteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remote",
        abstract: "Ask a running kiosk for its status, step or pause it, take a screenshot, or switch its screen off and on.",
        subcommands: [Status.self, Outputs.self, Next.self, Previous.self, Pause.self, Resume.self, GoTo.self, Screenshot.self, Power.self,
                      OverrideCommand.self])

    struct Status: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "status", abstract: "Print the kiosk's status as JSON.")
        @OptionGroup var remote: RemoteOptions
        @OptionGroup var output: OutputOption

        func run() throws {
            let client = try remote.client()
            let path = output.path("/api/v1/status")
            let reply = try waitFor { try await client.send(.GET, path) }
            print(String(decoding: try reply.decoded(JSONValue.self, from: path).encoded([.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]),
                         as: UTF8.self))
        }
    }

    struct Next: ControlSubcommand {
        static let configuration = CommandConfiguration(commandName: "next", abstract: "Page to the next slide.")
        @OptionGroup var remote: RemoteOptions
        @OptionGroup var output: OutputOption
        var command: ControlCommand { .next }
    }

    struct Previous: ControlSubcommand {
        static let configuration = CommandConfiguration(commandName: "previous", abstract: "Page to the previous slide.")
        @OptionGroup var remote: RemoteOptions
        @OptionGroup var output: OutputOption
        var command: ControlCommand { .previous }
    }

    struct Pause: ControlSubcommand {
        static let configuration = CommandConfiguration(commandName: "pause", abstract: "Stop the rotation until resume.")
        @OptionGroup var remote: RemoteOptions
        @OptionGroup var output: OutputOption
        var command: ControlCommand { .pause }
    }

    struct Resume: ControlSubcommand {
        static let configuration = CommandConfiguration(commandName: "resume", abstract: "Start the rotation again.")
        @OptionGroup var remote: RemoteOptions
        @OptionGroup var output: OutputOption
        var command: ControlCommand { .resume }
    }

    struct GoTo: ControlSubcommand {
        static let configuration = CommandConfiguration(commandName: "goto", abstract: "Show the slide with this index (from 0).")
        @Argument(help: "The slide index, counting from 0.")
        var slide: Int
        @OptionGroup var remote: RemoteOptions
        @OptionGroup var output: OutputOption
        var command: ControlCommand { .goTo(slide: slide) }
    }

    struct Screenshot: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "screenshot", abstract: "Save the frame on screen as a PNG.")
        // -o stays the file, as before; --output names the screen, as everywhere else.
        @Option(name: [.customShort("o"), .customLong("file")],
                help: "Where to save it: PNG, or binary PPM when it ends in .ppm (as `vitrine render` writes, to compare raw pixels).")
        var file = "screenshot.png"
        @OptionGroup var remote: RemoteOptions
        @OptionGroup var output: OutputOption

        func run() throws {
            let client = try remote.client()
            let path = output.path("/api/v1/screenshot")
            let reply = try waitFor { try await client.send(.GET, path) }
            let bytes = file.hasSuffix(".ppm") ? PPM.encode(try PNGCodec.decode(Array(reply.body))) : Array(reply.body)
            guard FileManager.default.createFile(atPath: file, contents: Data(bytes)) else {
                throw ValidationError("cannot write \(file)")
            }
            print("\(file): \(bytes.count) bytes")
        }
    }
}

extension RemoteCommand {
    struct Power: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "power",
            abstract: "Print whether the screen is lit, or switch it on or off (PUT /api/v1/power).",
            discussion: "Off keeps the display's mode, so on again is quick; a touch lights a dark screen for power.wakeOnTouch.")
        @Argument(help: "on or off; leave it out to print the screen's power.")
        var state: ScreenState?
        @OptionGroup var remote: RemoteOptions
        @OptionGroup var output: OutputOption

        enum ScreenState: String, ExpressibleByArgument, CaseIterable { case on, off }

        func run() throws {
            let client = try remote.client()
            let path = output.path("/api/v1/power")
            guard let state else {
                let reply = try waitFor { try await client.send(.GET, path) }
                let power = try reply.decoded(PowerStatus.self, from: path)
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
                print(String(decoding: try encoder.encode(power), as: UTF8.self))
                return
            }
            let json = Array(try JSONEncoder().encode(PowerRequest(state: state == .on ? .on : .off)))
            _ = try waitFor { try await client.send(.PUT, path, body: json, contentType: "application/json", expecting: [202]) }
            print("screen\(output.name.map { " of \($0)" } ?? "") \(state.rawValue): accepted")
        }
    }
}

/// A subcommand that sends one `POST /api/v1/control` command.
protocol ControlSubcommand: ParsableCommand {
    var remote: RemoteOptions { get }
    var output: OutputOption { get }
    var command: ControlCommand { get }
}

extension ControlSubcommand {
    func run() throws {
        let json = Array(try JSONEncoder().encode(command))
        let client = try remote.client()
        let path = output.path("/api/v1/control")
        _ = try waitFor { try await client.send(.POST, path, body: json, contentType: "application/json", expecting: [202]) }
        print("\(command.name.rawValue)\(output.name.map { " on \($0)" } ?? ""): accepted")
    }
}
