import FoundationEssentials
import Glibc
import Logging
import NIOPosix
import Synchronization
import VitrineChannel
import VitrineConfig
import VitrineCore
import VitrineRuntime
import VitrineSystem
import VitrineUpdate
import VitrineState

/// Follows a signed channel (docs/fleet.md): polls `channel.json` and its
/// signature with conditional GETs, verifies them (the signature before
/// anything else), downloads the pictures of a newer version into the asset
/// store, checking each against its SHA-256, and only when every picture is
/// there stores the configuration and hands it to the kiosk, which switches at
/// the next slide boundary. The I/O edge: what to do next, when, and what the
/// status says is `ChannelFollowerState`, which is pure.
///
/// Refusals and errors never change what is on screen: the kiosk keeps the
/// last good version for as long as the origin is away or refused.
public final class ChannelFollower: Sendable {
    // Internal rather than private: the extensions in ChannelFollower+Root, +Apply and
    // +Record (one concern each, so that no file is over 450 lines) share this state.
    public let settings: ChannelConfiguration
    let store: StateStore
    let origin: ChannelOrigin
    /// Nil when no trusted key could be read: then the follower is `off`.
    /// Replaced when a newer `root.json` names other signing keys.
    let verifier: Mutex<ChannelVerifier?>
    /// The offline root keys (`channel.root`); nil when none are configured.
    let rootVerifier: ChannelRootVerifier?
    /// The ETags of the `root.json` and signature taken last (not persisted:
    /// after a restart the first poll fetches them whole).
    let rootETags = Mutex<(root: String?, signature: String?)>((nil, nil))
    /// The root's version floor, lifetime and the last trusted time (`ChannelRootTrust`), kept in the state directory.
    let rootTrust: Mutex<ChannelRootTrust>
    /// Whether the system clock is synchronised (systemd-timesyncd's mark, `SystemWallClock.isSynchronized`).
    let clockSynchronized: @Sendable () -> Bool
    var rootTrustPath: String { store.directory + "/" + ChannelRootTrust.fileName }
    let logger: Logger
    let wallClock: @Sendable () -> WallInstant
    let state: Mutex<ChannelFollowerState>
    let lastPair = Mutex<FetchedPair?>(nil)
    let clockBehind = Mutex(false)
    /// Boxed: a bare function value in a `Mutex` gains two thunks at each read (`StoredCallback`).
    let applyHandler = Mutex<StoredCallback<StoredConfiguration>?>(nil)
    let playsUploadHandler = Mutex<StoredCallback<String?>?>(nil)
    let updateRequests = Mutex<UpdateRequestOutbox?>(nil)
    var recordPath: String { store.directory + "/" + ChannelFollowRecord.fileName }
    /// The root taken last, exactly as the origin served it (and its signature),
    /// verified again at each start.
    var rootPath: String { store.directory + "/channel-" + ChannelRoot.fileName }
    var rootSignaturePath: String { store.directory + "/channel-" + ChannelRoot.signatureFileName }

    /// The largest `channel.json` and `channel.json.sig` accepted.
    static let manifestLimit = 8 << 20
    static let signatureLimit = 4096
    /// The largest `root.json` accepted: a few dozen keys.
    static let rootLimit = 64 << 10

    /// The manifest and signature fetched last, with their ETags, so that a
    /// poll answered 304 can be decided without fetching them again.
    struct FetchedPair: Sendable {
        var manifest: [UInt8]
        var manifestETag: String?
        var signature: [UInt8]
        var signatureETag: String?
        /// The pair's outcome is final: it was applied, or it is the applied
        /// version. A refused pair (or one whose pictures failed to download)
        /// is decided again at the next poll, from these bytes if unchanged.
        var settled: Bool
    }

    /// Where each picture of a version is decoded before it is kept: the sandboxed helpers.
    let pictures: any PictureInspector

