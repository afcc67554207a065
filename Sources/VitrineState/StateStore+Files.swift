import FoundationEssentials
import Glibc
import Logging
import Synchronization
import VitrineConfig
import VitrineCore
import VitrineRuntime
import VitrineSystem
import VitrineAPI

/// The state directory's files: written whole and fsynced, made with their modes, and left-over temporaries removed.
extension StateStore {
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

    static func load(_ path: String, local: KioskConfiguration, logger: Logger) -> StoredConfiguration? {
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

    static func write(_ stored: StoredConfiguration, to path: String, system: SystemCalls) throws {
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

    /// Temporary files a crash left behind mid-write: never valid, always safe
    /// to remove. Partial downloads (`AssetUpload`'s `partial-`) are kept to
    /// be resumed, unless nothing has written to one for `partialLifetime`.
    static func removeStaleTemporaries(in directory: String, system: SystemCalls, now: time_t = time(nil)) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return }
        for name in names where name.contains(".tmp-") { try? FileIO.remove(directory + "/" + name, system: system) }
        for name in names where name.hasPrefix(AssetUpload.partialPrefix) {
            var info = stat()
            guard stat(directory + "/" + name, &info) == 0, now - info.st_mtim.tv_sec > partialLifetimeSeconds else { continue }
            try? FileIO.remove(directory + "/" + name, system: system)
        }
    }

    /// How long a partial download nobody resumes is kept: a week.
    static let partialLifetimeSeconds: time_t = 7 * 24 * 3600
}
