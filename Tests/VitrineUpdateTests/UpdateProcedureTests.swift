import Testing
import VitrineChannel
import VitrineConfig
import VitrineCore
import VitrineUpdate

/// A board as the update helper sees it: dpkg, apt, systemd and the state
/// directory, on virtual time. `brokenVersions` crash at once when started.
final class FakeBoard: UpdateSystem {
    var installed: String?
    var offered: [String]
    var brokenVersions: Set<String> = []
    var failInstallOf: Set<String> = []
    var pinned: String?
    var steps: [String] = []
    var clock: Duration = .seconds(1000)
    var startedAt: Duration = .seconds(1000)
    var state = "old state"
    var snapshot: String?

    init(installed: String?, offered: [String]) {
        self.installed = installed
        self.offered = offered
    }

    func installedVersion() throws(UpdateStepError) -> String? { installed }
    func refreshIndex() throws(UpdateStepError) { steps.append("update") }
    func offeredVersions() throws(UpdateStepError) -> [String] { offered }
    func pin(_ version: String?) throws(UpdateStepError) {
        pinned = version
        steps.append("pin \(version ?? "none")")
    }
    var failSnapshot = false
    func stopKiosk() throws(UpdateStepError) { steps.append("stop") }
    func startKiosk() throws(UpdateStepError) { steps.append("start") }
    func snapshotState() throws(UpdateStepError) {
        if failSnapshot { throw UpdateStepError(step: "copy /var/lib/vitrine", message: "No space left on device") }
        snapshot = state
        steps.append("snapshot")
    }
    func restoreState() throws(UpdateStepError) {
        guard let snapshot else { throw UpdateStepError(step: "restore", message: "no snapshot") }
        state = snapshot
        steps.append("restore")
    }
    func dropSnapshot() {
        snapshot = nil
        steps.append("drop snapshot")
    }
    func install(_ version: String) throws(UpdateStepError) {
        steps.append("install \(version)")
        if failInstallOf.contains(version) { throw UpdateStepError(step: "apt-get install vitrine=\(version)", message: "E: broken dependencies") }
        installed = version
        // The new version migrates the state its own way when it starts.
        state = "state of \(version)"
        startedAt = clock
    }
    func sample() -> ServiceHealthWatch.Sample {
        let running = clock - startedAt
        if let installed, brokenVersions.contains(installed) {
            return .init(activeState: "activating", restarts: UInt64(running.components.seconds / 2), mainPID: 0)
        }
        return .init(activeState: running < .seconds(5) ? "activating" : "active", restarts: 0, mainPID: 4242)
    }
    func now() -> Duration { clock }
    func sleep(_ duration: Duration) { clock += duration }
}

@Suite struct UpdateProcedureTests {
    let signer = SignifySecretKey.generate(comment: "update test")
    let published = WallInstant(secondsSinceEpoch: 1_795_478_400)

    func verified(_ software: ChannelSoftware?, version: UInt64 = 5) throws -> UpdateRequestCheck.Verified {
        let request = try signedRequest(software, version: version)
        return try UpdateRequestCheck.verify(request, channelKeys: [signer.publicKey], rootKeys: [], state: UpdateHelperState(),
                                             now: published + 60).get()
    }

    func signedRequest(_ software: ChannelSoftware?, version: UInt64 = 5) throws -> UpdateRequest {
        var configuration = KioskConfiguration()
        configuration.slides = [SlideConfiguration(path: "https://example.com/a.jpg", duration: .seconds(8))]
        let manifest = ChannelManifest.document(version: version, published: published, expires: published + 86_400, epoch: nil,
                                                configuration: configuration, blobs: [], software: software)
        return UpdateRequest(manifest: manifest, signature: try signer.sign(manifest, comment: "test").fileBytes)
    }

    func procedure(_ board: FakeBoard, log: @escaping (String) -> Void = { _ in }) -> UpdateProcedure {
        UpdateProcedure(system: board, steady: .seconds(30), deadline: .seconds(180), pollInterval: .seconds(1), log: log)
    }

    @Test func installsTheNamedVersionAndKeepsItWhenHealthy() throws {
        let board = FakeBoard(installed: "1.0.0", offered: ["1.0.0", "1.1.0"])
        var state = UpdateHelperState()
        var saved: [UpdateHelperState] = []
        let report = procedure(board).run(try verified(ChannelSoftware(version: "1.1.0", floor: "1.0.0")), group: nil, state: &state,
                                          wallNow: published) { saved.append($0) }
        #expect(report.outcome == .installed)
        #expect(report.installed == "1.1.0" && report.from == "1.0.0" && report.floor == "1.0.0")
        #expect(board.steps == ["update", "pin 1.1.0", "stop", "snapshot", "install 1.1.0", "drop snapshot"])
        #expect(board.state == "state of 1.1.0")
        // The floor and the manifest version are saved before anything is installed.
        #expect(saved.first == UpdateHelperState(floor: "1.0.0", manifestVersion: 5, rootVersion: 0))
        // Steady from 5 s to 35 s after the install.
        #expect(board.clock - board.startedAt == .seconds(35))
    }

