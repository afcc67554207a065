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
    public let settings: ChannelConfiguration
    private let store: StateStore
    private let origin: ChannelOrigin
    /// Nil when no trusted key could be read: then the follower is `off`.
    /// Replaced when a newer `root.json` names other signing keys.
    private let verifier: Mutex<ChannelVerifier?>
    /// The offline root keys (`channel.root`); nil when none are configured.
    private let rootVerifier: ChannelRootVerifier?
    /// The ETags of the `root.json` and signature taken last (not persisted:
    /// after a restart the first poll fetches them whole).
    private let rootETags = Mutex<(root: String?, signature: String?)>((nil, nil))
    /// The root's version floor, lifetime and the last trusted time (`ChannelRootTrust`), kept in the state directory.
    private let rootTrust: Mutex<ChannelRootTrust>
    /// Whether the system clock is synchronised (systemd-timesyncd's flag file).
    private let clockSynchronized: @Sendable () -> Bool
    /// systemd-timesyncd creates this once it has set the clock from the network.
    public static let timeSyncFlag = "/run/systemd/timesync/synchronized"
    private var rootTrustPath: String { store.directory + "/" + ChannelRootTrust.fileName }
    private let logger: Logger
    private let wallClock: @Sendable () -> WallInstant
    private let state: Mutex<ChannelFollowerState>
    private let lastPair = Mutex<FetchedPair?>(nil)
    private let clockBehind = Mutex(false)
    /// Boxed: a bare function value in a `Mutex` gains two thunks at each read (`StoredCallback`).
    private let applyHandler = Mutex<StoredCallback<StoredConfiguration>?>(nil)
    private let playsUploadHandler = Mutex<StoredCallback<String?>?>(nil)
    private var recordPath: String { store.directory + "/" + ChannelFollowRecord.fileName }
    /// The root taken last, exactly as the origin served it (and its signature),
    /// verified again at each start.
    private var rootPath: String { store.directory + "/channel-" + ChannelRoot.fileName }
    private var rootSignaturePath: String { store.directory + "/channel-" + ChannelRoot.signatureFileName }

    /// The largest `channel.json` and `channel.json.sig` accepted.
    static let manifestLimit = 8 << 20
    static let signatureLimit = 4096
    /// The largest `root.json` accepted: a few dozen keys.
    static let rootLimit = 64 << 10

    /// The manifest and signature fetched last, with their ETags, so that a
    /// poll answered 304 can be decided without fetching them again.
    private struct FetchedPair: Sendable {
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
    private let pictures: any PictureInspector

    /// - Parameters:
    ///   - policy: the poll policy; nil: the one `settings` asks for.
    ///   - wallClock: the wall time, for expiry and the status (tests pass their own).
    ///   - clockSynchronized: whether the system clock is synchronised (tests pass their own).
    public init(settings: ChannelConfiguration, store: StateStore, pictures: any PictureInspector, logger: Logger, policy: ChannelPollPolicy? = nil,
                wallClock: @escaping @Sendable () -> WallInstant = { WallClock.now() },
                clockSynchronized: @escaping @Sendable () -> Bool = { access(ChannelFollower.timeSyncFlag, F_OK) == 0 }) {
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
    private static func storedRoot(directory: String, verifier: ChannelRootVerifier, logger: Logger) -> ChannelRoot? {
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

    /// With `channel.root` set: takes the origin's `root.json` when it is newer
    /// than the one taken, replacing the signing keys. False when the poll
    /// cannot go on (the origin could not be reached). A missing root.json is
    /// fine (none published yet); a refused one is logged and the keys stay.
    private func refreshRoot(_ rootVerifier: ChannelRootVerifier, now: WallInstant) async -> Bool {
        let rootURL = settings.url(of: ChannelRoot.fileName)
        let signatureURL = settings.url(of: ChannelRoot.signatureFileName)
        let etags = rootETags.withLock { $0 }
        let rootAnswer: ChannelOrigin.Answer
        let signatureAnswer: ChannelOrigin.Answer
        do {
            rootAnswer = try await origin.get(rootURL, ifNoneMatch: etags.root, limit: Self.rootLimit)
            if case .missing = rootAnswer { return true }
            signatureAnswer = try await origin.get(signatureURL, ifNoneMatch: etags.signature, limit: Self.signatureLimit)
        } catch let error as ChannelOrigin.Failure {
            fail(error.description)
            return false
        } catch {
            fail("\(rootURL): larger than \(Self.rootLimit) bytes (or its signature than \(Self.signatureLimit))")
            return false
        }
        guard case .fetched(let bytes, let rootETag) = rootAnswer, case .fetched(let signature, let signatureETag) = signatureAnswer else {
            // Both unchanged (the root taken, or one refused and logged already),
            // or one changed across a rotation in progress: the next poll sees both.
            if case .notModified = rootAnswer, case .notModified = signatureAnswer { return true }
            rootETags.withLock { $0 = (nil, nil) }
            return true
        }
        // Below the floor never; the floor's own version again if the stored copy was lost.
        let current = max(snapshot.root?.version ?? 0, rootTrust.withLock { $0.lowestAcceptableVersion } - 1)
        let root: ChannelRoot
        do {
            root = try rootVerifier.verify(root: bytes, signature: signature, currentVersion: current, now: now)
        } catch {
            if case .notNewer(let version, _) = error, version == current {
                rootETags.withLock { $0 = (rootETag, signatureETag) }
            } else {
                // Logged once per pair served: its ETags stand until it changes.
                rootETags.withLock { $0 = (rootETag, signatureETag) }
                logger.error("channel \(settings.url): \(error); the signing keys stay as they are")
            }
            return true
        }
        let taken = ChannelRootVersion(version: root.version, published: root.published, expires: root.expires)
        let trust = rootTrust.withLock { trust in
            var after = trust
            after.took(taken, at: now)
            return after
        }
        do {
            try await NIOThreadPool.singleton.runIfActive { [rootPath, rootSignaturePath, rootTrustPath] in
                // The signature first: a root without its signature is ignored at the
                // next start, a signature without its root too, so either order is
                // safe against a crash; this one never pairs a new root with an old signature.
                try FileIO.writeAtomically(signature, to: rootSignaturePath, mode: 0o640)
                try FileIO.writeAtomically(bytes, to: rootPath, mode: 0o640)
                // Then the floor: a crash before it leaves the root stored, which is the floor again at the next start.
                try FileIO.writeAtomically(trust.json, to: rootTrustPath, mode: 0o640)
            }
        } catch {
            // Not taken: a root that would not survive a restart would let the old
            // keys back in after it. Tried again at the next poll.
            fail("cannot store root version \(root.version) in \(store.directory): \(error)")
            return false
        }
        rootTrust.withLock { $0 = trust }
        verifier.withLock { $0 = ChannelVerifier(trustedKeys: root.keys) }
        rootETags.withLock { $0 = (rootETag, signatureETag) }
        // The pair fetched under the old keys is decided again under the new ones.
        lastPair.withLock { $0 = nil }
        record(.rootTaken(taken))
        if root.expires == nil {
            logger.warning("channel \(settings.url): root version \(root.version) has no expiry; trusted until \(RFC3339.format(now + ChannelRoot.defaultLifetimeSeconds)) (a year from now): sign a newer root with vitrine channel rotate")
        }
        return true
    }

    /// With `channel.root` set, before any manifest: whether the clock can be
    /// believed, then the origin's root (a newer one is taken), then whether
    /// the trusted root has expired (`ChannelRootTrust`). False when no update
    /// may be taken now: the reason is a refusal the status reports, and the
    /// screen keeps what it shows. A root.json the origin does not have (404)
    /// is fine only until the trusted root expires.
    private func mayUpdate(_ rootVerifier: ChannelRootVerifier) async -> Bool {
        let clock = wallClock()
        let synchronized = clockSynchronized()
        let buildDate = WallInstant(secondsSinceEpoch: VitrineVersion.releaseFloorSecondsSinceEpoch)
        func hold() -> ChannelRefusal? {
            let root = snapshot.root
            return rootTrust.withLock { $0.hold(clock: clock, buildDate: buildDate, clockSynchronized: synchronized, root: root) }
        }
        // The clock first: without it neither the root's expiry nor a fetched root's can be judged.
        if let held = hold(), case .clockUntrusted = held {
            record(.refused(held, version: nil))
            return false
        }
        let (changed, trust) = rootTrust.withLock { trust in (trust.believe(clock, clockSynchronized: synchronized), trust) }
        if changed {
            do {
                try await NIOThreadPool.singleton.runIfActive { [rootTrustPath] in
                    try FileIO.writeAtomically(trust.json, to: rootTrustPath, mode: 0o640)
                }
            } catch {
                // Kept in memory; a lost record costs at most the last trusted time or a root's first day.
                logger.warning("channel \(settings.url): cannot store \(rootTrustPath): \(error)")
            }
        }
        guard await refreshRoot(rootVerifier, now: clock) else { return false }
        if let held = hold() {
            record(.refused(held, version: nil))
            return false
        }
        return true
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
    private func pollWithoutETags(_ verifier: ChannelVerifier) async {
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
    private func trustedNow() -> WallInstant {
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
    private func decide(_ pair: FetchedPair, verifier: ChannelVerifier) async {
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
        await apply(manifest, pair: pair)
    }

    /// Downloads one blob, checks it against the manifest and stores it as the
    /// asset of its SHA-256. False (with the refusal or error recorded) if not.
    private func download(_ blob: ChannelBlob, of manifest: ChannelManifest) async -> Bool {
        let url = settings.url(of: blob.path)
        let bytes: [UInt8]
        do {
            switch try await origin.get(url, ifNoneMatch: nil, limit: Int(clamping: blob.size)) {
            case .fetched(let body, _): bytes = body
            case .missing, .notModified:
                fail("\(url): the origin does not have this picture of version \(manifest.version) (yet)")
                return false
            }
        } catch is ChannelOrigin.TooLarge {
            record(.refused(.blobMismatch(.tooLarge(blob)), version: manifest.version))
            return false
        } catch {
            fail("\(error)")
            return false
        }
        do {
            try blob.check(bytes)
        } catch {
            // Never stored: the asset store holds only what the manifest promised.
            record(.refused(.blobMismatch(error), version: manifest.version))
            return false
        }
        let maxPixels = manifest.configuration.decode.maxPixels
        let image: InspectedImage
        do {
            let pictures = self.pictures
            image = try await NIOThreadPool.singleton.runIfActive { try pictures.inspect(bytes: bytes, named: url, maxPixels: maxPixels) }
        } catch let failure as ImageInspection.Failure {
            let reason: String
            switch failure { case .notAnImage(let text), .undecodable(let text), .overPixelLimit(let text): reason = text }
            record(.refused(.blobUnusable(path: blob.path, reason: reason), version: manifest.version))
            return false
        } catch {
            fail("cannot inspect \(url): \(error)")
            return false
        }
        do {
            let name = "channel v\(manifest.version) \(blob.sha256.prefix(12))"
            // blob.check hashed the bytes against the manifest's SHA-256: the asset's id.
            let digest = blob.sha256
            _ = try await NIOThreadPool.singleton.runIfActive { [store] in try store.assets.add(bytes, verifiedDigest: digest, image: image, name: name) }
        } catch {
            fail("cannot store \(url) in \(store.assets.directory): \(error)")
            return false
        }
        return true
    }

    /// Stores the version and hands it to the kiosk.
    ///
    /// The order is what makes a SIGKILL at any moment leave the previous
    /// version or the new one, never a mix:
    /// 1. every picture is in the asset store already, each written to a
    ///    temporary file, fsynced and renamed (AssetStore), so config.json
    ///    never names a picture that is not durable;
    /// 2. config.json is replaced (StateStore: config.previous.json, then
    ///    config.json, each temporary file, fsync, rename, fsync of the
    ///    directory); that rename is the switch;
    /// 3. only then is the version recorded (channel-state.json, the same way).
    /// Killed between 2 and 3, the kiosk restarts on the new configuration with
    /// the old version recorded; the configuration's version differs from the
    /// record's, so the same version is accepted once more and recorded, nothing
    /// older. Recording first would be worse: killed before 2, the kiosk would
    /// believe the version applied and never apply it.
    ///
    /// `manifest` is this kiosk's selection (`ChannelManifest.selecting`). A
    /// version whose selection stores the same configuration (another group's
    /// playlist changed) is recorded as applied but not handed to the display.
    /// The device's rotation goes to device.json, and like its touch
    /// calibration takes effect at the next start.
    private func apply(_ manifest: ChannelManifest, pair: FetchedPair) async {
        let configuration = manifest.configurationWithAssets
        let rotation = settings.device.flatMap { manifest.devices[$0]?.rotation }
        let change: StateStore.Change
        let restartFor: [String]
        do {
            (change, restartFor) = try await NIOThreadPool.singleton.runIfActive { [store] in
                let touchBefore = store.current.configuration.touch
                let change = try store.replace(with: configuration, ifMatch: nil)
                var restartFor = try store.setDeviceRotation(rotation) ? ["output.rotation \(rotation.map(String.init) ?? "from the local file")"] : []
                let touch = change.current.configuration.touch
                if touch.calibration != touchBefore.calibration || touch.devices != touchBefore.devices { restartFor.append("touch calibration") }
                return (change, restartFor)
            }
        } catch {
            record(.applyFailed("cannot store version \(manifest.version) in \(store.directory): \(error)"))
            return
        }
        if !restartFor.isEmpty {
            logger.notice("channel \(settings.url): version \(manifest.version) sets \(restartFor.joined(separator: " and ")) for this device\(settings.device.map { " (\($0))" } ?? ""); it takes effect at the next start of vitrine")
        }
        let applied = AppliedChannelVersion(
            version: manifest.version, published: manifest.published, expires: manifest.expires, appliedAt: wallClock(),
            manifestETag: pair.manifestETag, signatureETag: pair.signatureETag, configurationVersion: change.current.version,
            playsUpload: manifest.playsUpload, rootVersion: snapshot.root?.version ?? 0)
        let record = ChannelFollowRecord(url: settings.url(of: ""), applied: applied)
        do {
            try await NIOThreadPool.singleton.runIfActive { [recordPath] in try FileIO.writeAtomically(record.json, to: recordPath, mode: 0o640) }
        } catch {
            // The configuration is stored and shows; only the record is missing, so
            // after a restart this version is accepted once more (see above).
            logger.error("cannot record channel version \(manifest.version) in \(recordPath): \(error)")
        }
        if change.changed { applyHandler.withLock { $0 }?.call(change.current) }
        playsUploadHandler.withLock { $0 }?.call(manifest.playsUpload)
        lastPair.withLock { $0?.settled = true }
        self.record(.applied(applied))
    }

    /// The version a refusal concerns. Read from the manifest only when its
    /// signature verified (an expired or unusable manifest); never from bytes
    /// whose signature did not.
    private static func version(refusedBy refusal: ChannelRefusal, manifest: [UInt8]) -> UInt64? {
        switch refusal {
        case .notNewer(let version, _): version
        case .expired: try? ChannelManifest.parse(manifest).version
        case .badSignature, .unknownKey, .malformed, .blobMismatch, .blobUnusable, .rootExpired, .clockUntrusted: nil
        }
    }

    private func fail(_ message: String) {
        record(.unreachable(message))
    }

    /// Hands `event` to the state, logs what is news, and returns the state after.
    @discardableResult
    private func record(_ event: ChannelFollowerEvent) -> ChannelFollowerState {
        let wall = wallClock()
        let now = MonotonicClock.now()
        var random = SystemRandomNumberGenerator()
        let (isNews, after) = state.withLock { state -> (Bool, ChannelFollowerState) in
            let isNews = state.handle(event, wall: wall, now: now, random: &random)
            return (isNews, state)
        }
        guard isNews else { return after }
        let keeping = after.applied.map { "keeping version \($0.version)" } ?? "keeping the configuration on screen"
        let next = after.nextPoll.map { " next attempt in \(Self.seconds($0 - now))" } ?? ""
        switch event {
        case .refused:
            if let refused = after.lastRefusal {
                let version = refused.version.map { " version \($0)" } ?? ""
                logger.error("channel \(settings.url): refused\(version): \(refused.refusal) [\(refused.refusal.code)]; \(keeping)")
            }
        case .unchanged:
            if let refused = after.lastRefusal {
                logger.error("channel \(settings.url): version \(refused.version ?? 0) on screen: \(refused.refusal) [\(refused.refusal.code)]; \(keeping)")
            }
        case .unreachable(let message), .applyFailed(let message):
            logger.warning("channel \(settings.url): \(message); \(keeping);\(next)")
        case .applied(let version):
            logger.notice("channel \(settings.url): applied version \(version.version) (published \(RFC3339.format(version.published))); the display switches at its next slide boundary")
        case .stopped(let reason):
            logger.error("channel \(settings.url): stopped following: \(reason)")
        case .rootTaken(let root):
            logger.notice("channel \(settings.url): took root version \(root.version) (published \(RFC3339.format(root.published))): manifests are checked with its keys from now on, and versions count again from there")
        case .pollStarted, .accepted, .blobStored:
            break
        }
        return after
    }

    private static func seconds(_ duration: Duration) -> String {
        fixedPoint(duration.secondsValue, decimals: 1) + "s"
    }
}
