import Glibc
import VitrineCore
import VitrineSystem

/// The board as Debian has it: dpkg and apt for the package, systemd for the
/// kiosk's unit, and the kiosk's state directory on disk. Run as root, by
/// `vitrine update` in `vitrine-update.service`; every program is started
/// by absolute path with a fixed environment (`ProgramOutput`).
public struct DebianUpdateSystem: UpdateSystem {
    /// Vitrine's apt source, as docs/apt-repository.md writes it: the only
    /// one fetched again before an update, so that an unrelated mirror that
    /// is down cannot hold a fleet's update back.
    public var aptSource: String
    /// The kiosk's state directory (`vitrine.service`'s StateDirectory).
    public var kioskState: String
    /// The helper's own directory: the snapshot lives here, on the same file
    /// system as the kiosk's state as a rule, so that pictures are hard links.
    public var helperState: String
    public var pinFile: String
    public var unit: String

    public static let standardPinFile = "/etc/apt/preferences.d/vitrine-update.pref"

    public init(aptSource: String = "/etc/apt/sources.list.d/vitrine.sources", kioskState: String = "/var/lib/vitrine",
                helperState: String = SoftwareUpdateReport.standardDirectory, pinFile: String = standardPinFile,
                unit: String = "vitrine.service") {
        self.aptSource = aptSource
        self.kioskState = kioskState
        self.helperState = helperState
        self.pinFile = pinFile
        self.unit = unit
    }

    var snapshotDirectory: String { helperState + "/snapshot" }
    /// The state a failed version left, kept for a person to look at (one, the latest).
    var failedStateDirectory: String { helperState + "/failed-state" }

    /// unattended-upgrades may hold dpkg's lock when a request comes: wait for
    /// it (apt 1.9.11 and later) rather than fail the update.
    static let lockWait = "DPkg::Lock::Timeout=300"

    static let environment = ["PATH=/usr/sbin:/usr/bin:/sbin:/bin", "DEBIAN_FRONTEND=noninteractive", "LC_ALL=C.UTF-8"]

    /// Runs a program; a failure carries its last lines.
    @discardableResult
    func run(_ step: String, _ path: String, _ arguments: [String], timeout: Duration = .seconds(60)) throws(UpdateStepError) -> String {
        let result: ProgramOutput.Run
        do {
            result = try ProgramOutput.run(path, arguments, timeout: timeout, limit: 1 << 20, environment: Self.environment, mergingErrors: true)
        } catch {
            throw UpdateStepError(step: step, message: "\(error)")
        }
        guard result.ending == .exited(0) else {
            let tail = result.output.split(separator: "\n").suffix(4).joined(separator: " | ")
            throw UpdateStepError(step: step, message: "\(result.ending)\(tail.isEmpty ? "" : ": " + tail)")
        }
        return result.output
    }

    public func installedVersion() throws(UpdateStepError) -> String? {
        let result: ProgramOutput.Run
        do {
            result = try ProgramOutput.run("/usr/bin/dpkg-query", ["-W", "-f=${db:Status-Abbrev}|${Version}", "vitrine"],
                                           environment: Self.environment)
        } catch {
            throw UpdateStepError(step: "dpkg-query -W vitrine", message: "\(error)")
        }
        // Exit 1: dpkg has never heard of vitrine. "rc": removed, its files gone.
        guard result.ending == .exited(0) else { return nil }
        return Self.installed(fromQuery: result.output)
    }

    /// `dpkg-query -W -f='${db:Status-Abbrev}|${Version}'`'s answer: the
    /// version when the package is installed ("ii"), nil otherwise.
    public static func installed(fromQuery output: String) -> String? {
        let fields = output.split(separator: "|", maxSplits: 1).map(\.trimmingWhitespace)
        guard fields.count == 2, fields[0] == "ii", !fields[1].isEmpty else { return nil }
        return fields[1]
    }

    public func refreshIndex() throws(UpdateStepError) {
        guard access(aptSource, R_OK) == 0 else {
            throw UpdateStepError(step: "apt-get update", message: "\(aptSource) does not exist: add Vitrine's apt source as docs/apt-repository.md says")
        }
        let output = try run("apt-get update (\(aptSource))", "/usr/bin/apt-get",
                             ["update", "-q", "-o", "Dir::Etc::SourceList=\(aptSource)", "-o", "Dir::Etc::SourceParts=/nonexistent",
                              "-o", "APT::Get::List-Cleanup=0", "-o", Self.lockWait], timeout: .seconds(600))
        // apt-get update exits 0 with a warning when a source cannot be fetched or verified.
        if let line = output.split(separator: "\n").first(where: { $0.hasPrefix("Err:") || $0.hasPrefix("W: GPG") || $0.hasPrefix("E:") }) {
            throw UpdateStepError(step: "apt-get update (\(aptSource))", message: String(line))
        }
    }

    public func offeredVersions() throws(UpdateStepError) -> [String] {
        Self.offered(fromMadison: try run("apt-cache madison vitrine", "/usr/bin/apt-cache", ["madison", "vitrine"]))
    }

