import AsyncHTTPClient
import FoundationEssentials
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization
import VitrineConfig
import VitrineCore
import VitrineRuntime
import VitrineSystem
import VitrineAPI
import VitrineState

/// Downloads the pictures of URL slides into the asset store, in the
/// background, and keeps them fresh: each URL is revalidated every
/// `api.urlRefresh` with `If-None-Match` (its ETag) or `If-Modified-Since`.
/// A failed download or revalidation keeps the copy already held, so the
/// kiosk carries on showing it while offline. Until a URL's first download,
/// its slide shows the placeholder.
///
/// What is known about each URL lives in `downloads.json` in the state
/// directory, replaced atomically, so a restart shows the cached copies at once.
public final class URLImageFetcher: Sendable {
    /// One URL's entry in `downloads.json`; keys without a value are left out.
    struct Download: Codable, Hashable, Sendable {
        var assetID: String
        var etag: String?
        var lastModified: String?
        /// Seconds since 1970 of the last successful check.
        var checked: Double

        private enum CodingKeys: String, CodingKey {
            case assetID = "asset"
            case etag, lastModified, checked
        }
    }

    private struct State: Sendable {
        var wanted: [String] = []
        var downloads: [String: Download] = [:]
        /// Monotonic deadlines of the next attempt for each URL.
        var due: [String: MonotonicInstant] = [:]
        /// How often `track` has woken the loop (for tests).
        var wakeCount = 0
        /// The list of URLs whose parts were last pruned for.
        var prunedFor: [String]?
    }

    private let store: StateStore
    private let settings: APIConfiguration
    private let maxPixels: Int
    /// Where each download is decoded before it is kept: the sandboxed helpers.
    private let pictures: any PictureInspector
    private let logger: Logger
    private let events: EventHub
    /// Boxed: a bare function value in a `Mutex` gains two thunks at each read (`StoredCallback`).
    private let changeHandler = Mutex<StoredCallback<Void>?>(nil)
    private let state = Mutex(State())
    private let wakeups: AsyncStream<Void>
    private let wake: AsyncStream<Void>.Continuation
    private var indexPath: String { store.directory + "/downloads.json" }
    /// After a failure, try again this soon (the refresh period if shorter).
    static let retryDelay: Duration = .seconds(30)

