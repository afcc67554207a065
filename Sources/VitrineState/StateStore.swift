import FoundationEssentials
import Glibc
import Logging
import Synchronization
import VitrineConfig
import VitrineCore
import VitrineRuntime
import VitrineSystem
import VitrineAPI

/// A configuration as the kiosk keeps it: the value, its canonical JSON and
/// its version (the ETag the API hands out).
public struct StoredConfiguration: Sendable {
    public var configuration: KioskConfiguration
    public var json: [UInt8]
    public var version: String
}

/// The kiosk's state directory (default /var/lib/vitrine):
///
///     config.json            the configuration on screen (canonical JSON)
///     config.previous.json   the one before it, for rollback
///     seed.sha256            digest of the configuration file that last seeded the state
///     api-token              the generated API token (mode 0600)
///     assets/                uploaded and downloaded pictures (AssetStore)
///     downloads.json         URL slides and the assets holding them (URLImageFetcher)
///     device.json            the output rotation a channel sets for this device ({} for none)
///
/// Every file is replaced with `FileIO.writeAtomically` (temporary file, fsync,
/// rename, fsync of the directory), so a power cut leaves the old or the new
/// file. A replacement writes config.previous.json before config.json: a crash
/// in between leaves both holding the old configuration, which is still valid.
///
/// Which configuration wins at start: the file given on the command line seeds
/// the state on first start. After that the stored configuration wins (pushes
/// survive restarts), unless what the file says to show changed since it last
/// seeded: an edited playlist or setting is the operator's newer intent, so it
/// becomes current and the stored one becomes the rollback target. Edits to
/// `api`, `output` or comments alone do not count (`showDigest`), so rotating
/// the token in the file keeps a pushed playlist.
///
/// Pushes are serialised by one lock, so concurrent ones apply one at a time
/// and `If-Match` sees each result.
public final class StateStore: Sendable {
    public let directory: String
    public let assets: AssetStore
    /// The local file's settings that never come from a push: `api` and `output`,
    /// and where paths lead on this machine.
    private let local: KioskConfiguration
    /// The local file's own `output.rotation`, which `local` has unless a
    /// channel set one for this device (device.json).
    private let fileRotation: Int
    private let logger: Logger
    /// The system calls every file of the state directory goes through (a test's faults, or `.live`).
    package let system: SystemCalls
    private let state: Mutex<(current: StoredConfiguration, previous: StoredConfiguration?)>
    /// What holds assets besides the configurations (an emergency override), asked under the state lock.
    private let assetHolders = Mutex<[@Sendable () -> AssetHold?]>([])

    public enum Origin: String, Sendable {
        case seeded = "seeded from the configuration file"
        case stored = "the stored configuration"
        case fileChanged = "the configuration file, which changed since it last seeded"
        case storedAfterInvalidFile = "the stored configuration (the configuration file is not valid)"
    }

    /// How the current configuration was chosen at start.
    public let origin: Origin

