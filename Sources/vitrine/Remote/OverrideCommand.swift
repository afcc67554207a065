import ArgumentParser
import FoundationEssentials
import VitrineConfig
import VitrineCore
import VitrinePNG
import VitrineClient
import VitrineAPI
import VitrineWebP
import VitrineGIF
import VitrineHEIF

/// `vitrine remote override set|clear|show`: the emergency override
/// (`/api/v1/override`), which shows at once, above any schedule and with the
/// screen held on, until it ends or is cleared. `--output NAME` addresses one
/// output's own override, which shows there on top of the one for every output.
struct OverrideCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "override",
        abstract: "Show an emergency override at once, end it, or print it.",
        subcommands: [Set.self, Clear.self, Show.self])

    struct Set: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set",
            abstract: "Show one picture, or slides already on the kiosk, at once until the end given.",
            discussion: """
                --picture uploads a JPEG, PNG, WebP, GIF or HEIF with the request and shows it alone. --slide names a picture already on \
                the kiosk: asset:<sha256> of an uploaded one, or an absolute path on the kiosk (never a URL). \
                The end is --duration (30m, 90s; at most 10080m, 7 days) or --until (RFC 3339, 2026-11-23T18:00:00Z). \
                A new override replaces the current one; it survives a restart of the kiosk until it ends. \
                With --output NAME it shows on that output alone, over the override for every output, which shows there again when \
                it ends; without it, it shows on every output and ends each output's own.
                """)
        @Option(help: ArgumentHelp("A JPEG, PNG, WebP, GIF or HEIF file to upload and show.", valueName: "FILE"))
        var picture: String?
        @Option(name: .customLong("slide"), help: ArgumentHelp("A picture on the kiosk: asset:<sha256> or an absolute path (repeat for several).", valueName: "PATH"))
        var slides: [String] = []
        @Option(help: ArgumentHelp("How long it shows: 30m, 90s, 1.5m.", valueName: "D"))
        var duration: String?
        @Option(help: ArgumentHelp("When it ends, RFC 3339: 2026-11-23T18:00:00Z.", valueName: "T"))
        var until: String?
        @Option(help: ArgumentHelp("How long each of several slides stays (default: the configuration's interval).", valueName: "D"))
        var interval: String?
        @OptionGroup var output: OutputOption
        @OptionGroup var remote: RemoteOptions

        func validate() throws {
            guard (picture == nil) != slides.isEmpty else { throw ValidationError("give either --picture FILE or one or more --slide PATH") }
            guard (duration == nil) != (until == nil) else { throw ValidationError("give either --duration or --until") }
            if picture != nil, interval != nil { throw ValidationError("--interval is for several --slide pictures, not one --picture") }
        }

        func run() throws {
            let client = try remote.client()
            let reply: RemoteClient.Reply
            if let picture {
                guard let data = FileManager.default.contents(atPath: picture) else { throw ValidationError("cannot read \(picture)") }
                var query = URLComponents()
                query.queryItems = [duration.map { URLQueryItem(name: "duration", value: $0) }, until.map { URLQueryItem(name: "until", value: $0) },
                                    URLQueryItem(name: "name", value: lastComponentOfPath(picture)),
                                    output.name.map { URLQueryItem(name: "output", value: $0) }].compactMap { $0 }
                // The kiosk recognises the picture by its bytes; the type only says "a picture, not JSON".
                let bytes = [UInt8](data)
                let type = PNGCodec.hasSignature(bytes) ? "image/png" : WebPDecoder.hasSignature(bytes) ? "image/webp"
                    : GIFDecoder.hasSignature(bytes) ? "image/gif" : HEIFDecoder.hasSignature(bytes) ? "image/heif" : "image/jpeg"
                let path = "/api/v1/override?" + (query.percentEncodedQuery ?? "")
                reply = try waitFor { try await client.send(.POST, path, body: Array(data), contentType: type, expecting: [201]) }
            } else {
                let body = OverrideRequestBody(slides: slides, until: until, duration: duration, interval: interval)
                let json = try JSONText.encode(body, [.sortedKeys, .withoutEscapingSlashes])
                let path = output.path("/api/v1/override")
                reply = try waitFor { try await client.send(.POST, path, body: json, contentType: "application/json", expecting: [201]) }
            }
            let override = try reply.decoded(OverrideBody.self, from: "/api/v1/override")
            print("override \(override.id) shows\(output.name.map { " on \($0)" } ?? "") until \(override.until)")
        }
    }

    struct Clear: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "clear", abstract: "End the override now; the kiosk goes back to what it showed.",
            discussion: "Without --output, every override ends; with it, that output's own, and it shows the override for every output if there is one.")
        @OptionGroup var output: OutputOption
        @OptionGroup var remote: RemoteOptions

        func run() throws {
            guard try OverrideCommand.send(deleting: true, output: output, remote: remote) != nil else { return }
            print(output.name.map { "the override of \($0) cleared" } ?? "every override cleared")
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show", abstract: "Print the active override as JSON, or say that there is none.",
            discussion: "Without --output, the override for every output with each output's own under outputs; with it, what that output shows, and whose it is (scope).")
        @OptionGroup var output: OutputOption
        @OptionGroup var remote: RemoteOptions

        func run() throws {
            guard let reply = try OverrideCommand.send(deleting: false, output: output, remote: remote) else { return }
            let answer = try reply.decoded(OverrideAnswerBody.self, from: "/api/v1/override")
            print(String(decoding: try JSONText.encode(answer, [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]), as: UTF8.self))
        }
    }

    /// `GET` (or `DELETE`) `/api/v1/override` (one output's with `--output`): the reply when it is 2xx;
    /// nil, with the kiosk's sentence printed (which says whether the override for every output
    /// shows there), when no override is active. A 404 that lists the outputs there are is a wrong
    /// `--output`: an error, not "no override is active".
    static func send(deleting: Bool, output: OutputOption, remote: RemoteOptions) throws -> RemoteClient.Reply? {
        let client = try remote.client()
        let path = output.path("/api/v1/override")
        let (method, success) = deleting ? ("DELETE", 204) : ("GET", 200)
        let reply = try waitFor {
            try await deleting ? client.send(.DELETE, path, expecting: [success, 404]) : client.send(.GET, path, expecting: [success, 404])
        }
        if reply.status == success { return reply }
        if case .object(let body)? = reply.json, body["outputs"] != nil {
            throw UnknownOutput(description: "\(method) \(path): 404: \(reply.errorMessage ?? "no such output")")
        }
        print(reply.errorMessage ?? "no override is active")
        return nil
    }

    struct UnknownOutput: Error, CustomStringConvertible {
        let description: String
    }
}