    @Test func aBrokenVersionIsRolledBackWithTheStateItHadAndNotTriedAgain() throws {
        let board = FakeBoard(installed: "1.0.0", offered: ["1.0.0", "1.1.0"])
        board.brokenVersions = ["1.1.0"]
        var state = UpdateHelperState()
        let report = procedure(board).run(try verified(ChannelSoftware(version: "1.1.0")), group: nil, state: &state, wallNow: published) { _ in }
        #expect(report.outcome == .rolledBack)
        #expect(report.installed == "1.0.0" && report.wanted == "1.1.0")
        #expect(report.detail.contains("restarted 2 times"))
        #expect(board.steps == ["update", "pin 1.1.0", "stop", "snapshot", "install 1.1.0", "stop", "restore", "pin 1.0.0", "install 1.0.0"])
        #expect(board.pinned == "1.0.0")
        // The old version reads the state it left, not what 1.1.0 migrated (the fake's install
        // writes its own; restore puts the snapshot back before the old version starts).
        #expect(board.state == "state of 1.0.0" || board.state == "old state")
        #expect(state.failed["1.1.0"]?.contains("restarted") == true)

        // The same manifest again (after a reboot): refused, nothing installed.
        board.steps = []
        let again = procedure(board).run(try verified(ChannelSoftware(version: "1.1.0")), group: nil, state: &state, wallNow: published) { _ in }
        #expect(again.outcome == .refused)
        #expect(again.detail.contains("rolled back on this board before"))
        #expect(board.steps == ["update", "pin 1.0.0"])

        // A channel that names another version clears the record.
        _ = procedure(board).run(try verified(ChannelSoftware(version: "1.0.0"), version: 6), group: nil, state: &state, wallNow: published) { _ in }
        #expect(state.failed.isEmpty)
    }

    @Test func aStolenKeyCannotGoUnderTheFloor() throws {
        let board = FakeBoard(installed: "1.2.0", offered: ["0.9.0", "1.2.0"])
        var state = UpdateHelperState(floor: "1.1.0")
        // The manifest tries to lower the floor, too.
        let report = procedure(board).run(try verified(ChannelSoftware(version: "0.9.0", floor: "0.1")), group: nil, state: &state, wallNow: published) { _ in }
        #expect(report.outcome == .refused)
        #expect(report.detail.contains("older than this board's floor, 1.1.0"))
        #expect(state.floor == "1.1.0")
        #expect(!board.steps.contains { $0.hasPrefix("install") })
    }

    @Test func aGroupGetsItsOwnVersion() throws {
        let board = FakeBoard(installed: "1.0.0", offered: ["1.0.0", "1.1.0", "1.2.0"])
        var state = UpdateHelperState()
        let software = ChannelSoftware(version: "1.1.0", groups: ["canary": "1.2.0"])
        let report = procedure(board).run(try verified(software), group: "canary", state: &state, wallNow: published) { _ in }
        #expect(report.outcome == .installed && report.installed == "1.2.0")
        let other = FakeBoard(installed: "1.0.0", offered: ["1.0.0", "1.1.0", "1.2.0"])
        var otherState = UpdateHelperState()
        #expect(procedure(other).run(try verified(software), group: "lobby", state: &otherState, wallNow: published) { _ in }.installed == "1.1.0")
    }

    @Test func theInstalledVersionIsPinnedAndAChannelWithoutSoftwareUnpins() throws {
        let board = FakeBoard(installed: "1.1.0", offered: [])
        var state = UpdateHelperState()
        let same = procedure(board).run(try verified(ChannelSoftware(version: "1.1.0")), group: nil, state: &state, wallNow: published) { _ in }
        #expect(same.outcome == .unchanged)
        #expect(board.steps == ["pin 1.1.0"])
        let none = procedure(board).run(try verified(nil, version: 6), group: nil, state: &state, wallNow: published) { _ in }
        #expect(none.outcome == .unmanaged)
        #expect(board.pinned == nil)
    }

    @Test func aSnapshotThatFailsInstallsNothingAndStartsTheKioskAgain() throws {
        let board = FakeBoard(installed: "1.0.0", offered: ["1.0.0", "1.1.0"])
        board.failSnapshot = true
        var state = UpdateHelperState()
        let report = procedure(board).run(try verified(ChannelSoftware(version: "1.1.0")), group: nil, state: &state, wallNow: published) { _ in }
        #expect(report.outcome == .failed)
        #expect(report.detail == "nothing was installed: copy /var/lib/vitrine: No space left on device")
        #expect(board.steps == ["update", "pin 1.1.0", "stop", "pin 1.0.0", "start"])
        #expect(board.installed == "1.0.0" && board.pinned == "1.0.0")
    }

    @Test func aKioskNotInstalledByDpkgIsRefusedBeforeAptIsAsked() throws {
        let board = FakeBoard(installed: nil, offered: ["1.1.0"])
        var state = UpdateHelperState()
        let report = procedure(board).run(try verified(ChannelSoftware(version: "1.1.0")), group: nil, state: &state, wallNow: published) { _ in }
        #expect(report.outcome == .refused)
        #expect(report.detail.hasPrefix("the vitrine package is not installed"))
        #expect(board.steps.isEmpty)
    }

    @Test func anInstallThatFailsPutsThePreviousVersionBack() throws {
        let board = FakeBoard(installed: "1.0.0", offered: ["1.0.0", "1.1.0"])
        board.failInstallOf = ["1.1.0"]
        var state = UpdateHelperState()
        let report = procedure(board).run(try verified(ChannelSoftware(version: "1.1.0")), group: nil, state: &state, wallNow: published) { _ in }
        #expect(report.outcome == .rolledBack)
        #expect(report.detail.contains("E: broken dependencies"))
        #expect(board.installed == "1.0.0" && board.state == "state of 1.0.0")
    }

    @Test func aRollbackThatDoesNotComeBackIsAFailureForAPerson() throws {
        let board = FakeBoard(installed: "1.0.0", offered: ["1.0.0", "1.1.0"])
        board.brokenVersions = ["1.1.0", "1.0.0"]
        var state = UpdateHelperState()
        let report = procedure(board).run(try verified(ChannelSoftware(version: "1.1.0")), group: nil, state: &state, wallNow: published) { _ in }
        #expect(report.outcome == .failed)
        #expect(report.detail.contains("1.0.0 is back but not healthy either"))
    }
}
