import ArgumentParser
import Logging
import VitrineConfig
import VitrineRuntime
import VitrineCore

@main
struct Vitrine: ParsableCommand {
    static func main() {
        MemoryPolicy.configure()
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch {
            exit(withError: error)
        }
    }

    static let configuration = CommandConfiguration(
        commandName: "vitrine",
        abstract: "A touchscreen image-carousel kiosk that drives the display through KMS/DRM.",
        version: VitrineVersion.current,
        subcommands: [RunCommand.self, RenderCommand.self, CheckConfigCommand.self, ScheduleCommand.self, DisplaysCommand.self, TouchCommand.self, DoctorCommand.self, PushCommand.self,
                      RemoteCommand.self, ChannelCommand.self, BenchCommand.self, DecodeHelperCommand.self, UpdateCommand.self, SetupCommand.self])
}

/// Options every command that logs shares.
struct LoggingOptions: ParsableArguments {
    @Option(name: .long, help: "Least severe level to log: trace, debug, info, notice, warning, error, critical.")
    var logLevel: Logger.Level = .info

    func bootstrap() -> Logger {
        let level = logLevel
        LoggingSystem.bootstrap { LineLogHandler(label: $0, level: level) }
        return Logger(label: "vitrine")
    }
}

extension Logger.Level: @retroactive ExpressibleByArgument {}

/// Loads and validates the configuration for a command that logs: each problem
/// is one critical line naming the file and key path, then exit status 1.
func loadConfiguration(_ path: String, logger: Logger) throws -> KioskConfiguration {
    do {
        return try ConfigLoader.load(file: path)
    } catch {
        for line in error.description.split(separator: "\n") { logger.critical("invalid configuration: \(line)") }
        throw ExitCode(1)
    }
}
