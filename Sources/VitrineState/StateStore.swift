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
    // Internal rather than private: the extensions in StateStore+Assets, +DeviceValues,
    // +Token and +Files (one concern each, so that no file is over 450 lines) share this state.
    public let directory: String
    public let assets: AssetStore
    /// The local file's settings that never come from a push: `api` and `output`,
    /// and where paths lead on this machine.
    let local: KioskConfiguration
    /// The local file's own `output.rotation`, which `local` has unless a
    /// channel set one for this device (device.json).
    let fileRotation: Int
    let logger: Logger
    /// The system calls every file of the state directory goes through (a test's faults, or `.live`).
    package let system: SystemCalls
    let state: Mutex<(current: StoredConfiguration, previous: StoredConfiguration?)>
    /// What holds assets besides the configurations (an emergency override), asked under the state lock.
    let assetHolders = Mutex<[@Sendable () -> AssetHold?]>([])

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
    func storable(_ pushed: KioskConfiguration) throws -> StoredConfiguration {
        let outputsIssues = Self.localOutputsIssues(in: pushed, local: local)
        guard outputsIssues.isEmpty else {
            throw StateStoreRefusal.lacksLocalOutputs(issues: outputsIssues)
        }
        return Self.stored(pushed, local: local)
    }

    /// Under the state lock: `ifMatch` against the current version, then
    /// `make`'s configuration stored as the current one.
    func commit(ifMatch: String?, _ make: (StoredConfiguration) throws -> StoredConfiguration) throws -> Change {
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
}