    /// Opens (creating if need be) the state in `directory` and picks the
    /// configuration to start with.
    /// - Parameters:
    ///   - seed: the command-line configuration file's parse (an error when it
    ///     is not valid; then the stored state must exist).
    ///   - system: the system calls that write the configurations.
    public init(directory: String, seedFile: String, seed: Result<KioskConfiguration, ConfigError>,
                logger: Logger, system: SystemCalls = .live) throws {
        self.directory = directory
        self.logger = logger
        self.system = system
        // A read-only state directory (a read-only root or overlay protecting an
        // SD card, a full-disk remount) is no reason for a dark screen: the kiosk
        // shows what is stored there, or the configuration file, and refuses
        // changes with 503 until it can store them.
        var readOnly: String?
        do {
            try Self.makeDirectories(directory, mode: 0o750)
            guard access(directory, W_OK) == 0 else { throw SystemError("access", subject: directory) }
        } catch let error as SystemError where [.readOnlyFileSystem, .permissionDenied, .notPermitted].contains(error.errno) {
            readOnly = "\(directory) cannot be written (\(error.reason))"
            logger.warning("the state directory \(directory) cannot be written (\(error)): showing the configuration stored there, or the configuration file, and refusing changes until it can be written")
        } catch {
            throw StateDirectoryError(directory: directory, reason: "\(error)")
        }
        readOnlyReason = readOnly
        // The floor is the local file's (api.minimumFreeSpace), as the rest of api is.
        let floor = DiskFloor(minimumFreeBytes: (try? seed.get())?.api.minimumFreeBytes ?? APIConfiguration().minimumFreeBytes)
        assets = try AssetStore(directory: directory + "/assets", logger: logger, floor: floor, readOnlyReason: readOnly, system: system)
        if readOnly == nil { Self.removeStaleTemporaries(in: directory, system: system) }

        let seedDigest = (try? seed.get()).map(Self.showDigest)
        let recordedSeed = (try? FileIO.read(directory + "/seed.sha256")).map { String(decoding: $0, as: UTF8.self) }
        let seedConfiguration = try? seed.get()
        var local = seedConfiguration ?? KioskConfiguration()
        local.baseDirectory = seedConfiguration?.baseDirectory ?? directoryOfPath(seedFile)
        local.assetDirectory = assets.directory
        fileRotation = local.output.rotation
        // The rotation a channel set for this device, read at start, when the
        // display's rotation is set. Only while the file follows a channel as a device.
        if local.channel?.device != nil, let rotation = Self.deviceRotation(in: directory) { local.output.rotation = rotation }
        self.local = local

        let stored = Self.load(directory + "/config.json", local: local, logger: logger)
            ?? Self.load(directory + "/config.previous.json", local: local, logger: logger)
        let previous = Self.load(directory + "/config.previous.json", local: local, logger: logger)

        switch (stored, seedConfiguration) {
        case (nil, nil):
            throw seed.failure ?? ConfigError(source: seedFile, issues: [ConfigIssue(path: "", message: "cannot be read")])
        case (let stored?, nil):
            origin = .storedAfterInvalidFile
            state = Mutex((stored, previous))
        case (nil, let fresh?):
            origin = .seeded
            let current = Self.stored(fresh, local: local)
            if readOnly == nil {
                try Self.write(current, to: directory + "/config.json", system: system)
                try FileIO.writeAtomically(Array((seedDigest ?? "").utf8), to: directory + "/seed.sha256")
            }
            state = Mutex((current, nil))
        case (let stored?, let fresh?):
            if let seedDigest, seedDigest != recordedSeed {
                origin = .fileChanged
                let current = Self.stored(fresh, local: local)
                // Read-only: the file wins for this run, as it would have, without being recorded.
                if readOnly == nil {
                    if current.version != stored.version {
                        try Self.write(stored, to: directory + "/config.previous.json", system: system)
                        try Self.write(current, to: directory + "/config.json", system: system)
                    }
                    try FileIO.writeAtomically(Array(seedDigest.utf8), to: directory + "/seed.sha256")
                }
                state = Mutex((current, current.version != stored.version ? stored : previous))
            } else {
                origin = .stored
                state = Mutex((stored, previous))
            }
        }
    }

    /// Why nothing can be stored now (the directory is read-only); nil when it can.
    public let readOnlyReason: String?

    /// Throws `StateStoreRefusal.readOnly` when the state directory cannot be written.
    package func requireWritable() throws {
        guard let readOnlyReason else { return }
        throw StateStoreRefusal.readOnly(reason: readOnlyReason)
    }

    public var current: StoredConfiguration { state.withLock { $0.current } }
    public var previous: StoredConfiguration? { state.withLock { $0.previous } }

    /// The outcome of a replacement or rollback.
    public struct Change: Sendable {
        public var current: StoredConfiguration
        public var previousVersion: String
        public var changed: Bool
    }

