import VitrineConfig
import VitrineCore
import VitrineRuntime
import VitrineSystem

/// The emergency override between the API, the state directory and the
/// display thread: stored first (so that it survives a restart), then sent to
/// the display thread, which shows it at once and ends it at its `until`.
extension RemoteKiosk {
    /// At start: the stored override's assets are held, and one that is still
    /// active is sent to the display thread, which takes it at its first turn.
    func startOverride() {
        store.addAssetHolder { [overrides] in
            guard let active = overrides.active(at: WallClock.now()) else { return nil }
            return StateStore.AssetHold(holder: "the emergency override \(active.id) (until \(active.until))",
                                        ids: overrides.assetIDs(at: WallClock.now()))
        }
        let now = WallClock.now()
        guard let active = overrides.active(at: now) else { return }
        logger.notice("the stored override \(active.id) shows again until \(active.until)")
        control.send(.setOverride(active))
    }

    /// Where an override's local files may be: the configuration's directory and the state directory.
    var overrideDirectories: [String] {
        [store.current.configuration.baseDirectory, store.directory].map(OverrideSources.absolute)
    }

    /// Makes `request` the override, replacing any other: its pictures must be
    /// there (`OverrideSources`; a 422 naming each slide otherwise), and it is
    /// stored durably before the display thread hears of it.
    func setOverride(_ request: OverrideRequest, now: WallInstant) async throws -> KioskOverride {
        // Stored before it shows, so that it survives a restart: not possible on a read-only state directory.
        try store.requireWritable()
        let override = KioskOverride(id: Self.newOverrideID(), slides: request.slides, interval: request.interval, since: now,
                                     until: request.until)
        let directories = overrideDirectories
        try await offload { [store, overrides] in
            // Under the state lock: no asset named here is deleted between the check and the write.
            try store.holdingAssets {
                let issues = OverrideSources.issues(override.slides, assets: store.assets, directories: directories)
                guard issues.isEmpty else {
                    throw APIError(.unprocessableContent, "the override's pictures cannot all be shown", issues: issues)
                }
                try overrides.replace(with: override)
            }
        }
        control.send(.setOverride(override))
        events.publish(ServerEvent("overrideSet", encoding: OverrideBody(override)))
        return override
    }

    /// Ends the active override. Nil (and nothing sent) when none is active;
    /// an ended one left in the state directory is removed either way.
    func clearOverride(now: WallInstant) async throws -> KioskOverride? {
        try store.requireWritable()
        let active = overrides.active(at: now)
        try await offload { [overrides] in _ = try overrides.clear() }
        guard let active else { return nil }
        control.send(.setOverride(nil))
        events.publish(ServerEvent("overrideCleared", encoding: OverrideClearedEvent(id: active.id)))
        return active
    }

    /// Eight random hex digits: enough to tell one operator's override from the next.
    static func newOverrideID() -> String {
        let value = UInt32.random(in: .min ... .max)
        let hex = String(value, radix: 16)
        return String(repeating: "0", count: 8 - hex.count) + hex
    }
}