    /// - Parameters:
    ///   - policy: the poll policy; nil: the one `settings` asks for.
    ///   - wallClock: the wall time, for expiry and the status (tests pass their own).
    ///   - clockSynchronized: whether the system clock is synchronised (tests pass their own).
    public init(settings: ChannelConfiguration, store: StateStore, pictures: any PictureInspector, logger: Logger, policy: ChannelPollPolicy? = nil,
                wallClock: @escaping @Sendable () -> WallInstant = { WallClock.now() },
                clockSynchronized: @escaping @Sendable () -> Bool = { SystemWallClock().isSynchronized }) {
        self.pictures = pictures
        self.settings = settings
        self.store = store
        self.logger = logger
        self.wallClock = wallClock
        self.clockSynchronized = clockSynchronized
        let trustPath = store.directory + "/" + ChannelRootTrust.fileName
        let trust = (try? FileIO.read(trustPath, limit: 64 << 10)).flatMap(ChannelRootTrust.parse) ?? ChannelRootTrust()
        origin = ChannelOrigin(timeout: settings.timeout, policy: store.current.configuration.api.outbound)

        let recordPath = store.directory + "/" + ChannelFollowRecord.fileName
        var applied: AppliedChannelVersion?
        if let bytes = try? FileIO.read(recordPath, limit: 1 << 20) {
            switch ChannelFollowRecord.parse(bytes) {
            case .success(let record) where record.url == settings.url(of: ""):
                applied = record.applied
            case .success(let record):
                logger.notice("channel \(settings.url): following a new channel; the version applied from \(record.url) does not count for it")
            case .failure(let error):
                // Only a hand edit or a disk fault can do this (the file is replaced
                // atomically); the next version applied rewrites it.
                logger.error("ignoring \(recordPath): \(error); any newer version of the channel will apply")
            }
        }
        // The configuration on screen is not the one the applied version became:
        // the local file was edited (it wins at start), or the kiosk was killed
        // between storing the configuration and recording the version. Then that
        // version may be applied once more. With local pushes allowed, a pushed
        // configuration is the operator's own and stands until a newer version.
        let reapply = applied.map { $0.configurationVersion != store.current.version } ?? false
        var verifier: ChannelVerifier?
        var rootVerifier: ChannelRootVerifier?
        var root: ChannelRoot?
        var stopped: ChannelKeyError?
        do {
            verifier = ChannelVerifier(trustedKeys: try ChannelTrust.keys(settings))
            let rootKeys = try ChannelTrust.rootKeys(settings)
            if !rootKeys.isEmpty {
                rootVerifier = ChannelRootVerifier(rootKeys: rootKeys)
                root = Self.storedRoot(directory: store.directory, verifier: rootVerifier!, logger: logger)
                if let stored = root, stored.version < trust.versionFloor {
                    logger.error("ignoring the stored root version \(stored.version): version \(trust.versionFloor) was taken already")
                    root = nil
                }
                if let root {
                    verifier = ChannelVerifier(trustedKeys: root.keys)
                } else if trust.versionFloor > 0 {
                    // A rotation replaced channel.keys (perhaps because they leaked): they do not come back
                    // because the stored root is gone. Nothing signs until the origin's root is taken again.
                    verifier = ChannelVerifier(trustedKeys: [])
                    logger.error("channel \(settings.url): root version \(trust.versionFloor) was taken, and no usable copy of it is stored; manifests are refused until the origin's root.json is taken again")
                }
            }
        } catch {
            (verifier, stopped) = (nil, error)
        }
        var state = ChannelFollowerState(policy: policy ?? ChannelPollPolicy(settings), applied: applied,
                                         reapplyAllowed: reapply && !settings.allowLocalPush,
                                         root: root.map { ChannelRootVersion(version: $0.version, published: $0.published, expires: $0.expires) },
                                         now: MonotonicClock.now())
        if let stopped {
            var random = SystemRandomNumberGenerator()
            state.handle(.stopped(reason: stopped.description), wall: wallClock(), now: MonotonicClock.now(), random: &random)
            logger.error("channel \(settings.url) cannot be followed: \(stopped); the kiosk keeps showing its stored configuration")
        }
        self.verifier = Mutex(verifier)
        self.rootVerifier = rootVerifier
        self.rootTrust = Mutex(trust)
        self.state = Mutex(state)
    }

    /// `handler` gets each newly stored configuration, to hand to the kiosk
    /// (`RemoteKiosk.apply`, the path pushes take).
    public func onApply(_ handler: @escaping @Sendable (StoredConfiguration) -> Void) {
        applyHandler.withLock { $0 = StoredCallback(handler) }
    }

    /// `handler` gets the channel's proof-of-play URL (`plays.upload` in the
    /// manifest, nil when it names none) with each version applied.
    public func onPlaysUpload(_ handler: @escaping @Sendable (String?) -> Void) {
        playsUploadHandler.withLock { $0 = StoredCallback(handler) }
    }

    /// Leaves each version applied, as signed, for the board's update helper
    /// (`vitrine update`), which installs the package version it names.
    public func requestUpdates(through outbox: UpdateRequestOutbox) {
        updateRequests.withLock { $0 = outbox }
    }

    /// The proof-of-play URL of the version applied before this start, from the record.
    public var recordedPlaysUpload: String? { snapshot.applied?.playsUpload }

    /// With `channel.root`: when the trust in the root that signs ends; nil without, or before the first poll.
    public var rootExpiry: WallInstant? {
        guard rootVerifier != nil else { return nil }
        let root = snapshot.root
        return rootTrust.withLock { $0.expiry(of: root) }
    }