    /// Problems that make a pushed configuration unacceptable beyond its own
    /// validity: settings only the local file may make, and paths that leave
    /// the places a push may name.
    /// - Parameters:
    ///   - sections: the pushed document's top-level keys.
    ///   - named: the pictures whose paths to check, at their key paths; nil:
    ///     every one `pushed` names (a push to one output checks its slides alone).
    public func pushIssues(_ pushed: KioskConfiguration, sections: Set<String>,
                           named: [(keyPath: String, path: String)]? = nil) -> [ConfigIssue] {
        var issues: [ConfigIssue] = []
        if sections.contains("api") {
            issues.append(ConfigIssue(path: "api", message: "can be set only in the kiosk's local configuration file, not pushed"))
        }
        for section in ["channel", "plays"] where sections.contains(section) {
            issues.append(ConfigIssue(path: section, message: "can be set only in the kiosk's local configuration file, not pushed"))
        }
        if sections.contains("output") && pushed.output != local.output {
            issues.append(ConfigIssue(path: "output", message: "can be changed only in the kiosk's local configuration file; push the output section as GET /api/v1/config returns it"))
        }
        if sections.contains("outputs") && pushed.outputs != local.outputs {
            issues.append(ConfigIssue(path: "outputs", message: "can be changed only in the kiosk's local configuration file; leave it out, or push it as GET /api/v1/config returns it"))
        }
        issues += Self.localOutputsIssues(in: pushed, local: local)
        func check(_ path: String, at keyPath: String) {
            switch SlideSource(path) {
            case .url:
                break
            case .asset(let id):
                if !assets.contains(id) { issues.append(ConfigIssue(path: keyPath, message: "asset \(id) has not been uploaded (POST /api/v1/assets)")) }
            case .file(let file):
                if file.hasPrefix("/") {
                    issues.append(ConfigIssue(path: keyPath, message: "a pushed configuration may not name an absolute path (\(file)); upload the picture and use its asset: reference"))
                } else if file.split(separator: "/").contains("..") {
                    issues.append(ConfigIssue(path: keyPath, message: "must not contain .. (\(file)): a pushed path stays inside the configuration directory"))
                }
            }
        }
        // Every slide, the schedule's playlists' too, and the placeholder.
        for (keyPath, path) in named ?? pushed.pictures { check(path, at: keyPath) }
        return issues
    }

    /// What the local file's `outputs` names that `pushed` does not have (a
    /// playlist), said at the key paths of the local file.
    static func localOutputsIssues(in pushed: KioskConfiguration, local: KioskConfiguration) -> [ConfigIssue] {
        guard let layout = local.outputs else { return [] }
        var combined = pushed
        combined.output = local.output
        return ConfigLoader.outputReferenceIssues(layout, in: combined).map { issue in
            // An output's playlist is the local file's to name; an entry's outputs are checked against the local outputs.
            let why = issue.path.hasSuffix(".playlist")
                ? "which the kiosk's local configuration file shows there: keep that playlist in schedule.playlists"
                : "against the outputs the kiosk's local configuration file lists"
            return ConfigIssue(path: issue.path, message: "\(issue.message), \(why)")
        }
    }

    /// Makes `pushed` the current configuration, unless `ifMatch` names another
    /// version than the current one (`StateStoreRefusal.versionChanged`). The caller has validated it;
    /// a channel's configuration is checked here against the local `outputs`.
    public func replace(with pushed: KioskConfiguration, ifMatch: String?) throws -> Change {
        try requireWritable()
        let next = try storable(pushed)
        return try commit(ifMatch: ifMatch) { _ in next }
    }

    /// Makes the configuration `derive` makes of the current one current,
    /// unless `ifMatch` names another version (412). `derive` runs under the
    /// state lock: a change to a part of the configuration (a push to one
    /// output, which replaces one playlist) is made to the configuration it
    /// replaces, never to one that another push has replaced since, whose
    /// other parts it would silently undo.
    public func replace(ifMatch: String?, deriving derive: (StoredConfiguration) throws -> KioskConfiguration) throws -> Change {
        try requireWritable()
        return try commit(ifMatch: ifMatch) { current in try storable(derive(current)) }
    }

    /// `pushed` as stored, once it has what the local `outputs` shows.
    private func storable(_ pushed: KioskConfiguration) throws -> StoredConfiguration {
        let outputsIssues = Self.localOutputsIssues(in: pushed, local: local)
        guard outputsIssues.isEmpty else {
            throw StateStoreRefusal.lacksLocalOutputs(issues: outputsIssues)
        }
        return Self.stored(pushed, local: local)
    }

