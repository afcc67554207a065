import ArgumentParser
import Foundation
import Logging
import VitrineConfig
import VitrineCore
import VitrineRuntime

struct RunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run", abstract: "Run the kiosk: show the playlist full screen until SIGTERM.")

    @Option(name: .shortAndLong, help: "The configuration file (YAML or JSON).")
    var config: String = "/etc/vitrine/vitrine.yaml"

    @Option(help: "Override output.display: auto, drm or headless.")
    var display: DisplayMode?

    @Option(help: "Override output.preview: where the headless backend keeps its preview PNG.")
    var preview: String?

    @OptionGroup var logging: LoggingOptions

    func run() throws {
        // Before any thread starts: SIGTERM and SIGINT must reach only the display
        // thread's signalfd, so that shutdown restores the display.
        EventLoop.blockSignals()
        let logger = logging.bootstrap()
        var configuration = try loadConfiguration(config, logger: logger)
        if let display { configuration.output.display = display }
        if let preview { configuration.output.preview = preview }
        for issue in ConfigLoader.fileIssues(in: configuration) {
            let outcome = configuration.onImageError == .skip ? "that slide will be skipped" : "that slide will show the placeholder"
            logger.warning("\(config): \(issue); \(issue.path == "placeholder" ? "the background colour shows instead" : outcome)")
        }
        let backend = try DisplaySelection.open(configuration, logger: logger)
        let kiosk = try Kiosk(configuration: configuration, display: backend, logger: logger)
        try kiosk.run()
    }
}

extension DisplayMode: ExpressibleByArgument {}