    /// The follower's state now, for status and metrics.
    public var snapshot: ChannelFollowerState { state.withLock { $0 } }

    /// Polls until the task is cancelled (or at once returns when `off`).
    public func run() async {
        while !Task.isCancelled {
            let now = MonotonicClock.now()
            guard let next = state.withLock({ $0.nextPoll }) else { return }
            if now >= next {
                await poll()
                continue
            }
            // Nothing wakes this sleep early, so it is cancelled only at shutdown:
            // not the repeated cancelled sleeps whose timers URLImageFetcher avoids.
            try? await Task.sleep(for: next - now)
        }
    }

    /// The root stored by an earlier start, verified again with today's root
    /// keys (which may have changed in the local file); nil when there is none.
    static func storedRoot(directory: String, verifier: ChannelRootVerifier, logger: Logger) -> ChannelRoot? {
        let path = directory + "/channel-" + ChannelRoot.fileName
        guard let bytes = try? FileIO.read(path, limit: rootLimit) else { return nil }
        do {
            let signature = try FileIO.read(directory + "/channel-" + ChannelRoot.signatureFileName, limit: signatureLimit)
            return try verifier.verify(root: bytes, signature: signature, currentVersion: 0)
        } catch {
            logger.error("ignoring \(path): \(error); channel.keys sign until the origin's root.json is taken again")
            return nil
        }
    }

    /// One poll: fetch, verify, download, apply; every outcome goes to the state.
    func poll() async {
        guard verifier.withLock({ $0 }) != nil, case .checking = record(.pollStarted).activity else { return }
        if let rootVerifier, await !mayUpdate(rootVerifier) { return }
        guard let verifier = verifier.withLock({ $0 }) else { return }
        let manifestURL = settings.url(of: ChannelManifest.fileName)
        let signatureURL = settings.url(of: ChannelManifest.signatureFileName)
        let (previous, applied, reapply) = (lastPair.withLock { $0 }, snapshot.applied, snapshot.reapplyAllowed)
        // Without the bytes in memory (after a restart), the applied version's
        // ETags still allow a 304, which then means "the version applied"; not
        // after a root rotation, when that version was signed by replaced keys.
        let knownETags = previous.map { ($0.manifestETag, $0.signatureETag) }
            ?? (reapply || !snapshot.appliedUnderCurrentRoot ? (nil, nil) : (applied?.manifestETag, applied?.signatureETag))

        let manifestAnswer: ChannelOrigin.Answer
        let signatureAnswer: ChannelOrigin.Answer
        do {
            // The manifest first, then the signature: the publisher renames them in
            // that order, so a pair fetched across a publish is rare (docs/fleet.md).
            manifestAnswer = try await origin.get(manifestURL, ifNoneMatch: knownETags.0, limit: Self.manifestLimit)
            signatureAnswer = try await origin.get(signatureURL, ifNoneMatch: knownETags.1, limit: Self.signatureLimit)
        } catch let error as ChannelOrigin.Failure {
            return fail(error.description)
        } catch {
            return fail("\(manifestURL): larger than \(Self.manifestLimit) bytes (or its signature than \(Self.signatureLimit))")
        }

        if case .notModified = manifestAnswer, case .notModified = signatureAnswer, previous?.settled ?? true {
            record(.unchanged)
            return
        }
        var pair: FetchedPair
        switch manifestAnswer {
        case .missing:
            return fail("\(manifestURL): the origin has no channel.json (404)")
        case .fetched(let bytes, let etag):
            pair = FetchedPair(manifest: bytes, manifestETag: etag, signature: [], signatureETag: nil, settled: false)
        case .notModified:
            guard let previous else {
                // 304 to a persisted ETag, but the signature changed: fetch the manifest whole.
                lastPair.withLock { $0 = nil }
                return await pollWithoutETags(verifier)
            }
            pair = FetchedPair(manifest: previous.manifest, manifestETag: previous.manifestETag, signature: [], signatureETag: nil,
                               settled: false)
        }
        switch signatureAnswer {
        case .missing:
            lastPair.withLock { $0 = pair }
            record(.refused(.badSignature("\(ChannelManifest.signatureFileName) is missing at \(signatureURL): the manifest is unsigned"),
                            version: nil))
            return
        case .fetched(let bytes, let etag):
            pair.signature = bytes
            pair.signatureETag = etag
        case .notModified:
            guard let previous else {
                lastPair.withLock { $0 = nil }
                return await pollWithoutETags(verifier)
            }
            pair.signature = previous.signature
            pair.signatureETag = previous.signatureETag
        }
        lastPair.withLock { $0 = pair }
        await decide(pair, verifier: verifier)
    }

