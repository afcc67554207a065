import Logging
import ServiceLifecycle
import VitrineAPI
import VitrineChannelFollower
import VitrineConfig
import VitrineCore
import VitrineDoctor
import VitrinePlays
import VitrineRuntime
import VitrineUpdate

/// What the API serves, in parts that each do one job, built once by the
/// composition root (`KioskAssembly`). Each route group is handed the parts it
/// uses and no others (`APIServer.routesAndTable`); nothing here runs on a
/// display thread.
public struct APIServices: Sendable {
    /// The display loops, as the API knows them.
    public let link: any DisplayLoopLink
    /// The state store, the URL downloads, and how a change reaches the loops.
    public let apply: ApplyPath
    /// The emergency overrides, stored and shown.
    public let overrides: EmergencyOverrides
    /// Where pictures are decoded, and the upload bounds.
    public let pictures: PictureServices
    public let events: EventHub
    /// Each output group's counters, the request counts and the start, for `/metrics`.
    public let monitoring: APIMonitoring
    /// The channel this kiosk follows, if its local file names one.
    public let channel: ChannelFollower?
    /// The TV this kiosk tells of screen changes over HDMI-CEC (`power.cec`), if any.
    public let television: CECTelevision?
    /// Proof of play: the log of slides shown and its upload, if kept.
    public let plays: ProofOfPlay?
    /// The board's power and storage, read every minute by the kiosk's assembly, if watched.
    public let board: BoardHealthWatch?
    /// How the board is rebooted when the API asks (`POST /api/v1/reboot`).
    public var reboot: BoardReboot
    /// The update helper's last report, read every minute by the kiosk's assembly, if watched.
    public let software: SoftwareUpdateWatch?
    let logger: Logger

    /// Joins the parts, then starts what must start with them: the stored
    /// overrides shown again, and the first collection of unused assets.
    public init(apply: ApplyPath, pictures: PictureServices, monitoring: APIMonitoring, events: EventHub, logger: Logger,
                channel: ChannelFollower? = nil, television: CECTelevision? = nil, plays: ProofOfPlay? = nil,
                board: BoardHealthWatch? = nil, reboot: BoardReboot = BoardReboot(), software: SoftwareUpdateWatch? = nil) {
        self.software = software
        self.link = apply.link
        self.apply = apply
        self.pictures = pictures
        self.monitoring = monitoring
        self.events = events
        self.channel = channel
        self.television = television
        self.plays = plays
        self.board = board
        self.reboot = reboot
        self.logger = logger
        overrides = EmergencyOverrides(store: apply.store, link: apply.link, events: events, logger: logger)
        // A channel's new version takes the path a push takes.
        channel?.onApply { [apply] _ in apply.applyCurrent() }
        overrides.start()
        apply.collectUnusedAssets()
    }

    /// The API server for `address`, not yet running; nil when the API is off.
    /// Fails when the TLS certificate or key cannot be loaded.
    public func server(at address: APIListenAddress, token: String, tls: TLSFiles?,
                       onListening: @escaping @Sendable (Int) -> Void = { _ in }) throws -> APIServerRunner? {
        guard case .address(let host, let port) = address else { return nil }
        let application = try APIServer.application(self, token: token, host: host, port: port, tls: tls, logger: logger,
                                                    onListening: onListening)
        // No signal handling here: SIGTERM belongs to the display thread's signalfd,
        // which stops the kiosk; the caller then shuts this down.
        return APIServerRunner(serving: application, logger: logger)
    }
}

/// What `/metrics` counts besides the parts' own reports.
public struct APIMonitoring: Sendable {
    /// Each output group's display-loop counters, the kiosk's own first.
    public let metrics: [OutputMetrics]
    public let requests = RequestCounter()
    public let startedAt: MonotonicInstant

    public init(metrics: [OutputMetrics], startedAt: MonotonicInstant) {
        self.metrics = metrics
        self.startedAt = startedAt
    }
}

/// A running API server and its graceful shutdown: open requests finish and
/// event streams end, rather than being cut (which Hummingbird logs as errors).
public final class APIServerRunner: Sendable {
    private let group: ServiceGroup

    /// `service` (the kiosk's Hummingbird application, or a test's) in a
    /// ServiceGroup with no signal handling of its own.
    init(serving service: some Service, logger: Logger) {
        self.group = ServiceGroup(configuration: .init(services: [service], logger: logger))
    }

    /// Serves until `shutdown()`. A failure to listen (the port taken) is thrown.
    public func run() async throws { try await group.run() }

    public func shutdown() async { await group.triggerGracefulShutdown() }
}