    /// Under the state lock: `ifMatch` against the current version, then
    /// `make`'s configuration stored as the current one.
    private func commit(ifMatch: String?, _ make: (StoredConfiguration) throws -> StoredConfiguration) throws -> Change {
        try state.withLock { state in
            if let ifMatch, ifMatch != "*", ifMatch != state.current.version {
                throw StateStoreRefusal.versionChanged(since: ifMatch, current: state.current.version)
            }
            let next = try make(state.current)
            // Again under the lock: an asset deleted since the push was checked.
            let missing = Self.assetIDs(in: next.configuration, downloads: [:]).filter { !assets.contains($0) }
            if let id = missing.first {
                throw StateStoreRefusal.assetDeletedDuringChange(id: id)
            }
            let was = state.current
            guard next.version != was.version else { return Change(current: was, previousVersion: state.previous?.version ?? was.version, changed: false) }
            try Self.write(was, to: directory + "/config.previous.json", system: system)
            try Self.write(next, to: directory + "/config.json", system: system)
            state = (next, was)
            return Change(current: next, previousVersion: was.version, changed: true)
        }
    }

    /// Swaps the current and previous configurations.
    public func rollback() throws -> Change {
        try requireWritable()
        return try state.withLock { state in
            guard let previous = state.previous else {
                throw StateStoreRefusal.noPreviousConfiguration
            }
            let was = state.current
            // config.json first: a crash after it leaves previous == current, both valid.
            try Self.write(previous, to: directory + "/config.json", system: system)
            try Self.write(was, to: directory + "/config.previous.json", system: system)
            state = (previous, was)
            return Change(current: previous, previousVersion: was.version, changed: true)
        }
    }

    /// Deletes an asset unless the current or previous configuration names it,
    /// directly or as the download of one of its URLs (`downloads`: URL to asset id).
    /// Under the state lock, so a push cannot start using it half-way.
    public func deleteAsset(_ id: String, downloads: [String: String]) throws {
        try requireWritable()
        try state.withLock { state in
            guard assets.contains(id) else { throw StateStoreRefusal.noSuchAsset(id: id) }
            for (label, stored) in [("current", state.current), ("previous", state.previous)] {
                guard let stored else { continue }
                if Self.assetIDs(in: stored.configuration, downloads: downloads).contains(id) {
                    throw StateStoreRefusal.assetInUse(id: id, by: "the \(label) configuration (version \(stored.version))")
                }
            }
            if let hold = otherHolds().first(where: { $0.ids.contains(id) }) {
                throw StateStoreRefusal.assetInUse(id: id, by: hold.holder)
            }
            try assets.remove(id)
        }
    }

    /// Asset ids the configuration's slides and placeholder name.
    static func assetIDs(in c: KioskConfiguration, downloads: [String: String]) -> Set<String> {
        var ids = Set<String>()
        for path in c.allSlides.map(\.slide.path) + [c.placeholder].compactMap({ $0 }) {
            switch SlideSource(path) {
            case .asset(let id): ids.insert(id)
            case .url(let url): if let id = downloads[url] { ids.insert(id) }
            case .file: break
            }
        }
        return ids
    }

    /// Asset ids the current or previous configuration uses, or another holder (an override).
    public func assetsInUse(downloads: [String: String]) -> Set<String> {
        state.withLock { state in
            [state.current, state.previous].compactMap { $0 }.reduce(into: Set<String>()) {
                $0.formUnion(Self.assetIDs(in: $1.configuration, downloads: downloads))
            }.union(otherHolds().flatMap(\.ids))
        }
    }

    /// Removes the assets `retention` lets go: none that the current or previous
    /// configuration, or another holder (an override), uses; decided and done
    /// under the state lock, so a push naming an asset cannot race its removal.
    /// Returns the ids removed.
    @discardableResult
    public func collectUnusedAssets(downloads: [String: String], retention: AssetRetention = AssetRetention(),
                                    now: Double = Date().timeIntervalSince1970) -> [String] {
        guard readOnlyReason == nil else { return [] }
        return state.withLock { state in
            let inUse = [state.current, state.previous].compactMap { $0 }.reduce(into: Set<String>()) {
                $0.formUnion(Self.assetIDs(in: $1.configuration, downloads: downloads))
            }.union(otherHolds().flatMap(\.ids))
            let stored = assets.list().map { (id: $0.id, size: $0.size, added: $0.added) }
            var removed: [String] = []
            for id in retention.victims(stored, inUse: inUse, now: now) {
                do {
                    try assets.remove(id)
                    removed.append(id)
                } catch {
                    logger.warning("cannot remove the unused asset \(id): \(error)")
                }
            }
            if !removed.isEmpty {
                logger.info("removed \(removed.count) pictures no configuration uses", metadata: ["assets": "\(removed.joined(separator: ","))"])
            }
            return removed
        }
    }

