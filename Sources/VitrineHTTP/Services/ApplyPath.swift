import Logging
import NIOPosix
import Synchronization
import VitrineConfig
import VitrineCore
import VitrineRuntime
import VitrineState
import VitrineURLImages

/// The apply path: how a change to the state store (a push, a rollback, a
/// channel's version, a URL's new picture) reaches every display loop.
///
/// It owns nothing the store or the loops own: it reads the store's current
/// configuration, adds this machine's downloaded copies of its URLs, and
/// sends the result through the one `DisplayLoopLink`, which switches at the
/// next slide boundary.
public final class ApplyPath: Sendable {
    public let store: StateStore
    public let fetcher: URLImageFetcher
    public let link: any DisplayLoopLink
    /// Orders `applyCurrent`'s read of the store and its send to the display.
    private let applying = Mutex<Void>(())

    /// Tracks the store's URLs and sends each download that arrives.
    public init(store: StateStore, fetcher: URLImageFetcher, link: any DisplayLoopLink) {
        self.store = store
        self.fetcher = fetcher
        self.link = link
        fetcher.onChange { [weak self] in self?.downloadsChanged() }
        fetcher.track(store.current.configuration)
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

    /// Hands the store's current configuration to the display threads, which
    /// switch at the next slide boundary. Call it after each change to the store.
    ///
    /// Reading the store and sending happen under one lock: concurrent pushes each
    /// change the store and then apply, and without the lock an earlier push's
    /// send could reach the display after a later one's, leaving the screen on a
    /// configuration the store no longer holds (`ConcurrentPushTests` saw it).
    /// With it, the last send reads the last change.
    public func applyCurrent() {
        applying.withLock { _ in
            let stored = store.current
            link.send(.apply(ScheduledConfiguration(effective(stored)), version: stored.version))
            fetcher.track(stored.configuration)
        }
        collectUnusedAssets()
    }

    /// Removes, off every event loop, the pictures no configuration uses any more
    /// (`AssetRetention`): at start, after each configuration change and after each upload.
    public func collectUnusedAssets() {
        let downloads = fetcher.assetIDs
        Task { [store] in _ = try? await NIOThreadPool.singleton.runIfActive { store.collectUnusedAssets(downloads: downloads) } }
    }

    /// Asset ids the current or previous configuration uses.
    var assetsInUse: Set<String> { store.assetsInUse(downloads: fetcher.assetIDs) }

    /// A URL's picture arrived or changed: the loops decode the slides that
    /// show it from the new file, and nothing else (not the whole configuration
    /// through `applyCurrent`, which would rebuild their decoded slides).
    private func downloadsChanged() {
        link.send(.updateDownloads(fetcher.localFiles))
        collectUnusedAssets()
    }
}

/// Runs `body` on NIO's blocking thread pool: file writes with fsync and
/// picture decoding never hold up an event loop.
func offload<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await NIOThreadPool.singleton.runIfActive(body)
}
