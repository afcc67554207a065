import Dispatch
import FoundationEssentials
import Logging
import VitrineChannel
import VitrineConfig
import VitrineCore
import VitrineRuntime
import VitrineAPI
import VitrineChannelFollower
import VitrineHTTP
import VitrinePlays
import VitrineState
import VitrineURLImages

/// The composition root: the one place that builds a kiosk's object graph
/// from its configuration file and state directory.
///
/// It makes, in this order, the state store (the file seeds it), the event hub,
/// proof of play, the URL fetcher, the displays (through `KioskAssemblyOptions.openDisplays`),
/// the kiosk (display thread) and one more loop per other output group, the channel follower, the HDMI-CEC television and
/// the remote side the API serves, and joins every group's events to the event
/// stream, the play log and its TV, each under the group's name (`outputNames`). `vitrine run` (and through it the image
/// tests) and the integration tests' harnesses all use it, so their wirings
/// cannot drift apart.
///
/// The display thread is the caller's: `runDisplay()` blocks on it. The
/// background work (downloads, channel polling, play uploads, the API server)
/// starts with `startServices()`, which tests leave out to drive that work by hand.
public final class KioskAssembly {
    public let store: StateStore
    public let remote: RemoteKiosk
    public let plays: ProofOfPlay?
    public let television: CECTelevision?
    /// The TVs of the other output groups (`power.cec: auto`, on their own connectors' adapters).
    let companionTelevisions: [CECTelevision]
    private let kiosk: Kiosk
    /// The loops of the other output groups, each run on a thread of its own.
    private let companions: [Kiosk]
    /// What the displays need kept open (the DRM card their leases came from).
    private let keepAlive: [AnyObject]
    private let logger: Logger

