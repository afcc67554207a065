import FoundationEssentials
import Glibc
import Logging
import NIOPosix
import ServiceLifecycle
import Synchronization
import VitrineConfig
import VitrineCore
import VitrineRuntime
import VitrineSystem
import VitrineAPI
import VitrineChannelFollower
import VitrinePlays
import VitrineState
import VitrineURLImages

/// The remote side of one running kiosk: its state directory, URL downloads and
/// event stream, joined to the display thread through a `DisplayLoopLink` (`KioskControl`). The HTTP
/// routes work on this; nothing here runs on the display thread.
public final class RemoteKiosk: Sendable {
    public let store: StateStore
    public let control: any DisplayLoopLink
    /// Each output group's display-loop counters, the kiosk's own first.
    public let metrics: [OutputMetrics]
    public let events: EventHub
    public let fetcher: URLImageFetcher
    /// Where uploads, thumbnails and pushed pictures are decoded: the sandboxed helpers.
    public let pictures: any PictureInspector
    /// Where the display loops' slides are decoded: its refused pictures, and an operator's "try again".
    public let slideDecoder: any SlideDecoder
    public let requests = RequestCounter()
    /// Uploads read and inspected at once (`UploadGate`).
    public let uploads = UploadGate()
    public let settings: APIConfiguration
    /// The channel this kiosk follows, if its local file names one.
    public let channel: ChannelFollower?
    /// The TV this kiosk tells of screen changes over HDMI-CEC (`power.cec`), if any.
    public let television: CECTelevision?
    /// The emergency overrides (for every output, and each output's own), kept in the state directory over restarts.
    public let overrides: OverrideStore
    /// Proof of play: the log of slides shown and its upload, if kept.
    public let plays: ProofOfPlay?
    let startedAt: MonotonicInstant
    /// Orders `applyCurrent`'s read of the store and its send to the display.
    private let applying = Mutex<Void>(())
    let logger: Logger

    /// Joins the remote side to a kiosk made with `fetcher`'s view of the state
    /// (`URLImageFetcher.localFiles` in its configuration's downloads).
    public init(store: StateStore, fetcher: URLImageFetcher, pictures: any PictureInspector, slideDecoder: any SlideDecoder,
                control: any DisplayLoopLink, metrics: [OutputMetrics], events: EventHub,
                logger: Logger, channel: ChannelFollower? = nil, television: CECTelevision? = nil,
                plays: ProofOfPlay? = nil) {
        self.plays = plays
        self.store = store
        self.channel = channel
        self.television = television
        self.fetcher = fetcher
        self.pictures = pictures
        self.slideDecoder = slideDecoder
        self.control = control
        self.metrics = metrics
        self.events = events
        self.logger = logger
        settings = store.current.configuration.api
        overrides = OverrideStore(directory: store.directory, outputs: control.outputGroups.compactMap(\.name), now: WallClock.now(),
                                  logger: logger)
        startedAt = control.status.startedAt
        fetcher.onChange { [weak self] in self?.downloadsChanged() }
        fetcher.track(store.current.configuration)
        // A channel's new version takes the path a push takes.
        channel?.onApply { [weak self] _ in self?.applyCurrent() }
        startOverride()
        collectUnusedAssets()
    }

    /// The configuration to start a kiosk with: the stored one with the copies
    /// of its URLs downloaded so far.
    public static func initialConfiguration(_ store: StateStore, fetcher: URLImageFetcher) -> KioskConfiguration {
        effective(store.current, fetcher: fetcher)
    }

    /// The configuration as the kiosk needs it: the stored one with this
    /// machine's downloaded copies of its URLs. Each output group's loop gets
    /// it as its output shows it (`OutputGroupsLink`).
    public func effective(_ stored: StoredConfiguration) -> KioskConfiguration {
        Self.effective(stored, fetcher: fetcher)
    }

    private static func effective(_ stored: StoredConfiguration, fetcher: URLImageFetcher) -> KioskConfiguration {
        var configuration = stored.configuration
        configuration.downloads = fetcher.localFiles
        return configuration
    }

    /// Hands the store's current configuration to the display thread, which
    /// switches at the next slide boundary. Call it after each change to the store.
    ///
    /// Reading the store and sending happen under one lock: concurrent pushes each
    /// change the store and then apply, and without the lock an earlier push's
    /// send could reach the display after a later one's, leaving the screen on a
    /// configuration the store no longer holds (`ConcurrentPushTests` saw it).
    /// With it, the last send reads the last change.
    func applyCurrent() {
        applying.withLock { _ in
            let stored = store.current
            control.send(.apply(ScheduledConfiguration(effective(stored)), version: stored.version))
            fetcher.track(stored.configuration)
        }
        collectUnusedAssets()
    }

    /// Removes, off every event loop, the pictures no configuration uses any more
    /// (`AssetRetention`): at start, after each configuration change and after each upload.
    func collectUnusedAssets() {
        let downloads = fetcher.assetIDs
        Task { [store] in _ = try? await NIOThreadPool.singleton.runIfActive { store.collectUnusedAssets(downloads: downloads) } }
    }

    /// A URL's picture arrived or changed: the kiosk decodes the slides that
    /// show it from the new file, and nothing else (not the whole configuration
    /// through the apply path, which would rebuild its decoded slides).
    private func downloadsChanged() {
        control.send(.updateDownloads(fetcher.localFiles))
        collectUnusedAssets()
    }

    /// Asset ids the current or previous configuration uses.
    var assetsInUse: Set<String> { store.assetsInUse(downloads: fetcher.assetIDs) }

    /// Runs `body` on NIO's blocking thread pool: file writes with fsync and
    /// picture decoding never hold up an event loop.
    func offload<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await NIOThreadPool.singleton.runIfActive(body)
    }
}

extension RemoteKiosk {
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
