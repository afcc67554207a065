import Logging
import VitrineConfig
import VitrineCore
import VitrineRuntime
import VitrineSystem
import VitrineAPI
import VitrineState

/// The emergency overrides between the API, the state directory and the
/// display threads: stored first (so that they survive a restart), then sent
/// to each output group's loop whose override changed, which shows it at once
/// and ends it at its `until`.
///
/// The kiosk has at most one override for every output and one of its own per
/// output group (`StoredOverrides`). A group shows its own, else the one for
/// every output; its loop is told both (`KioskCommand.setOverride(_:fallback:)`),
/// so that when its own ends by itself it shows the other at once. Setting one
/// for every output ends each output's own (every screen shows the emergency);
/// clearing without an output ends them all.
public final class EmergencyOverrides: Sendable {
    /// The overrides as stored in the state directory, over restarts.
    public let stored: OverrideStore
    private let store: StateStore
    private let link: any DisplayLoopLink
    private let events: EventHub
    private let logger: Logger

    init(store: StateStore, link: any DisplayLoopLink, events: EventHub, logger: Logger) {
        self.store = store
        self.link = link
        self.events = events
        self.logger = logger
        stored = OverrideStore(directory: store.directory, outputs: link.outputGroups.compactMap(\.name), now: WallClock.now(), logger: logger,
                               system: store.system)
    }

    /// At start: the stored overrides' assets are held, and each group's loop
    /// is sent what it shows, which it takes at its first turn.
    func start() {
        store.addAssetHolder { [stored] in
            let now = WallClock.now()
            let active = stored.overrides(at: now).each
            guard !active.isEmpty else { return nil }
            let named = active.map { "\($0.override.id)\($0.output.map { " on \($0)" } ?? "") (until \($0.override.until))" }
            return StateStore.AssetHold(holder: "the emergency override \(named.joined(separator: ", "))", ids: stored.assetIDs(at: now))
        }
        let now = WallClock.now()
        let kept = stored.overrides(at: now)
        for (output, active) in kept.each {
            logger.notice("the stored override \(active.id)\(output.map { " for \($0)" } ?? "") shows again until \(active.until)")
        }
        sendOverrides(from: StoredOverrides(), to: kept, at: now)
    }

    /// Tells each group's loop what it shows now, if that changed: the same
    /// override sent again would show on undisturbed anyway, but a loop that
    /// has nothing new is not woken.
    private func sendOverrides(from before: StoredOverrides, to after: StoredOverrides, at now: WallInstant) {
        for group in link.outputGroups {
            let shown = after.shown(on: group.name, at: now)
            guard shown != before.shown(on: group.name, at: now) else { continue }
            group.loop.send(.setOverride(shown.override, fallback: shown.fallback))
        }
    }

    /// Where an override's local files may be: the configuration's directory and the state directory.
    var overrideDirectories: [String] {
        [store.current.configuration.baseDirectory, store.directory].map(OverrideSources.absolute)
    }

    /// Makes `request` the override of the group named `output` (nil: the one
    /// for every output, which ends every output's own), replacing the one
    /// there was: its pictures must be there (`OverrideSources`; a 422 naming
    /// each slide otherwise), and it is stored durably before a display thread hears of it.
    func set(_ request: OverrideRequest, output: String? = nil, now: WallInstant) async throws -> KioskOverride {
        // Stored before it shows, so that it survives a restart: not possible on a read-only state directory.
        try store.requireWritable()
        let override = KioskOverride(id: Self.newOverrideID(), slides: request.slides, interval: request.interval, since: now,
                                     until: request.until)
        let directories = overrideDirectories
        let ended = try await offload { [self] in
            // Under the state lock: no asset named here is deleted between the check and the write.
            try store.holdingAssets {
                let issues = OverrideSources.issues(override.slides, assets: store.assets, directories: directories)
                guard issues.isEmpty else {
                    throw APIError(.unprocessableContent, "the override's pictures cannot all be shown", issues: issues)
                }
                return try Self.storable(output) {
                    try stored.update({ stored -> [String: KioskOverride] in
                        if let output {
                            stored.outputs[output] = override
                            return [:]
                        }
                        let ended = stored.active(at: now).outputs
                        stored = StoredOverrides(all: override)
                        return ended
                    }, then: { sendOverrides(from: $0, to: $1, at: now) })
                }
            }
        }
        events.publish(ServerEvent("overrideSet", encoding: OverrideAnswerBody(OverrideBody(override), output: output)))
        for (name, own) in ended.sorted(by: { $0.key < $1.key }) {
            events.publish(ServerEvent("overrideCleared", encoding: OverrideClearedEvent(id: own.id, output: name)))
        }
        return override
    }

    /// Ends the group named `output`'s own override (nil: every override, the
    /// one for every output and each output's own). Returns those that were
    /// active, empty (and nothing sent) when none was; ended ones left in the
    /// state directory are removed either way.
    func clear(output: String? = nil, now: WallInstant) async throws -> [(output: String?, override: KioskOverride)] {
        try store.requireWritable()
        let cleared = try await offload { [self] in
            try Self.storable(output) {
                try stored.update({ stored -> [(output: String?, override: KioskOverride)] in
                    let active = stored.active(at: now)
                    guard let output else {
                        stored = StoredOverrides()
                        return active.each
                    }
                    stored.outputs[output] = nil
                    return active.outputs[output].map { [(output, $0)] } ?? []
                }, then: { sendOverrides(from: $0, to: $1, at: now) })
            }
        }
        for (name, override) in cleared {
            events.publish(ServerEvent("overrideCleared", encoding: OverrideClearedEvent(id: override.id, output: name)))
        }
        return cleared
    }

    /// `body`, with a group whose name cannot name a file refused as the request's fault.
    private static func storable<T>(_ output: String?, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as OverrideStore.UnstorableOutput {
            throw APIError(.unprocessableContent, error.description, issues: [ConfigIssue(path: "output", message: error.description)])
        }
    }

    /// Eight random hex digits: enough to tell one operator's override from the next.
    static func newOverrideID() -> String {
        let value = UInt32.random(in: .min ... .max)
        let hex = String(value, radix: 16)
        return String(repeating: "0", count: 8 - hex.count) + hex
    }
}