    /// - Parameters:
    ///   - configFile: the local configuration file, which seeds `stateDirectory`.
    ///   - stateDirectory: where pushed configurations, assets, the token and logs are kept.
    /// - Throws: when the state directory cannot be used at all, or the display cannot be opened.
    public init(configFile: String, stateDirectory: String, logger: Logger, options: KioskAssemblyOptions) throws {
        let seed = Result { () throws(ConfigError) in try ConfigLoader.load(file: configFile) }
        let store = try StateStore(directory: stateDirectory, seedFile: configFile, seed: seed, logger: logger)
        if case .failure(let error) = seed {
            logger.error("\(error)")
            logger.warning("\(configFile) is not valid: showing the stored configuration instead")
        }
        logger.info("configuration \(store.current.version): \(store.origin.rawValue)", metadata: ["state": "\(stateDirectory)"])
        // api, plays, channel and power.cec come from the local file whichever
        // configuration shows, and are read once, here.
        let local = store.current.configuration
        let events = EventHub()
        let plays = Self.proofOfPlay(stateDirectory: stateDirectory, local: local, device: options.device, logger: logger)
        let fetcher = URLImageFetcher(store: store, settings: local.api, maxPixels: local.decode.maxPixels, pictures: options.pictures,
                                      events: events, logger: logger)
        var configuration = RemoteKiosk.initialConfiguration(store, fetcher: fetcher)
        options.adjust(&configuration)
        for issue in ConfigLoader.fileIssues(in: configuration) {
            let outcome = configuration.onImageError == .skip ? "that slide will be skipped" : "that slide will show the placeholder"
            logger.warning("\(issue); \(issue.path == "placeholder" ? "the background colour shows instead" : outcome)")
        }
        let displays = try options.openDisplays(configuration)
        if let layout = configuration.outputs, displays.groups.contains(where: { $0.shown.output.flatMap(layout.output(named:)) != nil }) {
            // A stored configuration from a push or a channel lacks what the local file's outputs name.
            for issue in ConfigLoader.outputReferenceIssues(layout, in: configuration) {
                logger.warning("\(issue) (outputs comes from the local file, the rest from \(store.origin.rawValue))")
            }
        }
        // Each group shows what `outputs` gives its output: its playlist, fit and rotation.
        let primary = displays.groups[0]
        // One start for every group: their rotations share deadlines (`Kiosk.init(start:)`).
        let start = KioskClock.system.now()
        // Only the first group's loop tells systemd (READY, the watchdog, STOPPING): one
        // process, one service state. The others beat heartbeats it watches, so a hung
        // companion loop stops the watchdog's pings as a hung first loop would.
        let notifier = ServiceNotifier()
        var companions: [Kiosk] = [], heartbeats: [LoopHeartbeat] = [], companionLoggers: [Logger] = []
        for group in displays.groups.dropFirst() {
            let name = group.shown.output ?? group.display.description
            var groupLogger = logger
            groupLogger[metadataKey: "output"] = "\(name)"
            companionLoggers.append(groupLogger)
            let heartbeat = LoopHeartbeat(name: name, startedAt: start.monotonic)
            heartbeats.append(heartbeat)
            companions.append(try Kiosk(configuration: group.shown.apply(configuration), version: store.current.version,
                                        display: group.display, logger: groupLogger, decoder: options.decoder, notifier: notifier.companion(beating: heartbeat),
                                        takesSignals: false, start: start))
        }
        notifier.watch(heartbeats)
        let kiosk = try Kiosk(configuration: primary.shown.apply(configuration), version: store.current.version,
                              display: primary.display, logger: logger, decoder: options.decoder, notifier: notifier, start: start)
        let display = primary.display
        let channel = local.channel.map { ChannelFollower(settings: $0, store: store, pictures: options.pictures, logger: logger, policy: options.channelPolicy) }
        // Plays go to the URL the channel names (unless the local file names its
        // own): the one recorded with the version applied before, then each new one's.
        if let channel, let plays {
            if let recorded = channel.recordedPlaysUpload { plays.useChannelUpload(recorded) }
            channel.onPlaysUpload { url in plays.useChannelUpload(url) }
        }
        // The first group's TV is found as with one output, but never on another group's connector.
        let television = CECTelevision(setting: configuration.power.cec, drmConnector: display.connectorReference, logger: logger,
                                       othersConnectors: displays.groups.dropFirst().compactMap(\.display.connectorReference))
        // With `auto`, each other group's TV is the one on its own connector's adapter, if the
        // driver says which adapter sits on which connector (vc4 does); never the first group's.
        let companionTelevisions: [CECTelevision?] = zip(displays.groups.dropFirst(), companionLoggers).map { group, groupLogger in
            guard case .auto = configuration.power.cec, let reference = group.display.connectorReference else { return nil }
            return CECTelevision(setting: .auto, drmConnector: reference, logger: groupLogger, onConnectorOnly: true)
        }
        let link = OutputGroupsLink(groups: zip([kiosk] + companions, displays.groups).map {
            OutputGroupsLink.Group(control: $0.control, shown: $1.shown, connectors: $1.connectors)
        })
        let names = Self.outputNames(displays, configuration: configuration)
        // Each group's counters under its name: unlabelled without one, as before there were groups.
        let metrics = zip([kiosk] + companions, names).map { OutputMetrics(output: $1, metrics: $0.metrics) }
        let remote = RemoteKiosk(store: store, fetcher: fetcher, pictures: options.pictures, slideDecoder: options.decoder, control: link, metrics: metrics, events: events,
                                 logger: logger, channel: channel, television: television, plays: plays)
        // Every group's events reach its TV, proof of play and the event stream, each
        // under the group's name, so that operators and play reports see every screen.
        for (loop, (name, television)) in zip([kiosk] + companions, zip(names, [television] + companionTelevisions)) {
            loop.onEvent = { event in
                if case .screenChanged(let lit) = event { television?.screenChanged(lit: lit) }
                plays?.handle(event, output: name)
                if let event = ServerEvent(event, output: name) { events.publish(event) }
            }
        }
        self.store = store
        self.remote = remote
        self.plays = plays
        self.television = television
        self.companionTelevisions = companionTelevisions.compactMap { $0 }
        self.kiosk = kiosk
        self.companions = companions
        self.keepAlive = displays.keepAlive
        self.logger = logger
    }

    /// The name each group's events, plays and metrics carry: its leading connector (a
    /// mirror group's and a canvas's leader: what it shows is one play, one
    /// event, however many screens show it) on a kiosk with `outputs` or
    /// several groups; none otherwise, so that a single-output kiosk's events
    /// and play log are what they were before there were several.
    static func outputNames(_ displays: KioskDisplays, configuration: KioskConfiguration) -> [String?] {
        let named = displays.groups.count > 1 || configuration.outputs != nil
        // The leader as planned, as `OutputGroupLink.name` has it, whatever opened.
        return displays.groups.map { named ? $0.shown.output ?? $0.connectors.first : nil }
    }

    /// Proof of play as the local file asks. The screen matters more than its
    /// log: a log that cannot be kept is reported and left off.
    private static func proofOfPlay(stateDirectory: String, local: KioskConfiguration, device: String?,
                                    logger: Logger) -> ProofOfPlay? {
        do {
            return try ProofOfPlay(stateDirectory: stateDirectory, settings: local.plays,
                                   device: device ?? local.channel?.device ?? ProofOfPlay.hostName(), logger: logger,
                                   policy: local.api.outbound)
        } catch {
            logger.error("proof of play is off: \(error)")
            return nil
        }
    }

