import ArgumentParser
import Dispatch
import FoundationEssentials
import Logging
import VitrineConfig
import VitrineCore
import VitrineRuntime
import VitrineServer

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
        let seed = Result { () throws(ConfigError) in try ConfigLoader.load(file: config) }
        let store = try StateStore(directory: stateDir, seedFile: config, seed: seed, logger: logger)
        if case .failure(let error) = seed {
            logger.error("\(error)")
            logger.warning("\(config) is not valid: showing the stored configuration instead")
        }
        logger.info("configuration \(store.current.version): \(store.origin.rawValue)", metadata: ["state": "\(stateDir)"])

        let events = EventHub()
        // Proof of play: every slide shown, logged on a queue of its own (and
        // uploaded to plays.upload, or to the URL the channel names); plays, like
        // api, comes from the local file.
        let local = store.current.configuration
        let plays: ProofOfPlay?
        do {
            plays = try ProofOfPlay(stateDirectory: stateDir, settings: local.plays,
                                    device: local.channel?.device ?? ProofOfPlay.hostName(), logger: logger,
                                    policy: local.api.outbound)
        } catch {
            // The screen matters more than its log: show the playlist anyway.
            logger.error("proof of play is off: \(error)")
            plays = nil
        }
        let settings = store.current.configuration.api
        let fetcher = URLImageFetcher(store: store, settings: settings, maxPixels: store.current.configuration.decode.maxPixels,
                                      events: events, logger: logger)
        var configuration = RemoteKiosk.initialConfiguration(store, fetcher: fetcher)
        if let display { configuration.output.display = display }
        if let preview { configuration.output.preview = preview }
        for issue in ConfigLoader.fileIssues(in: configuration) {
            let outcome = configuration.onImageError == .skip ? "that slide will be skipped" : "that slide will show the placeholder"
            logger.warning("\(issue); \(issue.path == "placeholder" ? "the background colour shows instead" : outcome)")
        }
        let backend = try DisplaySelection.open(configuration, logger: logger)
        let kiosk = try Kiosk(configuration: configuration, version: store.current.version, display: backend, logger: logger)
        // The channel section, like api, comes from the local file whichever configuration shows.
        let channel = store.current.configuration.channel.map { ChannelFollower(settings: $0, store: store, logger: logger) }
        // Plays go to the URL the channel names (unless the local file names its
        // own): the one recorded with the version applied before, then each new one's.
        if let channel {
            if let recorded = channel.recordedPlaysUpload { plays?.useChannelUpload(recorded) }
            channel.onPlaysUpload { url in plays?.useChannelUpload(url) }
        }
        // The TV follows the screen over HDMI-CEC; like api, read once at start.
        let television = CECTelevision(setting: configuration.power.cec,
                                       drmConnector: (backend as? DRMDisplay)?.connectorReference, logger: logger)
        television?.start()
        let remote = RemoteKiosk(store: store, fetcher: fetcher, control: kiosk.control, metrics: kiosk.metrics, events: events,
                                 logger: logger, channel: channel, television: television, plays: plays)
        kiosk.onEvent = { event in
            if case .screenChanged(let lit) = event { television?.screenChanged(lit: lit) }
            plays?.handle(event)
            if let event = ServerEvent(event) { events.publish(event) }
        }

        let fetching = Task { await fetcher.run() }
        let following = Task { await channel?.run() }
        let uploading = Task { await plays?.run() }
        if let uploader = plays?.uploader { logger.info("uploading plays to \(uploader.url)") }
        if let channel { logger.info("following the channel \(channel.settings.url)") }
        var server: APIServerRunner?
        if case .address = settings.listen {
            let token = try store.apiToken(configured: settings.token)
            let listen = settings.listen
            do {
                server = try remote.server(at: listen, token: token, tls: settings.tls) { port in
                    logger.notice("API listening", metadata: ["address": "\(listen)", "port": "\(port)", "tls": "\(settings.tls != nil)"])
                }
            } catch {
                logger.error("the API cannot start: \(error); the kiosk carries on without it")
            }
            if let server {
                Task {
                    do {
                        try await server.run()
                    } catch {
                        // The screen matters more than the API: keep showing the playlist.
                        logger.error("the API server stopped: \(error); the kiosk carries on without it")
                    }
                }
            }
        } else {
            logger.info("API off (api.listen: off)")
        }
        defer {
            television?.stop()
            fetching.cancel()
            following.cancel()
            uploading.cancel()
            plays?.stop()
            if let server {
                // Let open requests finish and event streams end, for up to two seconds.
                let stopped = DispatchSemaphore(value: 0)
                Task {
                    await server.shutdown()
                    stopped.signal()
                }
                _ = stopped.wait(timeout: .now() + 2)
            }
        }
        try kiosk.run()
    }
}

extension DisplayMode: ExpressibleByArgument {}