    /// The rare poll where one file answered 304 to an ETag remembered from
    /// before a restart and the other changed: the pair is fetched again whole.
    func pollWithoutETags(_ verifier: ChannelVerifier) async {
        let manifestURL = settings.url(of: ChannelManifest.fileName)
        let signatureURL = settings.url(of: ChannelManifest.signatureFileName)
        do {
            guard case .fetched(let manifest, let manifestETag) = try await origin.get(manifestURL, ifNoneMatch: nil, limit: Self.manifestLimit) else {
                return fail("\(manifestURL): the origin has no channel.json (404)")
            }
            guard case .fetched(let signature, let signatureETag) = try await origin.get(signatureURL, ifNoneMatch: nil, limit: Self.signatureLimit) else {
                record(.refused(.badSignature("\(ChannelManifest.signatureFileName) is missing at \(signatureURL): the manifest is unsigned"),
                                version: nil))
                return
            }
            let pair = FetchedPair(manifest: manifest, manifestETag: manifestETag, signature: signature, signatureETag: signatureETag,
                                   settled: false)
            lastPair.withLock { $0 = pair }
            await decide(pair, verifier: verifier)
        } catch let error as ChannelOrigin.Failure {
            fail(error.description)
        } catch {
            fail("\(manifestURL): larger than \(Self.manifestLimit) bytes (or its signature than \(Self.signatureLimit))")
        }
    }

    /// The wall clock, unless it is behind what the kiosk knows has happened
    /// (the applied version's publication, this release's date): then that
    /// (`ChannelClock`), said once in the log until the clock catches up.
    func trustedNow() -> WallInstant {
        let clock = wallClock()
        let floors = snapshot.clockFloors + [WallInstant(secondsSinceEpoch: VitrineVersion.releaseFloorSecondsSinceEpoch)]
        let (now, behind) = ChannelClock.trustedNow(clock: clock, floors: floors)
        let wasBehind = clockBehind.withLock { state in
            defer { state = behind }
            return state
        }
        if behind && !wasBehind {
            logger.warning("channel \(settings.url): the clock says \(RFC3339.format(clock)), before \(RFC3339.format(now)), which has already happened; judging expiry by \(RFC3339.format(now)) until the clock is set")
        } else if !behind && wasBehind {
            logger.notice("channel \(settings.url): the clock is set again (\(RFC3339.format(clock)))")
        }
        return now
    }

    /// Verifies the pair and, for a newer version, downloads and applies it.
    func decide(_ pair: FetchedPair, verifier: ChannelVerifier) async {
        let verified: VerifiedManifest
        do {
            // The signature first: nothing in the manifest is parsed, let alone
            // used, before it verifies with a trusted key (ChannelVerifier).
            verified = try verifier.verify(manifest: pair.manifest, signature: pair.signature,
                                           appliedVersion: snapshot.versionToExceed, now: trustedNow())
        } catch {
            if case .notNewer(let version, _) = error, version == snapshot.applied?.version {
                lastPair.withLock { $0?.settled = true }
            }
            record(.refused(error, version: Self.version(refusedBy: error, manifest: pair.manifest)))
            return
        }
        // This kiosk's part: the channel's configuration, its group's playlist,
        // its device's values. Only those pictures are downloaded.
        let manifest: ChannelManifest
        do {
            manifest = try verified.manifest.selecting(group: settings.group, device: settings.device)
        } catch {
            record(.refused(.malformed(error), version: verified.manifest.version))
            return
        }
        let missing = manifest.picturesToShow.filter { !store.assets.contains($0.sha256) }
        record(.accepted(version: manifest.version, missing: missing.count))

        for blob in missing {
            guard await download(blob, of: manifest) else { return }
            record(.blobStored)
        }
        // Every blob this version shows is stored: a partial download left is of
        // one no version wants now.
        try? await NIOThreadPool.singleton.runIfActive { [store] in store.assets.removePartialDownloads(keyedBy: Self.partialKeyPrefix) }
        await apply(manifest, pair: pair)
    }

    /// The version a refusal concerns. Read from the manifest only when its
    /// signature verified (an expired or unusable manifest); never from bytes
    /// whose signature did not.
    static func version(refusedBy refusal: ChannelRefusal, manifest: [UInt8]) -> UInt64? {
        switch refusal {
        case .notNewer(let version, _): version
        case .expired: try? ChannelManifest.parse(manifest).version
        case .badSignature, .unknownKey, .malformed, .blobMismatch, .blobUnusable, .rootExpired, .clockUntrusted: nil
        }
    }
}
