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
        guard let own = output.flatMap({ outputs[$0] }), counts(own, at: now) else { return Shown(override: all, fallback: nil) }
        return Shown(override: own, fallback: all)
    }

    /// Only those still active at `now`, and no output's own that the one for every output came after.
    public func active(at now: WallInstant) -> StoredOverrides {
        StoredOverrides(all: all.flatMap { $0.isActive(at: now) ? $0 : nil },
                        outputs: outputs.filter { counts($0.value, at: now) })
    }

    /// Whether an output's own is in force at `now`: active, and set no earlier
    /// than the one for every output. Setting the one for every output ends
    /// each output's own, and their files are removed after `override.json` is
    /// written; an own one older than it is what a removal that failed, or a
    /// power cut between the two, left behind, and must not show above it.
    private func counts(_ own: KioskOverride, at now: WallInstant) -> Bool {
        own.isActive(at: now) && (all.map { own.since >= $0.since } ?? true)
    }

    /// Whether none is stored.
    public var isEmpty: Bool { all == nil && outputs.isEmpty }

    /// Every override stored, the one for every output first, then by output name.
    public var each: [(output: String?, override: KioskOverride)] {
        (all.map { [(nil, $0)] } ?? []) + outputs.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }
}
