import Glibc
import VitrineChannel
import VitrineConfig
import VitrineCore
import VitrineSystem

/// One run of `vitrine update`: the kiosk's request read and removed, checked
/// against the channel settings of the local configuration file, the
/// procedure run, and the helper's state and report written.
public struct UpdateHelperRun {
    /// Where the kiosk leaves its request (`/run/vitrine/update-request`).
    public var requestDirectory: String
    /// The local configuration file, root's: its `channel` section (URL, keys,
    /// root keys, group) is what the helper trusts. A configuration pushed
    /// through the API, which the kiosk stores, is never read here.
    public var configurationFile: String
    public var system: DebianUpdateSystem
    public var steady: Duration
    public var deadline: Duration
    public var log: (String) -> Void

    public init(requestDirectory: String, configurationFile: String, system: DebianUpdateSystem, steady: Duration, deadline: Duration,
                log: @escaping (String) -> Void) {
        self.requestDirectory = requestDirectory
        self.configurationFile = configurationFile
        self.system = system
        self.steady = steady
        self.deadline = deadline
        self.log = log
    }

    var statePath: String { system.helperState + "/" + UpdateHelperState.fileName }
    var reportPath: String { system.helperState + "/" + SoftwareUpdateReport.fileName }

    /// Nil when there was no request; otherwise the report written.
    public func run(now: WallInstant) -> SoftwareUpdateReport? {
        guard let request = takeRequest() else { return nil }
        let report = decide(request, now: now)
        do {
            // 0644: the kiosk (another user) reads it for its status.
            try FileIO.writeAtomically(report.json, to: reportPath, mode: 0o644)
        } catch {
            log("cannot write \(reportPath): \(error)")
        }
        return report
    }

    private func decide(_ request: UpdateRequest, now: WallInstant) -> SoftwareUpdateReport {
        func refused(_ outcome: SoftwareUpdateReport.Outcome, _ detail: String) -> SoftwareUpdateReport {
            log("\(outcome.rawValue): \(detail)")
            let installed = try? system.installedVersion()
            return SoftwareUpdateReport(at: now, outcome: outcome, installed: installed ?? nil, detail: detail)
        }
        let channel: ChannelConfiguration
        let channelKeys: [SignifyPublicKey]
        let rootKeys: [SignifyPublicKey]
        do {
            guard let section = try ConfigLoader.load(file: configurationFile).channel else {
                return refused(.refused, "\(configurationFile) has no channel section: updates are taken only from a channel whose keys this file names")
            }
            channel = section
            channelKeys = try ChannelTrust.keys(section)
            rootKeys = try ChannelTrust.rootKeys(section)
        } catch {
            return refused(.failed, "\(configurationFile): \(error)")
        }

        var state = UpdateHelperState()
        if access(statePath, F_OK) == 0 {
            // An unreadable state is never taken as empty: that would forget the floor.
            do {
                state = try UpdateHelperState.parse(try FileIO.read(statePath, limit: 1 << 20)).get()
            } catch {
                return refused(.failed, "\(statePath) cannot be read (\(error)), so the floor is unknown: nothing is installed until it is repaired or removed")
            }
        }
        let verified: UpdateRequestCheck.Verified
        switch UpdateRequestCheck.verify(request, channelKeys: channelKeys, rootKeys: rootKeys, state: state, now: now) {
        case .success(let checked): verified = checked
        case .failure(let error): return refused(.refused, "channel \(channel.url): \(error)")
        }
        let procedure = UpdateProcedure(system: system, steady: steady, deadline: deadline, log: log)
        return procedure.run(verified, group: channel.group, state: &state, wallNow: now) { state throws(UpdateStepError) in
            do {
                try FileIO.writeAtomically(state.json, to: statePath, mode: 0o600)
            } catch {
                throw UpdateStepError(step: "write \(statePath)", message: "\(error)")
            }
        }
    }

    /// The request's files, and the directory removed: each request is acted
    /// on once (`vitrine-update.path` starts the helper again when the kiosk
    /// leaves a new one).
    private func takeRequest() -> UpdateRequest? {
        guard access(requestDirectory, F_OK) == 0 else { return nil }
        defer { _ = try? system.run("remove \(requestDirectory)", "/usr/bin/rm", ["-rf", requestDirectory]) }
        // The kiosk's user made these: root follows no link of theirs (a link to
        // /etc/shadow would be read as root), and reads only plain files.
        guard Self.isPlain(requestDirectory, kind: S_IFDIR) else {
            log("\(requestDirectory) is not a directory of its own (a link?): ignored")
            return nil
        }
        func read(_ name: String, limit: Int) -> [UInt8]? {
            let file = requestDirectory + "/" + name
            guard Self.isPlain(file, kind: S_IFREG) else { return nil }
            return try? FileIO.read(file, limit: limit)
        }
        guard let manifest = read(ChannelManifest.fileName, limit: UpdateRequest.manifestLimit),
              let signature = read(ChannelManifest.signatureFileName, limit: UpdateRequest.signatureLimit) else {
            log("\(requestDirectory) has no readable \(ChannelManifest.fileName) and \(ChannelManifest.signatureFileName): ignored")
            return nil
        }
        return UpdateRequest(manifest: manifest, signature: signature,
                             root: read(ChannelRoot.fileName, limit: UpdateRequest.manifestLimit),
                             rootSignature: read(ChannelRoot.signatureFileName, limit: UpdateRequest.signatureLimit))
    }

    /// Whether `path` itself (not what a link names) is of `kind`.
    static func isPlain(_ path: String, kind: mode_t) -> Bool {
        var status = stat()
        return lstat(path, &status) == 0 && status.st_mode & S_IFMT == kind
    }
}
