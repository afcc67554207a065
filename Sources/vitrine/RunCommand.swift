import ArgumentParser
import FoundationEssentials
import Logging
import VitrineConfig
import VitrineCore
import VitrineRuntime
import VitrineAssembly
import VitrineHTTP
import VitrineState

struct RunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run", abstract: "Run the kiosk: show the playlist full screen until SIGTERM.",
        discussion: """
            The configuration file seeds the state directory on first start; after that the stored \
            configuration (the last one pushed) wins, unless the file changed since it seeded.
            """)

    @Option(name: .shortAndLong, help: "The configuration file (YAML or JSON).")
    var config: String = "/etc/vitrine/vitrine.yaml"

    @Option(help: "Where the configuration, assets and API token are kept (default: $STATE_DIRECTORY, else /var/lib/vitrine).")
    var stateDir: String = RunCommand.defaultStateDirectory

    @Option(help: "Override output.display: auto, drm or headless.")
    var display: DisplayMode?

    @Option(help: "Override output.preview: where the headless backend keeps its preview PNG.")
    var preview: String?

    @OptionGroup var logging: LoggingOptions

    /// systemd's StateDirectory= sets $STATE_DIRECTORY (a colon-separated list; the first is ours).
    static var defaultStateDirectory: String {
        ProcessInfo.processInfo.environment["STATE_DIRECTORY"].flatMap { $0.split(separator: ":").first.map(String.init) }
            ?? "/var/lib/vitrine"
    }

    func run() throws {
        // Before any thread starts: SIGTERM and SIGINT must reach only the display
        // thread's signalfd, so that shutdown restores the display.
        EventLoop.blockSignals()
        let logger = logging.bootstrap()
        let display = display, preview = preview
        let assembly = try KioskAssembly(configFile: config, stateDirectory: stateDir, logger: logger, options: KioskAssemblyOptions(
            openDisplays: { configuration in
                do {
                    return try DisplaySelection.open(configuration, logger: logger)
                } catch is DisplayUnavailable {
                    throw ExitCode(1)  // logged, as critical, where it was found
                }
            },
            decoder: DecodingChoice.slideDecoder(logger: logger),
            pictures: DecodingChoice.pictureInspector(),
            adjust: { configuration in
                if let display { configuration.output.display = display }
                if let preview { configuration.output.preview = preview }
            }))
        try assembly.run()
    }
}

extension DisplayMode: ExpressibleByArgument {}