    public init(store: StateStore, settings: APIConfiguration, maxPixels: Int, pictures: any PictureInspector, events: EventHub, logger: Logger) {
        self.pictures = pictures
        self.store = store
        self.settings = settings
        self.maxPixels = maxPixels
        self.events = events
        self.logger = logger
        (wakeups, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let loaded = Self.loadIndex(store.directory + "/downloads.json").filter { store.assets.contains($0.value.assetID) }
        state.withLock { $0.downloads = loaded }
    }

    /// `handler` is called whenever a downloaded copy is new or changed, so the
    /// kiosk can be given the new files.
    public func onChange(_ handler: @escaping @Sendable () -> Void) {
        changeHandler.withLock { $0 = StoredCallback { _ in handler() } }
    }

    /// URL to local file, for `KioskConfiguration.downloads`.
    public var localFiles: [String: String] {
        state.withLock { $0.downloads.mapValues { store.assets.path($0.assetID) } }
    }

    /// How often a new list of URLs has woken the download loop.
    var wakeCount: Int { state.withLock { $0.wakeCount } }

    /// URL to asset id, for deciding which assets are in use.
    public var assetIDs: [String: String] { state.withLock { $0.downloads.mapValues(\.assetID) } }

    /// The URLs the configuration on screen names; new ones are fetched at once.
    public func track(_ configuration: KioskConfiguration) {
        var urls: [String] = []
        for path in configuration.allSlides.map(\.slide.path) + [configuration.placeholder].compactMap({ $0 }) {
            if case .url(let url) = SlideSource(path), !urls.contains(url) { urls.append(url) }
        }
        let changed = state.withLock { state -> Bool in
            guard state.wanted != urls else { return false }
            state.wanted = urls
            let now = MonotonicClock.now()
            for url in urls where state.due[url] == nil { state.due[url] = now }
            state.wakeCount += 1
            return true
        }
        // Only a changed list wakes the loop. A wake-up cancels the loop's sleep,
        // and a cancelled `Task.sleep` keeps its timer and task allocated until the
        // deadline it was given; waking on every push held about 0.5 KiB per push
        // for an hour (the soak's push load).
        if changed { wake.yield() }
    }

    /// Runs until the task is cancelled.
    public func run() async {
        while !Task.isCancelled {
            await pruneParts()
            let now = MonotonicClock.now()
            let (due, next) = state.withLock { state -> ([String], MonotonicInstant?) in
                let due = state.wanted.filter { (state.due[$0] ?? now) <= now }
                let next = state.wanted.compactMap { state.due[$0] }.filter { $0 > now }.min()
                return (due, next)
            }
            for url in due where !Task.isCancelled { await refresh(url) }
            if !due.isEmpty { continue }
            // Nothing to revalidate: wait for a new list only, with no timer at all.
            guard let next else {
                for await _ in wakeups { break }
                continue
            }
            let wait = next - now
            await withTaskGroup(of: Void.self) { group in
                group.addTask { try? await Task.sleep(for: wait) }
                group.addTask { [wakeups] in for await _ in wakeups { break } }
                await group.next()
                group.cancelAll()
            }
        }
    }

    /// One download or revalidation of `url`.
    ///
    /// The body goes to disk as it arrives (`AssetUpload`), into a part kept
    /// for `url` (`partial-url-<sha256 of the URL>`) with the file's validator
    /// beside it. A download cut short (`api.urlTimeout` on a slow link, a
    /// dropped connection) keeps what arrived, and the next attempt asks for
    /// the rest with `Range` and `If-Range`: the server sends the rest if the
    /// file is the same, or all of it if it changed. A file with no validator
    /// `If-Range` may carry (`RangeAnswer.ifRangeValidator`) starts over.
    func refresh(_ url: String) async {
        let known = state.withLock { $0.downloads[url] }
        var outcome: Duration = settings.urlRefresh
        var staged: AssetUpload?
        do {
            let assets = store.assets
            let key = Self.partialKey(of: url)
            let part = try await NIOThreadPool.singleton.runIfActive { try AssetUpload(in: assets, resuming: key) }
            staged = part
            let validator = part.resumeValidator
            if part.size > 0 && validator == nil { try await NIOThreadPool.singleton.runIfActive { try part.restart() } }
            let offset = part.size
            var request = HTTPClientRequest(url: url)
            if offset > 0, let validator {
                request.headers.add(name: "Range", value: RangeAnswer.rangeHeader(from: offset))
                request.headers.add(name: "If-Range", value: validator)
                logger.info("\(url): resuming the download after \(offset) bytes")
            } else if let known, store.assets.contains(known.assetID) {
                if let etag = known.etag { request.headers.add(name: "If-None-Match", value: etag) }
                if let lastModified = known.lastModified { request.headers.add(name: "If-Modified-Since", value: lastModified) }
            }
            let limit = settings.maxUploadBytes
            // The answer's status and headers; a body (200, or the rest in a 206) is
            // staged whole before this returns, inside the request's lifetime.
            let (answer, code, headers) = try await OutboundRequest.execute(request, policy: settings.outbound, timeout: settings.urlTimeout) {
                response -> (RangeAnswer, Int, NIOHTTP1.HTTPHeaders) in
                let code = Int(response.status.code)
                let answer = RangeAnswer.of(status: code, contentRange: response.headers.first(name: "Content-Range"), askedFrom: offset)
                switch answer {
                case .whole:
                    let validator = RangeAnswer.ifRangeValidator(etag: response.headers.first(name: "ETag"),
                                                                 lastModified: response.headers.first(name: "Last-Modified"))
                    try await NIOThreadPool.singleton.runIfActive {
                        if part.size > 0 { try part.restart() }
                        try part.keepResumeValidator(validator)
                    }
                case .rest:
                    break
                case .alreadyWhole:
                    _ = try await NIOThreadPool.singleton.runIfActive { try part.finish() }
                    return (answer, code, response.headers)
                case .startOver(let reason):
                    try await NIOThreadPool.singleton.runIfActive { try part.restart() }
                    throw FetchFailure("\(reason); the next attempt starts from the beginning")
                case .notModified, .missing, .failed:
                    return (answer, code, response.headers)
                }
                do {
                    try await part.receive(response.body, limit: limit) { TooLarge() }
                } catch let error as TooLarge {
                    throw error
                } catch let error as DiskFloorReached {
                    throw error
                } catch let error as SystemError {
                    throw error
                } catch {
                    throw FetchFailure("the download broke off after \(part.size) bytes: \(error); the next attempt goes on from there")
                }
                _ = try await NIOThreadPool.singleton.runIfActive { try part.finish() }
                return (answer, code, response.headers)
            }
            switch answer {
            case .notModified:
                logger.debug("\(url): not modified")
                updateDownload(url) { $0?.checked = Date().timeIntervalSince1970 }
            case .whole, .rest, .alreadyWhole:
                let maxPixels = self.maxPixels
                let pictures = self.pictures
                let digest = part.digest ?? ""
                // A picture decoded in a helper, a video opened in a video helper, from the staged file.
                let image = try await NIOThreadPool.singleton.runIfActive {
                    try pictures.inspect(download: part.path, sha256: digest, named: url, maxPixels: maxPixels)
                }
                let name = URL(string: url)?.lastPathComponent ?? "download"
                // The file's validator for later revalidation: a 206 (or a 416) need not
                // carry it, and then it is the one the rest was asked for with.
                let resumedWith = part.resumeValidator
                let (asset, created) = try await NIOThreadPool.singleton.runIfActive { [store] in
                    try store.assets.adopt(part, image: image, name: name.isEmpty ? "download" : name)
                }
                if created { events.publish(ServerEvent("assetAdded", encoding: asset.body(inUse: true))) }
                var etag = headers.first(name: "ETag"), lastModified = headers.first(name: "Last-Modified")
                if answer != .whole, etag == nil, lastModified == nil, let resumedWith {
                    if resumedWith.hasPrefix("\"") { etag = resumedWith } else { lastModified = resumedWith }
                }
                let entry = Download(assetID: asset.id, etag: etag, lastModified: lastModified, checked: Date().timeIntervalSince1970)
                let changed = state.withLock { state -> Bool in
                    defer { state.downloads[url] = entry }
                    return state.downloads[url]?.assetID != entry.assetID
                }
                saveIndex()
                logger.info("\(url): downloaded", metadata: ["asset": "\(asset.id)", "bytes": "\(asset.size)"])
                if changed { changeHandler.withLock { $0 }?.call(()) }
            case .missing, .failed, .startOver:
                // The standard phrase for the code, never the server's own words.
                throw FetchFailure("the server answered \(code) \(OutboundRequest.reason(code))")
            }
        } catch {
            let reason: String
            switch error {
            case is TooLarge:
                staged?.discard()
                reason = "larger than api.maxUploadSize (\(settings.maxUploadBytes) bytes)"
            case let full as DiskFloorReached:
                // Not kept to resume: a part that cannot grow would hold the disk at its floor.
                staged?.discard()
                reason = full.message
            case let readOnly as StateReadOnly: reason = readOnly.message
            case let failure as ImageInspection.Failure:
                // Whole, and not a picture or video the kiosk can show: nothing to resume.
                staged?.discard()
                switch failure {
                // What the download starts with is the server's, not ours to repeat in a log or an event.
                case .notAnImage: reason = ImageInspection.notAnImage
                case .undecodable(let text), .overPixelLimit(let text), .overBitrateLimit(let text): reason = text
                }
            default: reason = "\(error)"
            }
            let cached = state.withLock { $0.downloads[url] != nil }
            let message = "cannot download \(url): \(reason); " + (cached ? "keeping the copy downloaded before" : "its slide shows the placeholder")
            logger.warning("\(message)")
            events.publish(ServerEvent("error", encoding: ErrorEvent(message: message)))
            outcome = min(Self.retryDelay, settings.urlRefresh)
        }
        // A revalidation (304), a download that failed before its first byte, or one of a
        // file with no validator to resume it by, leaves no part.
        if let staged, staged.size == 0 || staged.resumeValidator == nil { staged.discard() }
        state.withLock { $0.due[url] = MonotonicClock.now() + outcome }
    }

    /// Removes the parts of downloads of URLs the playlist no longer names,
    /// once for each new list: on the download loop, so never under a
    /// download that is writing its part.
    func pruneParts() async {
        let wanted = state.withLock { state -> [String]? in
            guard state.prunedFor != state.wanted else { return nil }
            state.prunedFor = state.wanted
            return state.wanted
        }
        guard let wanted else { return }
        let keys = Set(wanted.map(Self.partialKey))
        try? await NIOThreadPool.singleton.runIfActive { [store] in
            store.assets.removePartialDownloads(keyedBy: Self.partialKeyPrefix, except: keys)
        }
    }

    static let partialKeyPrefix = "url-"

    /// What names the part of `url`'s download in the asset directory: the
    /// URL's SHA-256, so that any URL gives a plain file name.
    static func partialKey(of url: String) -> String { partialKeyPrefix + ContentDigest.sha256(Array(url.utf8)) }

    private func updateDownload(_ url: String, _ change: (inout Download?) -> Void) {
        state.withLock { change(&$0.downloads[url]) }
        saveIndex()
    }

    private func saveIndex() {
        let downloads = state.withLock { $0.downloads }
        do {
            let json = try JSONText.encode(downloads, [.sortedKeys, .withoutEscapingSlashes])
            try FileIO.writeAtomically(Array(json), to: indexPath)
        } catch {
            logger.error("cannot save \(indexPath): \(error)")
        }
    }

    /// Each entry is read on its own: one that cannot be read is left out
    /// (its picture is downloaded again), and every other URL keeps its cached
    /// copy, which an offline kiosk goes on showing.
    static func loadIndex(_ path: String) -> [String: Download] {
        guard let bytes = try? FileIO.read(path), let entries = try? JSONValue(parsing: bytes).object else { return [:] }
        return entries.compactMapValues { entry in
            guard let encoded = try? JSONText.encode(entry, []) else { return nil }
            return try? JSONDecoder().decode(Download.self, from: Data(encoded))
        }
    }
}

/// A download past `api.maxUploadSize`: stopped there.
struct TooLarge: Error {}

struct FetchFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
