import Dispatch
import FoundationEssentials
import Logging
import VitrineAPI
import VitrineChannel
import VitrineChannelFollower
import VitrineConfig
import VitrineCore
import VitrineDoctor
import VitrineFreeType
import VitrineHTTP
import VitrinePlays
import VitrineRuntime
import VitrineState
import VitrineSystem
import VitrineURLImages
import VitrineUpdate

/// The composition root: the one place that builds a kiosk's object graph
/// from its configuration file and state directory.
///
/// It makes, in this order, the state store (the file seeds it), the event hub,
/// proof of play, the URL fetcher, the displays (through `KioskAssemblyOptions.openDisplays`),
/// one `OutputGroup` per display (its loop, TV, name and counters), the channel follower,
/// the apply path and the parts the API serves (`APIServices`), and joins every group's
/// events to the event stream, the play log and its TV, each under the group's name.
/// `vitrine run` (and through it the image tests) and the integration tests' harnesses
/// all use it, so their wirings cannot drift apart.
///
/// The display thread is the caller's: `runDisplay()` blocks on it. The
/// background work (downloads, channel polling, play uploads, the API server)
/// starts with `startServices()`, which tests leave out to drive that work by hand.
public final class KioskAssembly {
    public let store: StateStore
    /// What the API serves.
    public let api: APIServices
    public let plays: ProofOfPlay?
    /// The first group's TV, if any.
    public var television: CECTelevision? { groups[0].television }
    /// Every output group, the kiosk's own first.
    let groups: [OutputGroup]
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
        // Read every minute once the kiosk runs (`startupDoctor`); its last reading goes to the
        // status, /metrics and each batch of plays uploaded.
        let board = BoardHealthWatch(stateDirectory: stateDirectory)
        // The update helper's last report (docs/updates.md), read with the board's health.
        let software = SoftwareUpdateWatch()
        let plays = Self.proofOfPlay(stateDirectory: stateDirectory, local: local, device: options.device, logger: logger,
                                     boardHealth: { board.current.map(BoardHealthBody.init) },
                                     softwareStatus: { software.current.map(SoftwareStatusBody.init) })
        let fetcher = URLImageFetcher(store: store, settings: local.api, maxPixels: local.decode.maxPixels, pictures: options.pictures,
                                      events: events, logger: logger)
        var configuration = ApplyPath.initialConfiguration(store, fetcher: fetcher)
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
        let groups = try OutputGroup.assemble(displays, configuration: configuration, version: store.current.version,
                                              decoder: options.decoder, textRasterizer: Self.noticeFont(configuration, logger: logger),
                                              logger: logger)
        let channel = local.channel.map { ChannelFollower(settings: $0, store: store, pictures: options.pictures, logger: logger, policy: options.channelPolicy) }
        // Updates over the air (docs/updates.md): each channel version applied is left for the
        // root helper, where the package installed it.
        if let channel, let outbox = UpdateRequestOutbox.standard(environment: ProcessInfo.processInfo.environment) {
            channel.requestUpdates(through: outbox)
        }
        // Plays go to the URL the channel names (unless the local file names its
        // own): the one recorded with the version applied before, then each new one's.
        if let channel, let plays {
            if let recorded = channel.recordedPlaysUpload { plays.useChannelUpload(recorded) }
            channel.onPlaysUpload { url in plays.useChannelUpload(url) }
        }
        let link = OutputGroupsLink(groups: groups.map(\.link))
        let apply = ApplyPath(store: store, fetcher: fetcher, link: link)
        api = APIServices(apply: apply,
                          pictures: PictureServices(inspector: options.pictures, slides: options.decoder, maxUploadBytes: local.api.maxUploadBytes),
                          monitoring: APIMonitoring(metrics: groups.map(\.metrics), startedAt: link.status.startedAt), events: events,
                          logger: logger, channel: channel, television: groups[0].television, plays: plays,
                          board: board, software: software)
        for group in groups { group.joinEvents(plays: plays, events: events) }
        self.store = store
        self.plays = plays
        self.groups = groups
        self.keepAlive = displays.keepAlive
        self.logger = logger
    }

    /// The font notices are drawn in (`showAddress`). Opened whatever the
    /// configuration, since a later one may ask for the address; its absence
    /// is worth a warning only where the address is asked for now.
    private static func noticeFont(_ configuration: KioskConfiguration, logger: Logger) -> FontFace? {
        do {
            return try FontFace()
        } catch {
            if configuration.showAddress { logger.warning("the address cannot be shown on screen: \(error)") }
            return nil
        }
    }

    /// Proof of play as the local file asks. The screen matters more than its
    /// log: a log that cannot be kept is reported and left off.
    private static func proofOfPlay(stateDirectory: String, local: KioskConfiguration, device: String?,
                                    logger: Logger, boardHealth: @escaping @Sendable () -> BoardHealthBody?,
                                    softwareStatus: @escaping @Sendable () -> SoftwareStatusBody?) -> ProofOfPlay? {
        do {
            return try ProofOfPlay(stateDirectory: stateDirectory, settings: local.plays,
                                   device: device ?? local.channel?.device ?? ProofOfPlay.hostName(), logger: logger,
                                   policy: local.api.outbound, boardHealth: boardHealth,
                                   softwareStatus: softwareStatus)
        } catch {
            logger.error("proof of play is off: \(error)")
            return nil
        }
    }

    /// Stops `runDisplay()` from any thread (as SIGTERM does).
    public var stopHandle: KioskStopHandle { groups[0].kiosk.stopHandle }

    /// Runs the display thread on the calling thread until stopped (SIGTERM,
    /// SIGINT or `stopHandle`), and each other output group's loop on a thread
    /// of its own; every display is restored before it returns.
    public func runDisplay() throws {
        try CompanionLoops(groups.dropFirst().map(\.kiosk), logger: logger).run(alongside: groups[0].kiosk)
    }

    /// Starts the background work: URL downloads, channel polling, play uploads,
    /// the TVs and the API server (unless `api.listen` is off). A server that
    /// cannot start (its port taken, its certificate unreadable) is logged and
    /// the kiosk carries on without it.
    /// - Throws: when the API is on and its token can neither be read nor made.
    public func startServices() throws -> KioskServices {
        let api = api, plays = plays, logger = logger
        let settings = store.current.configuration.api
        let token: String? = if case .address = settings.listen { try store.apiToken(configured: settings.token) } else { nil }
        let televisions = groups.compactMap(\.television)
        for television in televisions { television.start() }
        let tasks: [Task<Void, Never>] = [
            Task { await api.apply.fetcher.run() },
            Task { await api.channel?.run() },
            Task { await plays?.run() },
            startupDoctor(),
            AddressNoticeWatch.start(api: settings, controls: groups.map(\.kiosk.control)),
        ]
        if let uploader = plays?.uploader { logger.info("uploading plays to \(uploader.url)") }
        if let channel = api.channel { logger.info("following the channel \(channel.settings.url)") }
        var server: APIServerRunner?
        if let token {
            do {
                let listen = settings.listen
                server = try api.server(at: listen, token: token, tls: settings.tls) { port in
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
        return KioskServices(tasks: tasks, server: server, televisions: televisions, plays: plays)
    }

    /// `vitrine doctor`'s report, made once at start off the display thread
    /// and saved where `GET /api/v1/doctor` finds it, so that a board's report
    /// can be had without SSH; what it finds wrong (under-voltage, a file
    /// system gone read-only, too little CMA) is logged as warnings too. Its
    /// checks only read (no DRM master, no probe of a leased connector's CRTC).
    ///
    /// Then the board's power and storage, read again every minute
    /// (`BoardHealthWatch`) for the status and `/metrics`, the report's own
    /// sections being the first reading: a subject whose status changes is
    /// logged, a worse one as a warning.
    private func startupDoctor() -> Task<Void, Never> {
        let directory = store.directory, touch = store.current.configuration.touch, logger = logger, board = api.board
        let apiSettings = store.current.configuration.api
        let software = api.software
        return Task.detached(priority: .background) {
            let now = WallClock.now()
            let report = Doctor.report(Doctor.standardChecks(stateDirectory: directory, touch: touch, api: apiSettings), version: VitrineVersion.current,
                                       now: now)
            for section in report.sections where section.worstStatus >= .warning {
                for finding in section.findings { logger.warning("doctor: \(finding)") }
            }
            do {
                try Doctor.save(report, stateDirectory: directory)
                logger.info("doctor: \(report.status.rawValue); the report is in \(directory)/\(Doctor.fileName) (GET /api/v1/doctor)")
            } catch {
                logger.warning("doctor: the report cannot be saved: \(error)")
            }
            logSoftwareUpdate(software?.takeNew(now: MonotonicClock.now()), logger: logger)
            guard let board else { return }
            // What the doctor just logged is not logged again.
            board.record(report, at: now)
            while !Task.isCancelled {
                try? await Task.sleep(for: BoardHealthWatch.interval)
                guard !Task.isCancelled else { return }
                logSoftwareUpdate(software?.takeNew(now: MonotonicClock.now()), logger: logger)
                for change in board.check(at: WallClock.now()) {
                    let subject = change.subject
                    if change.isWorse {
                        logger.warning("board health: \(subject.id) is now \(subject.status.rawValue): \(subject.findings.joined(separator: " "))")
                    } else {
                        logger.notice("board health: \(subject.id) is now \(subject.status.rawValue) (was \(change.previous?.rawValue ?? "unread")): \(subject.summary)")
                    }
                }
            }
        }
    }

    /// The whole kiosk on the calling thread: the services, then the display
    /// thread until it stops, then the services' orderly end.
    public func run() throws {
        let services = try startServices()
        defer { services.stop() }
        try runDisplay()
    }
}

/// A new report of the update helper's, once: a rollback or a failure as a warning.
private func logSoftwareUpdate(_ report: SoftwareUpdateReport?, logger: Logger) {
    guard let report else { return }
    let line = "software update (\(RFC3339.format(report.at))): \(report.outcome.rawValue): \(report.detail)"
    switch report.outcome {
    case .installed, .unchanged, .unmanaged: logger.notice("\(line)")
    case .rolledBack, .refused, .failed: logger.warning("\(line)")
    }
}
