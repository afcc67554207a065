import FoundationEssentials
import Glibc
import Logging
import Synchronization
import VitrineChannel
import VitrineConfig
import VitrineCore
import VitrineRuntime
import VitrineSystem

/// The emergency overrides as the state directory keeps them, so that they
/// survive a restart until they end: `override.json` for the one for every
/// output (the same file, in the same form, as before there were several
/// outputs: an older state directory loads, and an older version reads what
/// this one writes when no output has its own), and `override-NAME.json` for
/// the group named NAME's own (`StoredOverrides`).
///
/// A file is replaced with `FileIO.writeAtomically`: the bytes go to a
/// temporary file, which is fsynced before it is renamed over the name (so
/// the name never points at a file whose data is not on disk yet), and the
/// directory is fsynced after the rename (so the rename itself survives a
/// power cut). A cut leaves the old override or the new one, never a torn file.
/// Clearing unlinks the file and fsyncs the directory, for the same reason.
///
/// Only the output groups named at `init` can have one of their own: at most
/// one file each, so their number is bounded by the kiosk's `outputs` plan.
/// A file for a group the plan no longer has is neither read nor removed; it
/// shows again if that output comes back before it ends.
///
/// The store only remembers; the display threads show an override and end it
/// at its `until` by themselves. An override counts as active while the wall
/// clock is before its `until`; an ended one stays in its file until the next
/// start, set or clear removes it.
public final class OverrideStore: Sendable {
    /// `override.json` in the state directory: the override for every output.
    public let path: String
    /// The state directory.
    public let directory: String
    /// The output groups that may have an override of their own, by name.
    public let outputNames: [String]
    private let logger: Logger
    private let system: SystemCalls
    private let stored: Mutex<StoredOverrides>

    /// The longest output name kept in a file name; a connector's is a dozen characters.
    static let maxOutputNameLength = 64

    /// A name the plan has but no file can carry.
    public struct UnstorableOutput: Error, CustomStringConvertible {
        public let name: String
        public var description: String { "the output \(name) cannot have an override of its own: its name cannot name a file" }
    }

    /// Reads `override.json` and each named output's file, if there are any.
    /// One that ended before `now`, or that cannot be read, is removed, with
    /// one log line naming the file and why.
    /// - Parameter outputs: the output groups' names (their leading connectors).
    /// - Parameter system: the system calls that write and remove the override files.
    public init(directory: String, outputs: [String] = [], now: WallInstant, logger: Logger, system: SystemCalls = .live) {
        self.system = system
        self.directory = directory
        path = directory + "/override.json"
        outputNames = outputs
        self.logger = logger
        var loaded = StoredOverrides(all: Self.load(path, now: now, logger: logger, system: system))
        for name in outputs {
            guard let file = Self.path(directory: directory, output: name) else { continue }
            loaded.outputs[name] = Self.load(file, now: now, logger: logger, system: system)
        }
        stored = Mutex(loaded)
    }

    /// The file that keeps the group `output`'s own override: nil for a name
    /// that could leave the directory or hide a file (only letters, digits, `-`,
    /// `_` and `.`, not `..`, at most 64 characters; connectors are `HDMI-A-1`).
    public static func path(directory: String, output: String) -> String? {
        let allowed = output.utf8.allSatisfy { byte in
            (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z")) || (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
                || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ".")
        }
        guard allowed, !output.isEmpty, output.utf8.count <= maxOutputNameLength, !output.contains("..") else { return nil }
        return directory + "/override-" + output + ".json"
    }

    /// The override for every output that shows at `now`, unless it has ended.
    public func active(at now: WallInstant) -> KioskOverride? {
        stored.withLock { $0 }.all.flatMap { now < $0.until ? $0 : nil }
    }

    /// Every override active at `now`.
    public func overrides(at now: WallInstant) -> StoredOverrides {
        stored.withLock { $0 }.active(at: now)
    }

