import FoundationEssentials
import Glibc
import Logging
import Synchronization
import VitrineChannel
import VitrineConfig
import VitrineCore
import VitrineRuntime
import VitrineSystem

/// The emergency override as the state directory keeps it: `override.json`,
/// so that an override survives a restart until it ends.
///
/// The file is replaced with `FileIO.writeAtomically`: the bytes go to a
/// temporary file, which is fsynced before it is renamed over `override.json`
/// (so the name never points at a file whose data is not on disk yet), and
/// the directory is fsynced after the rename (so the rename itself survives a
/// power cut). A cut leaves the old override or the new one, never a torn file.
/// Clearing unlinks the file and fsyncs the directory, for the same reason.
///
/// The store only remembers; the display thread shows an override and ends it
/// at its `until` by itself. An override counts as active while the wall clock
/// is before its `until`; an ended one stays in the file until the next start,
/// set or clear removes it.
public final class OverrideStore: Sendable {
    /// `override.json` in the state directory.
    public let path: String
    private let logger: Logger
    private let stored: Mutex<KioskOverride?>

    /// Reads `override.json` if there is one. One that ended before `now`, or
    /// that cannot be read, is removed, with one log line naming the file and why.
    public init(directory: String, now: WallInstant, logger: Logger) {
        path = directory + "/override.json"
        self.logger = logger
        stored = Mutex(Self.load(path, now: now, logger: logger))
    }

    /// The override that shows at `now`: the stored one, unless it has ended.
    public func active(at now: WallInstant) -> KioskOverride? {
        stored.withLock { $0 }.flatMap { now < $0.until ? $0 : nil }
    }

    /// Makes `override` the stored one (replacing any other), durably.
    public func replace(with override: KioskOverride) throws {
        try stored.withLock { stored in
            try FileIO.writeAtomically(OverrideDocument.json(override), to: path, mode: 0o640)
            stored = override
        }
    }

    /// Forgets the stored override, durably. Returns it, and nil when there was none.
    @discardableResult public func clear() throws -> KioskOverride? {
        try stored.withLock { stored in
            let previous = stored
            try Self.remove(path)
            stored = nil
            return previous
        }
    }

    /// The asset ids an active override names: assets nobody may delete meanwhile.
    public func assetIDs(at now: WallInstant) -> Set<String> {
        guard let active = active(at: now) else { return [] }
        return Set(active.slides.compactMap { slide in
            if case .asset(let id) = SlideSource(slide.path) { return id }
            return nil
        })
    }

    private static func load(_ path: String, now: WallInstant, logger: Logger) -> KioskOverride? {
        let bytes: [UInt8]
        do {
            bytes = try FileIO.read(path, limit: 16 << 20)
        } catch {
            if error.errno != .noSuchFileOrDirectory { discard(path, because: "it cannot be read: \(error)", logger: logger) }
            return nil
        }
        let override: KioskOverride
        do {
            override = try OverrideDocument.stored(String(decoding: bytes, as: UTF8.self), source: path, parseTimestamp: RFC3339.parse)
        } catch {
            // This store writes only valid files, atomically; a hand-edited or damaged one is not worth keeping.
            discard(path, because: "it is not a valid override (\(error.issues.map(\.description).joined(separator: "; ")))", logger: logger)
            return nil
        }
        guard now < override.until else {
            discard(path, because: "override \(override.id) ended at \(override.until)", logger: logger)
            return nil
        }
        return override
    }

    private static func discard(_ path: String, because reason: String, logger: Logger) {
        do {
            try remove(path)
            logger.notice("removed \(path): \(reason)")
        } catch {
            logger.error("cannot remove \(path) (\(reason)): \(error)")
        }
    }

    /// Unlinks `path` (gone already is fine) and fsyncs its directory, so that
    /// the removal survives a power cut as a replacement does.
    private static func remove(_ path: String) throws {
        guard unlink(path) == 0 || errno == ENOENT else { throw SystemError("unlink", subject: path) }
        let directory = directoryOfPath(path)
        let descriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw SystemError("open", subject: directory) }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw SystemError("fsync", subject: directory) }
    }
}
