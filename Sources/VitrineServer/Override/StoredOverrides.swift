import VitrineConfig
import VitrineCore

/// The kiosk's emergency overrides: at most one for every output, and at most
/// one of its own for each output group on top. A group shows its own while it
/// is active, else the one for every output (`shown(on:at:)`).
public struct StoredOverrides: Hashable, Sendable {
    /// The override for every output (`override.json`).
    public var all: KioskOverride?
    /// Each output group's own, by the group's name (its leading connector).
    public var outputs: [String: KioskOverride]

    public init(all: KioskOverride? = nil, outputs: [String: KioskOverride] = [:]) {
        self.all = all
        self.outputs = outputs
    }

    /// What one group's loop is told: the override it shows, and the one it
    /// falls back to when that reaches its `until` (`KioskCommand.setOverride`).
    public struct Shown: Hashable, Sendable {
        public var override: KioskOverride?
        public var fallback: KioskOverride?
    }

    /// What the group named `output` shows at `now` (nil: a group with no name,
    /// which can only have the override for every output). Ended ones count as gone.
    public func shown(on output: String?, at now: WallInstant) -> Shown {
        let all = self.all.flatMap { $0.isActive(at: now) ? $0 : nil }
        guard let own = output.flatMap({ outputs[$0] }), own.isActive(at: now) else { return Shown(override: all, fallback: nil) }
        return Shown(override: own, fallback: all)
    }

    /// Only those still active at `now`.
    public func active(at now: WallInstant) -> StoredOverrides {
        StoredOverrides(all: all.flatMap { $0.isActive(at: now) ? $0 : nil },
                        outputs: outputs.filter { $0.value.isActive(at: now) })
    }

    /// Whether none is stored.
    public var isEmpty: Bool { all == nil && outputs.isEmpty }

    /// Every override stored, the one for every output first, then by output name.
    public var each: [(output: String?, override: KioskOverride)] {
        (all.map { [(nil, $0)] } ?? []) + outputs.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }
}