    /// `apt-cache madison vitrine`'s versions, from the repositories' lists
    /// only (`Packages`; not dpkg's status file, which lists what is installed).
    static func offered(fromMadison output: String) -> [String] {
        // "   vitrine |    0.1.0 | http://repo.example/bookworm bookworm/main amd64 Packages"
        output.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: "|").map(\.trimmingWhitespace)
            guard fields.count >= 3, fields[0] == "vitrine", fields[2].hasSuffix("Packages") else { return nil }
            return fields[1]
        }
    }

    public func pin(_ version: String?) throws(UpdateStepError) {
        guard let version else {
            if access(pinFile, F_OK) == 0 {
                do { try FileIO.remove(pinFile) } catch { throw UpdateStepError(step: "remove \(pinFile)", message: "\(error)") }
            }
            return
        }
        // Above 1000: apt's candidate is this version even when a newer one is
        // offered, so that `apt upgrade` and unattended-upgrades stay on it.
        let text = """
            # Written by vitrine-update: the vitrine version this board's fleet channel names.
            # It is rewritten at each channel version; see docs/updates.md.
            Explanation: vitrine is held at the version the fleet channel names
            Package: vitrine
            Pin: version \(version)
            Pin-Priority: 1001

            """
        do {
            try FileIO.writeAtomically(Array(text.utf8), to: pinFile, mode: 0o644)
        } catch {
            throw UpdateStepError(step: "write \(pinFile)", message: "\(error)")
        }
    }

    public func stopKiosk() throws(UpdateStepError) {
        try run("systemctl stop \(unit)", "/usr/bin/systemctl", ["stop", unit], timeout: .seconds(60))
    }

    public func startKiosk() throws(UpdateStepError) {
        try run("systemctl start \(unit)", "/usr/bin/systemctl", ["start", unit], timeout: .seconds(120))
    }

    /// The state directory copied to `snapshot/`. Pictures (`assets/`) are
    /// hard links: the kiosk replaces a picture by renaming a new file over
    /// it, never rewriting it, so the snapshot's links keep the old bytes;
    /// everything else (configuration, records, the play log, which is
    /// appended to in place) is copied.
    public func snapshotState() throws(UpdateStepError) {
        dropSnapshot()
        let target = snapshotDirectory + "/state"
        try run("mkdir \(snapshotDirectory)", "/usr/bin/install", ["-d", "-m", "0700", snapshotDirectory])
        try run("mkdir \(target)", "/usr/bin/mkdir", [target])
        try run("chown \(target)", "/usr/bin/chown", ["--reference=\(kioskState)", target])
        try run("chmod \(target)", "/usr/bin/chmod", ["--reference=\(kioskState)", target])
        for entry in FileIO.names(in: kioskState) {
            let source = kioskState + "/" + entry
            let destination = target + "/" + entry
            if entry == "assets" {
                do {
                    try run("link \(source)", "/usr/bin/cp", ["-a", "--link", "--no-target-directory", "--remove-destination", source, destination],
                            timeout: .seconds(300))
                    continue
                } catch {
                    // Another file system (EXDEV): copied like the rest.
                }
            }
            try run("copy \(source)", "/usr/bin/cp", ["-a", "--reflink=auto", "--no-target-directory", "--remove-destination", source, destination],
                    timeout: .seconds(600))
        }
    }

    /// The failed version's state moved to `failed-state/` (for a person to
    /// look at), the snapshot renamed into its place.
    public func restoreState() throws(UpdateStepError) {
        let snapshot = snapshotDirectory + "/state"
        guard access(snapshot, F_OK) == 0 else { throw UpdateStepError(step: "restore \(kioskState)", message: "no snapshot at \(snapshot)") }
        _ = try? run("remove \(failedStateDirectory)", "/usr/bin/rm", ["-rf", "--one-file-system", failedStateDirectory], timeout: .seconds(300))
        do {
            if access(kioskState, F_OK) == 0 { try FileIO.rename(kioskState, to: failedStateDirectory) }
            try FileIO.rename(snapshot, to: kioskState)
        } catch {
            // Not the same file system: copied back instead.
            try run("copy \(snapshot) back", "/usr/bin/cp", ["-a", "--no-target-directory", snapshot, kioskState], timeout: .seconds(600))
        }
        dropSnapshot()
    }

    public func dropSnapshot() {
        _ = try? run("remove \(snapshotDirectory)", "/usr/bin/rm", ["-rf", "--one-file-system", snapshotDirectory], timeout: .seconds(300))
    }

    public func install(_ version: String) throws(UpdateStepError) {
        // --force-confold: a configuration file the board changed is kept, never asked about.
        try run("apt-get install vitrine=\(version)", "/usr/bin/apt-get",
                ["install", "-y", "-q", "--no-install-recommends", "--allow-downgrades", "-o", "Dpkg::Options::=--force-confold",
                 "-o", Self.lockWait, "vitrine=\(version)"], timeout: .seconds(900))
    }

    public func sample() -> ServiceHealthWatch.Sample {
        Self.sample(fromShow: (try? run("systemctl show \(unit)", "/usr/bin/systemctl",
                                        ["show", unit, "-p", "ActiveState", "-p", "NRestarts", "-p", "MainPID"])) ?? "")
    }

    /// `systemctl show -p ActiveState -p NRestarts -p MainPID`'s lines; a
    /// unit systemd cannot be asked about reads as "unknown", never as active.
    static func sample(fromShow output: String) -> ServiceHealthWatch.Sample {
        var values: [Substring: Substring] = [:]
        for line in output.split(separator: "\n") {
            guard let equals = line.firstIndex(of: "=") else { continue }
            values[line[..<equals]] = line[line.index(after: equals)...]
        }
        return ServiceHealthWatch.Sample(activeState: values["ActiveState"].map(String.init) ?? "unknown",
                                         restarts: values["NRestarts"].flatMap { UInt64($0) } ?? 0,
                                         mainPID: values["MainPID"].flatMap { Int32($0) } ?? 0)
    }

    public func now() -> Duration { .nanoseconds(MonotonicClock.now().nanoseconds) }

    public func sleep(_ duration: Duration) {
        var request = timespec(tv_sec: Int(duration.components.seconds), tv_nsec: Int(duration.components.attoseconds / 1_000_000_000))
        var remaining = timespec()
        while nanosleep(&request, &remaining) != 0 && errno == EINTR { request = remaining }
    }
}
