import Glibc
import VitrineChannel
import VitrineConfig
import VitrineCore
import VitrineSystem

/// One run of `vitrine setup`, as root at boot before the kiosk starts
/// (`vitrine-setup.service`): the card's files read, the plan carried out
/// on the system under `root` ("" on a board; a fixture tree in tests),
/// the card written back (secrets taken off, a result file), and the record kept.
public struct CardSetupRun {
    /// The boot partition (`/boot/firmware`), as the process opens it.
    public var boot: String
    /// Where the system's files are: "" on a board.
    public var root: String
    /// The kiosk's user, which owns its state directory; nil where it does not exist (tests).
    public var kioskOwner: (uid: uid_t, gid: gid_t)?
    /// Commands run after the files are written (`nmcli connection reload`, `iw reg set`); none in tests.
    public var runCommands: Bool
    public var log: (String) -> Void

    public init(boot: String, root: String = "", kioskOwner: (uid: uid_t, gid: gid_t)? = CardSetupRun.vitrineUser(),
                runCommands: Bool = true, log: @escaping (String) -> Void) {
        self.boot = boot
        self.root = root
        self.kioskOwner = kioskOwner
        self.runCommands = runCommands
        self.log = log
    }

    public static func vitrineUser() -> (uid: uid_t, gid: gid_t)? {
        guard let entry = getpwnam("vitrine") else { return nil }
        return (entry.pointee.pw_uid, entry.pointee.pw_gid)
    }

    static let configurationPath = "/etc/vitrine/vitrine.yaml"
    static let starterConfiguration = "/usr/share/vitrine/vitrine.yaml"
    static let kioskState = "/var/lib/vitrine"
    static let recordDirectory = "/var/lib/vitrine-setup"
    static let connectionPath = "/etc/NetworkManager/system-connections/vitrine-wifi.nmconnection"
    static let countryPath = "/etc/modprobe.d/vitrine-wifi-country.conf"

    func path(_ absolute: String) -> String { root + absolute }

    /// What was done, one line each; nil when the card holds no setup file.
    @discardableResult
    public func run() -> [String]? {
        var card: [String: [UInt8]] = [:]
        for name in CardSetupFiles.all {
            if let bytes = try? FileIO.read(boot + "/" + name, limit: 1 << 20) { card[name] = bytes }
        }
        guard !card.isEmpty else { return nil }
        let recordPath = path(Self.recordDirectory + "/" + CardSetupRecord.fileName)
        let previous = (try? FileIO.read(recordPath, limit: 1 << 20)).map(CardSetupRecord.parse) ?? CardSetupRecord()
        let plan = CardSetupPlan.decide(card: card, taken: previous, configurationIssues: { bytes in
            // Checked where it will live, so that relative paths (images/...) mean what they will mean.
            do {
                _ = try ConfigLoader.parse(String(decoding: bytes, as: UTF8.self), baseDirectory: path("/etc/vitrine"), source: CardSetupFiles.configuration)
                return []
            } catch let error as ConfigError {
                return error.issues.map(\.description)
            } catch {
                return ["\(error)"]
            }
        }, zoneExists: { name in access(path("/usr/share/zoneinfo/" + name), R_OK) == 0 })

        var done: [String] = []
        // A file whose action failed keeps what it holds on the card (a secret
        // included), so that the next boot can try again; its record is dropped.
        var failedFiles: Set<String> = []
        var record = plan.record
        for action in plan.actions {
            do {
                done.append(try apply(action))
            } catch {
                // A `CardSetupProblem` names its file already.
                let named = (error as? CardSetupProblem).map { $0.file == action.file } ?? false
                done.append(named ? "failed: \(error)" : "failed: \(action.file): \(error)")
                failedFiles.insert(action.file)
                record.taken[action.file] = nil
            }
        }
        for problem in plan.problems { log("not taken: \(problem)") }
        for line in done { log(line) }
        do {
            try ensureDirectory(path(Self.recordDirectory), mode: 0o700)
            try FileIO.writeAtomically(record.json, to: recordPath, mode: 0o600)
        } catch {
            log("cannot keep the record in \(recordPath): \(error); the card's files are taken again at the next boot")
        }
        writeCard(plan, done: done, skipping: failedFiles)
        return done + plan.problems.map { "not taken: \($0)" }
    }

