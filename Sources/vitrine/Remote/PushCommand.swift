import ArgumentParser
import FoundationEssentials
import VitrineConfig
import VitrineClient
import VitrineAPI

/// `vitrine push CONFIG --to URL --token T [--output NAME]`.
struct PushCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "push", abstract: "Send a configuration and the pictures it names to a running kiosk.",
        discussion: """
            Local picture paths are uploaded as assets and replaced by their asset: references; URLs stay as they \
            are. The output and api sections stay behind: they belong to the kiosk's own file. Running it twice \
            sends nothing new. With --output, the file holds only slides, which become that output's own playlist \
            (its outputs entry's playlist in the kiosk's file); everything else the kiosk shows stays as it is.
            """)

    @Argument(help: "The configuration file (YAML or JSON).")
    var config: String

    @OptionGroup var remote: RemoteOptions

    @Option(help: "Apply only if the kiosk's configuration is still this version (If-Match).")
    var ifVersion: String?

    @OptionGroup var output: OutputOption

    func run() throws {
        let pusher = ConfigPusher(client: try remote.client())
        let configuration: KioskConfiguration
        do {
            configuration = try ConfigLoader.load(file: config)
        } catch {
            throw CommandFailure(error.description)
        }
        let output = self.output.name
        if output != nil {
            // Said here, before any picture is uploaded, as the kiosk would say it.
            let text = try? String(contentsOfFile: config, encoding: .utf8)
            let others = ((try? text.map { try ConfigLoader.compose($0) })??.sections ?? []).subtracting([PlaylistPush.key]).sorted()
            if !others.isEmpty { throw CommandFailure("\(config): \(PlaylistPush.onlySlides(changing: others))") }
        }
        let ifVersion = self.ifVersion
        let outcome: ConfigPusher.Outcome
        do {
            outcome = try waitFor { try await pusher.push(configuration, ifVersion: ifVersion, output: output) }
        } catch let error as ConfigPusher.UnreadablePicture {
            throw CommandFailure("\(config): \(error)")
        }
        for (path, id) in outcome.uploaded { print("uploaded \(path) as asset:\(id)") }
        if outcome.changed {
            let shown = output.map { "; \($0) shows its slides" } ?? ""
            print("configuration \(outcome.version) pushed (was \(outcome.previousVersion))\(shown); it shows from the next slide boundary")
        } else {
            print("configuration \(outcome.version) is already the kiosk's: nothing changed")
        }
        print("pictures: \(outcome.uploaded.count) uploaded, \(outcome.alreadyThere) already there")
    }
}

/// A failure to report as one line and exit status 1 (not a usage error).
struct CommandFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
