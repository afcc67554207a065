import VitrineChannel
import VitrineCore

/// One run of the update helper on a verified manifest: decide, install,
/// watch, and roll back what does not come up healthy.
///
/// The order is what makes the rollback possible:
/// 1. the floor and the manifest version are saved first (`save`), so that a
///    crash later cannot leave a floor lower than the channel set;
/// 2. the pin comes before the install, so that apt's own upgrades never move
///    past the channel's choice, even while this runs;
/// 3. the kiosk is stopped and its state directory copied before the new
///    version starts: a version that migrates its state cannot leave the old
///    one a state it cannot read;
/// 4. the new version is watched (`ServiceHealthWatch`); if it fails, the
///    kiosk is stopped, the copy put back, the previous version pinned and
///    installed, and watched in turn.
public struct UpdateProcedure {
    public var system: any UpdateSystem
    public var steady: Duration
    public var deadline: Duration
    public var pollInterval: Duration
    public var log: (String) -> Void

    public init(system: any UpdateSystem, steady: Duration = .seconds(30), deadline: Duration = .seconds(180),
                pollInterval: Duration = .seconds(1), log: @escaping (String) -> Void) {
        self.system = system
        self.steady = steady
        self.deadline = deadline
        self.pollInterval = pollInterval
        self.log = log
    }

    /// - Parameters:
    ///   - group: the board's `channel.group` (from `/etc/vitrine/vitrine.yaml`).
    ///   - save: persists the helper's state; a failure ends the run before anything is installed.
    public func run(_ verified: UpdateRequestCheck.Verified, group: String?, state: inout UpdateHelperState, wallNow: WallInstant,
                    save: (UpdateHelperState) throws(UpdateStepError) -> Void) -> SoftwareUpdateReport {
        let manifest = verified.manifest
        let software = manifest.software
        let wantedText = software?.version(forGroup: group)
        state.raiseFloor(to: software?.floor.flatMap(PackageVersion.init))
        let floor = state.floor
        func report(_ outcome: SoftwareUpdateReport.Outcome, wanted: String? = nil, from: String? = nil, installed: String? = nil,
                    _ detail: String) -> SoftwareUpdateReport {
            log("\(outcome.rawValue): \(detail)")
            return SoftwareUpdateReport(at: wallNow, outcome: outcome, manifestVersion: manifest.version, wanted: wanted, from: from,
                                        installed: installed, floor: floor, detail: detail)
        }

        state.manifestVersion = max(state.manifestVersion ?? 0, manifest.version)
        state.rootVersion = max(state.rootVersion ?? 0, verified.rootVersion)
        // A rolled-back version is not retried while the channel keeps naming it;
        // once it names another, the record of the old failure has done its job.
        state.failed = state.failed.filter { $0.key == wantedText }
        do {
            try save(state)
        } catch {
            return report(.failed, wanted: wantedText, "cannot save the helper's state, so nothing was done: \(error)")
        }

        let installedText: String?
        do {
            installedText = try system.installedVersion()
        } catch {
            return report(.failed, wanted: wantedText, "\(error)")
        }
        guard let wantedText, let wanted = PackageVersion(wantedText) else {
            do {
                try system.pin(nil)
            } catch {
                return report(.failed, installed: installedText, "the channel names no version, but the apt pin cannot be removed: \(error)")
            }
            return report(.unmanaged, installed: installedText,
                          "channel version \(manifest.version) names no vitrine version: the apt pin is removed, and apt's own upgrades apply")
        }
        guard let installed = installedText.flatMap(PackageVersion.init) else {
            return report(.refused, wanted: wanted.text, UpdateRefusal.notInstalledAsPackage.description)
        }
        if installed == wanted {
            do {
                try system.pin(wanted.text)
            } catch {
                return report(.failed, wanted: wanted.text, installed: installed.text, "cannot pin vitrine \(wanted.text): \(error)")
            }
            return report(.unchanged, wanted: wanted.text, from: installed.text, installed: installed.text,
                          "vitrine \(wanted.text) is installed already; apt is pinned to it")
        }

        let offered: [PackageVersion]
        do {
            try system.refreshIndex()
            offered = try system.offeredVersions().compactMap(PackageVersion.init)
        } catch {
            return report(.failed, wanted: wanted.text, from: installedText, installed: installedText, "\(error)")
        }
        let plan = UpdatePlan.decide(wanted: wanted, installed: installed, floor: state.floor.flatMap(PackageVersion.init),
                                     failedBefore: state.failed, offered: offered)
        switch plan {
        case .alreadyInstalled:
            return report(.unchanged, wanted: wanted.text, from: installedText, installed: installedText, "vitrine \(wanted.text) is installed already")
        case .refused(let refusal):
            if let installedText { try? system.pin(installedText) }
            return report(.refused, wanted: wanted.text, from: installedText, installed: installedText, refusal.description)
        case .install(let target, let previous):
            return install(target, replacing: previous, state: &state, save: save, report: report)
        }
    }

    private func install(_ target: PackageVersion, replacing previous: PackageVersion, state: inout UpdateHelperState,
                         save: (UpdateHelperState) throws(UpdateStepError) -> Void,
                         report: (SoftwareUpdateReport.Outcome, String?, String?, String?, String) -> SoftwareUpdateReport)
        -> SoftwareUpdateReport {
        let (to, from) = (target.text, previous.text)
        log("installing vitrine \(to) in place of \(from)")
        do {
            try system.pin(to)
            try system.stopKiosk()
            try system.snapshotState()
        } catch {
            // Nothing is installed yet: the old version comes back as it was, and the screen with it.
            try? system.pin(from)
            try? system.startKiosk()
            return report(.failed, to, from, from, "nothing was installed: \(error)")
        }
        let failure: String
        do {
            try system.install(to)
            switch watch() {
            case .healthy:
                system.dropSnapshot()
                return report(.installed, to, from, to, "vitrine \(to) runs healthy (active on one process for \(steady.components.seconds) s)")
            case .unhealthy(let reason):
                failure = reason
            case .watching:
                failure = "the health watch ended undecided"
            }
        } catch {
            failure = "\(error)"
        }

        log("vitrine \(to) failed: \(failure); putting \(from) back")
        state.failed[to] = failure
        try? save(state)
        do {
            try system.stopKiosk()
            try system.restoreState()
            try system.pin(from)
            try system.install(from)
        } catch {
            // Whatever is installed now is better on screen than nothing.
            try? system.startKiosk()
            return report(.failed, to, from, try? system.installedVersion() ?? nil,
                          "vitrine \(to) failed (\(failure)), and putting \(from) back failed too: \(error)")
        }
        switch watch() {
        case .healthy:
            return report(.rolledBack, to, from, from, "vitrine \(to) failed (\(failure)); \(from) is back, with the state it had, and runs healthy")
        case .unhealthy(let reason):
            return report(.failed, to, from, from, "vitrine \(to) failed (\(failure)); \(from) is back but not healthy either: \(reason)")
        case .watching:
            return report(.failed, to, from, from, "vitrine \(to) failed (\(failure)); \(from) is back, and its health watch ended undecided")
        }
    }

    private func watch() -> ServiceHealthWatch.Verdict {
        var watch = ServiceHealthWatch(startedAt: system.now(), steady: steady, deadline: deadline)
        while true {
            let verdict = watch.observe(system.sample(), at: system.now())
            if verdict != .watching { return verdict }
            system.sleep(pollInterval)
        }
    }
}