    private func apply(_ action: CardSetupPlan.Action) throws -> String {
        switch action {
        case .factoryReset:
            try factoryReset()
            return "factory reset: \(Self.kioskState) emptied, \(Self.configurationPath) back to the starter configuration"
        case .configuration(let bytes):
            try FileIO.writeAtomically(bytes, to: path(Self.configurationPath), mode: 0o640)
            if let owner = kioskOwner { chown(path(Self.configurationPath), 0, owner.gid) }
            return "took \(CardSetupFiles.configuration) as \(Self.configurationPath): it shows at the kiosk's start"
        case .token(let token):
            try ensureDirectory(path(Self.kioskState), mode: 0o700, owner: kioskOwner)
            let file = path(Self.kioskState + "/api-token")
            try FileIO.writeAtomically(Array((token + "\n").utf8), to: file, mode: 0o600)
            if let owner = kioskOwner { chown(file, owner.uid, owner.gid) }
            return "took \(CardSetupFiles.token) as the API token (api.token in the configuration file wins over it), and removed it from the card"
        case .timeZone(let name):
            let link = path("/etc/localtime")
            unlink(link)
            guard symlink("/usr/share/zoneinfo/" + name, link) == 0 else { throw SystemError("symlink", subject: link) }
            try FileIO.writeAtomically(Array((name + "\n").utf8), to: path("/etc/timezone"), mode: 0o644)
            return "set the time zone to \(name)"
        case .wifi(let settings):
            guard access(path("/etc/NetworkManager"), F_OK) == 0 else {
                throw CardSetupProblem(file: CardSetupFiles.wifi, message: "NetworkManager is not installed (no /etc/NetworkManager): set the network up as this system does, or install network-manager")
            }
            try ensureDirectory(path("/etc/NetworkManager/system-connections"), mode: 0o700)
            try FileIO.writeAtomically(Array(settings.keyfile(uuid: Self.uuid(for: settings.ssid)).utf8), to: path(Self.connectionPath), mode: 0o600)
            try ensureDirectory(path("/etc/modprobe.d"), mode: 0o755)
            try FileIO.writeAtomically(Array("# Written by vitrine setup from the card's \(CardSetupFiles.wifi).\noptions cfg80211 ieee80211_regdom=\(settings.country)\n".utf8),
                                       to: path(Self.countryPath), mode: 0o644)
            if runCommands {
                _ = try? ProgramOutput.run("/usr/sbin/iw", ["reg", "set", settings.country])
                _ = try? ProgramOutput.run("/usr/bin/nmcli", ["connection", "reload"], timeout: .seconds(20))
            }
            return "took \(CardSetupFiles.wifi): NetworkManager joins \"\(settings.ssid)\" (country \(settings.country)); the password is off the card"
        case .channelRoot(let bytes, let signature):
            return try takeChannelRoot(bytes, signature: signature)
        }
    }

    /// The kiosk's state emptied (configuration pushed, pictures, token, channel
    /// record, plays) and its configuration file back to the package's starter.
    /// The network and the update helper's floor are kept: a board reset far
    /// away must still be reachable, and must not become downgradable.
    private func factoryReset() throws {
        let state = path(Self.kioskState)
        for name in FileIO.names(in: state) {
            let done = try ProgramOutput.run("/usr/bin/rm", ["-rf", "--one-file-system", "--", state + "/" + name], timeout: .seconds(300))
            guard done.ending == .exited(0) else {
                throw CardSetupProblem(file: CardSetupFiles.factoryReset, message: "rm -rf \(state)/\(name): \(done.ending)")
            }
        }
        let starter = try FileIO.read(path(Self.starterConfiguration))
        try FileIO.writeAtomically(starter, to: path(Self.configurationPath), mode: 0o640)
        if let owner = kioskOwner { chown(path(Self.configurationPath), 0, owner.gid) }
    }