    /// Assets something besides the configurations uses, and what that is (for the 409's message).
    public struct AssetHold: Sendable {
        public var holder: String
        public var ids: Set<String>

        public init(holder: String, ids: Set<String>) {
            self.holder = holder
            self.ids = ids
        }
    }

    /// Adds a holder of assets that `deleteAsset` refuses to delete and
    /// `assetsInUse` lists. `hold` is asked under the state lock.
    public func addAssetHolder(_ hold: @escaping @Sendable () -> AssetHold?) {
        assetHolders.withLock { $0.append(hold) }
    }

    /// Runs `body` under the state lock, so that no asset is deleted while it
    /// runs: what checks that assets exist and then starts holding them does
    /// both in one step.
    public func holdingAssets<T: Sendable>(_ body: () throws -> T) throws -> T {
        try state.withLock { _ in try body() }
    }

    private func otherHolds() -> [AssetHold] {
        assetHolders.withLock { $0 }.compactMap { $0() }
    }

    // MARK: Per-device values

    static let deviceFileName = "device.json"

    /// Records the output rotation a channel sets for this device (nil: none,
    /// the local file's own) in device.json, which the next start reads: the
    /// display's rotation is set when the kiosk starts, as for an edit of the
    /// local file. Returns whether it differs from the rotation in force, so
    /// takes a restart to show.
    @discardableResult
    public func setDeviceRotation(_ rotation: Int?) throws -> Bool {
        try requireWritable()
        let path = directory + "/" + Self.deviceFileName
        // None is written as {} (durably, as a value is) rather than by removing the file.
        if Self.deviceRotation(in: directory) != rotation, rotation != nil || access(path, F_OK) == 0 {
            try FileIO.writeAtomically(Array((rotation.map { "{\"rotation\": \($0)}" } ?? "{}").utf8) + [0x0A], to: path, mode: 0o640)
        }
        return (rotation ?? fileRotation) != local.output.rotation
    }

    /// The rotation device.json records, if it holds one.
    static func deviceRotation(in directory: String) -> Int? {
        guard let bytes = try? FileIO.read(directory + "/" + deviceFileName, limit: 4096),
              let object = try? JSONValue(parsing: bytes),
              let rotation = object["rotation"]?.int, [0, 90, 180, 270].contains(rotation) else { return nil }
        return rotation
    }

    // MARK: Token

    /// The API token: the configured one, or the one generated into
    /// `api-token` on first start (mode 0600). The token itself is never
    /// logged, only the file that holds it: a journal is read by more people,
    /// kept longer and copied further than a mode-0600 file.
    ///
    /// A state directory that cannot be written puts a generated token in
    /// `runtimeDirectory` (`$RUNTIME_DIRECTORY`, /run/vitrine under the shipped
    /// unit) instead, where it lasts until the kiosk restarts; without one, the
    /// API cannot be used until `api.token` is configured.
    public func apiToken(configured: String?,
                         runtimeDirectory: String? = ProcessInfo.processInfo.environment["RUNTIME_DIRECTORY"]) throws -> String {
        if let configured { return configured }
        let path = directory + "/api-token"
        if let bytes = try? FileIO.read(path) {
            let token = String(decoding: bytes, as: UTF8.self).trimmingWhitespace
            if token.count >= APIConfiguration.minimumTokenLength { return token }
            logger.warning("\(path) holds no usable token (fewer than \(APIConfiguration.minimumTokenLength) characters); generating a new one")
        }
        var random = SystemRandomNumberGenerator()
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        // Not starting with "-" or "_": `vitrine push --token T` would read a leading "-" as an option.
        let token = String((0..<43).map { index in
            alphabet[Int(random.next(upperBound: UInt64(index == 0 ? alphabet.count - 2 : alphabet.count)))]
        })
        try keep(generated: token, readOnlyReason: readOnlyReason, runtimeDirectory: runtimeDirectory)
        return token
    }

