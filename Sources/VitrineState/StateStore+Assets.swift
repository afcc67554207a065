import FoundationEssentials
import Glibc
import Logging
import Synchronization
import VitrineConfig
import VitrineCore
import VitrineRuntime
import VitrineSystem
import VitrineAPI

/// The pictures the configurations name: which are in use, and which may go.
extension StateStore {
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

    func otherHolds() -> [AssetHold] {
        assetHolders.withLock { $0 }.compactMap { $0() }
    }
}