    /// A channel root from the card, taken when it verifies with the
    /// configuration's `channel.root` keys and is newer than the one the
    /// kiosk holds; stored where the channel follower keeps it, which checks
    /// it again at its start.
    private func takeChannelRoot(_ bytes: [UInt8], signature: [UInt8]) throws -> String {
        let configuration = try ConfigLoader.load(file: path(Self.configurationPath))
        guard let channel = configuration.channel, !channel.rootKeys.isEmpty else {
            return "not taken: \(CardSetupFiles.channelRoot): \(Self.configurationPath) has no channel.root keys to check it with"
        }
        let keys = try ChannelTrust.rootKeys(channel)
        let stored = path(Self.kioskState + "/channel-" + ChannelRoot.fileName)
        let current = (try? FileIO.read(stored, limit: 1 << 20)).flatMap { try? ChannelRoot.parse($0) }?.version ?? 0
        let root: ChannelRoot
        do {
            root = try ChannelRootVerifier(rootKeys: keys).verify(root: bytes, signature: signature, currentVersion: current)
        } catch {
            return "not taken: \(CardSetupFiles.channelRoot): \(error)"
        }
        try ensureDirectory(path(Self.kioskState), mode: 0o700, owner: kioskOwner)
        // The signature first, as the follower writes them (a root without its signature is ignored).
        let signaturePath = path(Self.kioskState + "/channel-" + ChannelRoot.signatureFileName)
        try FileIO.writeAtomically(signature, to: signaturePath, mode: 0o640)
        try FileIO.writeAtomically(bytes, to: stored, mode: 0o640)
        if let owner = kioskOwner {
            chown(signaturePath, owner.uid, owner.gid)
            chown(stored, owner.uid, owner.gid)
        }
        return "took \(CardSetupFiles.channelRoot): channel root version \(root.version) (the kiosk held \(current == 0 ? "none" : "version \(current)"))"
    }

    /// Secrets off the card, the reset file removed, and the result file written.
    private func writeCard(_ plan: CardSetupPlan, done: [String], skipping failedFiles: Set<String>) {
        for (name, contents) in plan.cardWrites.sorted(by: { $0.key < $1.key }) where !failedFiles.contains(name) {
            let file = boot + "/" + name
            do {
                // A secret's bytes are overwritten where they lie before the file goes or is
                // replaced: either alone would leave them in the partition's free blocks.
                if CardSetupFiles.secrets.contains(name) { try FileIO.overwriteWithZeros(file) }
                if let contents {
                    try FileIO.writeAtomically(contents, to: file, mode: 0o644)
                } else {
                    try FileIO.remove(file, durable: true)
                }
            } catch {
                log("cannot change \(file) on the card: \(error)")
            }
        }
        let lines = done + plan.problems.map { "not taken: \($0)" }
        guard !lines.isEmpty else { return }
        let text = "# vitrine setup, at the last boot that found something to do on this card.\n" + lines.joined(separator: "\n") + "\n"
        do {
            try FileIO.writeAtomically(Array(text.utf8), to: boot + "/" + CardSetupFiles.result, mode: 0o644)
        } catch {
            log("cannot write \(CardSetupFiles.result) on the card: \(error)")
        }
    }

    private func ensureDirectory(_ directory: String, mode: mode_t, owner: (uid: uid_t, gid: gid_t)? = nil) throws {
        if access(directory, F_OK) != 0 {
            guard mkdir(directory, mode) == 0 || errno == EEXIST else { throw SystemError("mkdir", subject: directory) }
            if let owner { chown(directory, owner.uid, owner.gid) }
        }
    }

    /// The same network gets the same connection id across boots (a UUID made from the name).
    static func uuid(for ssid: String) -> String {
        let hex = Array(ChannelDigest.sha256(Array(("vitrine-wifi:" + ssid).utf8)))
        func digits(_ start: Int, _ count: Int) -> String { String(hex[start..<start + count]) }
        // A version 4 UUID's layout, its variant and version digits fixed.
        return [digits(0, 8), digits(8, 4), "4" + digits(13, 3), "8" + digits(17, 3), digits(20, 12)].joined(separator: "-")
    }
}