    /// Stores a generated token and logs where it is, never what it is.
    func keep(generated token: String, readOnlyReason: String?, runtimeDirectory: String?) throws {
        let file = Array((token + "\n").utf8)
        guard let readOnlyReason else {
            let path = directory + "/api-token"
            try FileIO.writeAtomically(file, to: path, mode: 0o600)
            logger.notice("generated an API token into \(path) (mode 0600): read it there (sudo cat \(path))")
            return
        }
        // The first path of a colon-separated list: systemd gives several when a unit names several.
        if let runtime = runtimeDirectory?.split(separator: ":").first.map(String.init), !runtime.isEmpty,
           (try? FileIO.writeAtomically(file, to: runtime + "/api-token", mode: 0o600)) != nil {
            logger.notice("generated an API token, which cannot be stored (\(readOnlyReason)): it is in \(runtime)/api-token (mode 0600) until the kiosk restarts")
        } else {
            logger.warning("generated an API token, which cannot be stored (\(readOnlyReason)) and has no runtime directory to go to: set api.token in the configuration file to use the API")
        }
    }

    // MARK: Files

    /// The digest of what a configuration shows: its canonical JSON without the
    /// machine's own sections (`output`, `outputs`; `api` is never in it).
    static func showDigest(_ configuration: KioskConfiguration) -> String {
        var tree = ConfigDocument.tree(configuration)
        tree.removeValue(forKey: "output")
        tree.removeValue(forKey: "outputs")
        return ContentDigest.sha256(JSONValue.object(tree).encoded([.sortedKeys, .withoutEscapingSlashes]))
    }

    /// `configuration` as stored: the pushable part in canonical JSON, with the
    /// local file's `api`, `output` and path bindings applied to the value.
    static func stored(_ configuration: KioskConfiguration, local: KioskConfiguration) -> StoredConfiguration {
        var value = configuration
        value.api = local.api
        value.channel = local.channel
        value.plays = local.plays
        value.output = local.output
        value.outputs = local.outputs
        value.baseDirectory = local.baseDirectory
        value.assetDirectory = local.assetDirectory
        let json = ConfigDocument.json(value)
        return StoredConfiguration(configuration: value, json: json, version: ContentDigest.version(of: json))
    }

    private static func load(_ path: String, local: KioskConfiguration, logger: Logger) -> StoredConfiguration? {
        guard let bytes = try? FileIO.read(path) else { return nil }
        do {
            let parsed = try ConfigLoader.parse(String(decoding: bytes, as: UTF8.self), baseDirectory: local.baseDirectory, source: path)
            return stored(parsed, local: local)
        } catch {
            // Cannot happen through this store (it writes only validated JSON,
            // atomically); a hand-edited file can. Say so and fall back.
            logger.error("ignoring \(path): \(error)")
            return nil
        }
    }

    private static func write(_ stored: StoredConfiguration, to path: String, system: SystemCalls) throws {
        try FileIO.writeAtomically(stored.json, to: path, mode: 0o640, system: system)
    }

    /// `mkdir -p`, keeping the errno of the step that failed.
    static func makeDirectories(_ path: String, mode: mode_t) throws {
        var partial = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            partial += "/" + component
            // Only what is missing: mkdir on an existing directory in an unwritable
            // parent can fail with EACCES rather than EEXIST.
            if access(partial, F_OK) != 0 { try makeDirectory(partial, mode: mode) }
        }
    }

    static func makeDirectory(_ path: String, mode: mode_t) throws {
        if mkdir(path, mode) != 0 && errno != EEXIST { throw SystemError("mkdir", subject: path) }
    }

    /// Temporary files a crash left behind mid-write: never valid, always safe to remove.
    static func removeStaleTemporaries(in directory: String, system: SystemCalls) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return }
        for name in names where name.contains(".tmp-") { try? FileIO.remove(directory + "/" + name, system: system) }
    }
}

/// The state directory cannot be made or written.
public struct StateDirectoryError: Error, CustomStringConvertible {
    public var directory: String
    public var reason: String
    public var description: String {
        "cannot use \(directory) as the state directory (--state-dir): \(reason)"
    }
}

extension Result {
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
