import FoundationEssentials
import Glibc
import Logging
import Synchronization
import VitrineConfig
import VitrineRuntime
import VitrineSystem
import VitrineAPI

/// One stored picture.
public struct Asset: Hashable, Sendable {
    /// SHA-256 of the bytes, in hex: the file's name and its `asset:` reference.
    public var id: String
    public var name: String
    public var kind: InspectedImage.Kind
    public var size: Int
    public var width: Int
    public var height: Int
    /// Seconds since 1970.
    public var added: Double

    public var reference: String { "asset:" + id }
}

/// Pictures by content: `assets/<sha256>` holds the bytes and
/// `assets/<sha256>.json` what is known about them. Storing by digest makes an
/// upload idempotent and a name collision impossible; a name is only a label.
/// The bytes are written before the metadata, so a listed asset is always complete.
public final class AssetStore: Sendable {
    public let directory: String
    private let logger: Logger
    /// The system calls every file of the store goes through (a test's faults, or `.live`).
    package let system: SystemCalls
    /// The free space kept on the state directory's file system.
    public let floor: DiskFloor
    /// Why nothing can be stored (a read-only state directory); nil when it can.
    let readOnlyReason: String?
    /// Serialises additions and removals (reads go to the files directly).
    private let lock = Mutex(())

    /// - Parameter system: the system calls that store, move and remove the pictures.
    init(directory: String, logger: Logger, floor: DiskFloor = DiskFloor(), readOnlyReason: String? = nil, system: SystemCalls = .live) throws {
        self.system = system
        self.directory = directory
        self.logger = logger
        self.floor = floor
        self.readOnlyReason = readOnlyReason
        guard readOnlyReason == nil else { return }
        try StateStore.makeDirectory(directory, mode: 0o755)
        StateStore.removeStaleTemporaries(in: directory, system: system)
    }

    public func contains(_ id: String) -> Bool {
        guard SlideSource.isAssetID(id) else { return false }
        return access(path(id), F_OK) == 0
    }

    public func path(_ id: String) -> String { directory + "/" + id }

    /// Stores a finished upload, already inspected, under its digest, by
    /// renaming its staging file. Returns the asset and whether it is new; the
    /// staging file of a picture already stored is removed with the upload.
    package func adopt(_ upload: AssetUpload, image: InspectedImage, name: String) throws -> (asset: Asset, created: Bool) {
        let id = try upload.finish()
        return try lock.withLock { _ in
            if let existing = asset(id) {
                upload.discard()
                return (existing, false)
            }
            try FileIO.rename(upload.path, to: path(id), system: system)
            upload.markAdopted()
            try FileIO.syncDirectory(of: path(id), system: system)
            return (try recordMetadata(id: id, size: upload.size, image: image, name: name), true)
        }
    }

    /// Writes `<id>.json` after the bytes: its presence is what lists the asset.
    private func recordMetadata(id: String, size: Int, image: InspectedImage, name: String) throws -> Asset {
        let asset = Asset(id: id, name: name, kind: image.kind, size: size, width: image.size.width,
                          height: image.size.height, added: Date().timeIntervalSince1970)
        let json = try JSONText.encode(AssetMetadata(asset), [.sortedKeys])
        try FileIO.writeAtomically(Array(json), to: path(id) + ".json", system: system)
        return asset
    }

    public func asset(_ id: String) -> Asset? {
        guard SlideSource.isAssetID(id), access(path(id), F_OK) == 0,
              let bytes = try? FileIO.read(path(id) + ".json", system: system),
              let metadata = try? JSONDecoder().decode(AssetMetadata.self, from: Data(bytes)),
              let kind = InspectedImage.Kind(rawValue: metadata.type)
        else { return nil }
        return Asset(id: id, name: metadata.name ?? id, kind: kind, size: metadata.size, width: metadata.width,
                     height: metadata.height, added: metadata.added ?? 0)
    }

    /// Every complete asset, newest first.
    public func list() -> [Asset] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.filter { SlideSource.isAssetID($0) }.compactMap(asset).sorted { ($0.added, $0.id) > ($1.added, $1.id) }
    }

    public func bytes(_ id: String) throws -> [UInt8] {
        try FileIO.read(path(id), limit: 2_000_000_000, system: system)
    }

    /// Removes the partial downloads (`AssetUpload`'s resumable staging
    /// files, and their validators) whose keys start with `keyPrefix`, but
    /// those of `keys`: called by their one owner when they are not wanted
    /// any more (every blob of a channel's version is stored; a URL left the
    /// playlist), so that a part nothing will finish does not stay.
    public func removePartialDownloads(keyedBy keyPrefix: String, except keys: Set<String> = []) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        for name in names where name.hasPrefix(AssetUpload.partialPrefix + keyPrefix) {
            let key = String(name.dropFirst(AssetUpload.partialPrefix.count).prefix { $0 != "." })
            if !keys.contains(key) { try? FileIO.remove(directory + "/" + name, system: system) }
        }
    }

    /// Bytes free to an unprivileged writer on the store's file system (`statvfs`); nil if unknown.
    public func freeBytes() -> Int? {
        var info = statvfs()
        guard statvfs(directory, &info) == 0 else { return nil }
        return Int(clamping: UInt64(info.f_bavail) &* UInt64(info.f_frsize))
    }

    /// Removes an asset. `StateStore.deleteAsset` calls this under its own lock,
    /// after checking that no configuration uses it.
    func remove(_ id: String) throws {
        try lock.withLock { _ in
            // Metadata first: an asset without it is not listed, and its bytes go next.
            try FileIO.remove(path(id) + ".json", system: system)
            try FileIO.remove(path(id), system: system)
        }
    }
}

/// An upload or download refused because the disk is nearly full (the API's 507).
public struct DiskFloorReached: Error, CustomStringConvertible, Sendable {
    public var message: String
    public var description: String { message }
}

/// An upload or download refused because the state directory cannot be written (the API's 503).
public struct StateReadOnly: Error, CustomStringConvertible, Sendable {
    public var message: String
    public var description: String { message }
}