    /// Changes the overrides by `change`, durably: each file whose override
    /// changed is written or removed. `then` gets what was stored before and
    /// after, under the store's lock, so that what it sends to the display
    /// threads reaches them in the order the changes were made. It runs even
    /// when a write fails, with what the files then hold.
    /// - Throws: `UnstorableOutput` for a name not in `outputNames` or not fit for a file,
    ///   before anything is written; a system error from a write or a removal.
    @discardableResult
    public func update<T: Sendable>(_ change: (inout StoredOverrides) throws -> T,
                          then: (_ before: StoredOverrides, _ after: StoredOverrides) -> Void = { _, _ in }) throws -> T {
        try stored.withLock { stored in
            let before = stored
            var wanted = stored
            let result = try change(&wanted)
            for name in wanted.outputs.keys where !outputNames.contains(name) || Self.path(directory: directory, output: name) == nil {
                throw UnstorableOutput(name: name)
            }
            defer { then(before, stored) }
            if wanted.all != stored.all {
                try write(wanted.all, to: path)
                stored.all = wanted.all
            }
            for name in Set(wanted.outputs.keys).union(stored.outputs.keys).sorted() where wanted.outputs[name] != stored.outputs[name] {
                guard let file = Self.path(directory: directory, output: name) else { continue }
                try write(wanted.outputs[name], to: file)
                stored.outputs[name] = wanted.outputs[name]
            }
            return result
        }
    }

    /// Makes `override` the one for every output (replacing any other, and
    /// ending every output's own), durably.
    public func replace(with override: KioskOverride) throws {
        try update { $0 = StoredOverrides(all: override) }
    }

    /// Forgets every stored override, durably. Returns the one for every
    /// output, and nil when there was none.
    @discardableResult public func clear() throws -> KioskOverride? {
        try update { stored in
            defer { stored = StoredOverrides() }
            return stored.all
        }
    }

    /// The asset ids the active overrides name: assets nobody may delete meanwhile.
    public func assetIDs(at now: WallInstant) -> Set<String> {
        Set(overrides(at: now).each.flatMap { $0.override.slides }.compactMap { slide in
            if case .asset(let id) = SlideSource(slide.path) { return id }
            return nil
        })
    }

    private func write(_ override: KioskOverride?, to file: String) throws {
        if let override {
            try FileIO.writeAtomically(OverrideDocument.json(override), to: file, mode: 0o640, system: system)
        } else {
            // Durable: the removal survives a power cut as a replacement does.
            try FileIO.remove(file, durable: true, system: system)
        }
    }

    private static func load(_ path: String, now: WallInstant, logger: Logger, system: SystemCalls) -> KioskOverride? {
        let bytes: [UInt8]
        do {
            bytes = try FileIO.read(path, limit: 16 << 20, system: system)
        } catch {
            if error.errno != .noSuchFileOrDirectory { discard(path, because: "it cannot be read: \(error)", logger: logger, system: system) }
            return nil
        }
        let override: KioskOverride
        do {
            override = try OverrideDocument.stored(String(decoding: bytes, as: UTF8.self), source: path, parseTimestamp: RFC3339.parse)
        } catch {
            // This store writes only valid files, atomically; a hand-edited or damaged one is not worth keeping.
            discard(path, because: "it is not a valid override (\(error.issues.map(\.description).joined(separator: "; ")))", logger: logger, system: system)
            return nil
        }
        guard now < override.until else {
            discard(path, because: "override \(override.id) ended at \(override.until)", logger: logger, system: system)
            return nil
        }
        return override
    }

    private static func discard(_ path: String, because reason: String, logger: Logger, system: SystemCalls) {
        do {
            try FileIO.remove(path, durable: true, system: system)
            logger.notice("removed \(path): \(reason)")
        } catch {
            logger.error("cannot remove \(path) (\(reason)): \(error)")
        }
    }
}