    /// Stops `runDisplay()` from any thread (as SIGTERM does).
    public var stopHandle: KioskStopHandle { kiosk.stopHandle }

    /// Runs the display thread on the calling thread until stopped (SIGTERM,
    /// SIGINT or `stopHandle`), and each other output group's loop on a thread
    /// of its own; every display is restored before it returns.
    public func runDisplay() throws {
        try CompanionLoops(companions, logger: logger).run(alongside: kiosk)
    }

    /// Starts the background work: URL downloads, channel polling, play uploads,
    /// the TV and the API server (unless `api.listen` is off). A server that
    /// cannot start (its port taken, its certificate unreadable) is logged and
    /// the kiosk carries on without it.
    /// - Throws: when the API is on and its token can neither be read nor made.
    public func startServices() throws -> KioskServices {
        let remote = remote, plays = plays, logger = logger
        let settings = store.current.configuration.api
        let token: String? = if case .address = settings.listen { try store.apiToken(configured: settings.token) } else { nil }
        television?.start()
        for other in companionTelevisions { other.start() }
        let tasks: [Task<Void, Never>] = [
            Task { await remote.fetcher.run() },
            Task { await remote.channel?.run() },
            Task { await plays?.run() },
        ]
        if let uploader = plays?.uploader { logger.info("uploading plays to \(uploader.url)") }
        if let channel = remote.channel { logger.info("following the channel \(channel.settings.url)") }
        var server: APIServerRunner?
        if let token {
            do {
                let listen = settings.listen
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
        return KioskServices(tasks: tasks, server: server, televisions: [television].compactMap { $0 } + companionTelevisions, plays: plays)
    }

    /// The whole kiosk on the calling thread: the services, then the display
    /// thread until it stops, then the services' orderly end.
    public func run() throws {
        let services = try startServices()
        defer { services.stop() }
        try runDisplay()
    }
}

/// How `KioskAssembly` differs between `vitrine run` and a test.
public struct KioskAssemblyOptions {
    /// The displays for the configuration, one per output group: the DRM/headless
    /// selection in `vitrine run`, headless in tests.
    public var openDisplays: (KioskConfiguration) throws -> KioskDisplays
    /// Changes made after the configuration is read (`vitrine run --display`, `--preview`).
    public var adjust: (inout KioskConfiguration) -> Void
    /// The name plays are reported under; nil: the channel's device name, else the host name.
    public var device: String?
    /// The channel's poll policy; nil: the one the configuration asks for.
    public var channelPolicy: ChannelPollPolicy?
    /// Where every output group's pictures are decoded: the sandboxed helpers
    /// in `vitrine run` (`SandboxedSlideDecoder`), in process in some tests.
    public var decoder: any SlideDecoder
    /// Where uploads, downloads, thumbnails and pushed pictures are proven: the sandboxed helpers in `vitrine run`.
    public var pictures: any PictureInspector

    public init(openDisplays: @escaping (KioskConfiguration) throws -> KioskDisplays, decoder: any SlideDecoder,
                pictures: any PictureInspector, adjust: @escaping (inout KioskConfiguration) -> Void = { _ in },
                device: String? = nil, channelPolicy: ChannelPollPolicy? = nil) {
        self.openDisplays = openDisplays
        self.decoder = decoder
        self.pictures = pictures
        self.adjust = adjust
        self.device = device
        self.channelPolicy = channelPolicy
    }

    /// One display, for the configuration as it is (or as its connector's `outputs` entry shows it).
    public init(openDisplay: @escaping (KioskConfiguration) throws -> DisplayBackend, decoder: any SlideDecoder,
                pictures: any PictureInspector, adjust: @escaping (inout KioskConfiguration) -> Void = { _ in },
                device: String? = nil, channelPolicy: ChannelPollPolicy? = nil) {
        self.init(openDisplays: { KioskDisplays(try openDisplay($0)) }, decoder: decoder, pictures: pictures, adjust: adjust, device: device,
                  channelPolicy: channelPolicy)
    }
}

/// The background work `KioskAssembly.startServices()` started, and its end.
public struct KioskServices {
    let tasks: [Task<Void, Never>]
    let server: APIServerRunner?
    let televisions: [CECTelevision]
    let plays: ProofOfPlay?

    /// Ends the work: open API requests get up to two seconds to finish and
    /// event streams end, rather than being cut.
    public func stop() {
        for television in televisions { television.stop() }
        for task in tasks { task.cancel() }
        plays?.stop()
        if let server {
            let stopped = DispatchSemaphore(value: 0)
            Task {
                await server.shutdown()
                stopped.signal()
            }
            _ = stopped.wait(timeout: .now() + 2)
        }
    }
}
