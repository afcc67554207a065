import FoundationEssentials
import Glibc
import VitrineSystem

/// A reboot of the whole board, asked for through the API, for a board that
/// needs one (a wedged driver, a kernel update).
///
/// The kiosk cannot reboot anything itself: it runs as an unprivileged user
/// with no capabilities. The package's `vitrine-reboot.path` unit watches for
/// `reboot-requested` in the kiosk's runtime directory (`$RUNTIME_DIRECTORY`,
/// /run/vitrine, which only the kiosk's user and root can write), and starts
/// `vitrine-reboot.service`, which runs as root, removes the file, waits two
/// seconds and reboots. No polkit rule and no D-Bus: the request's only
/// channel is a file that one user can make, and what it asks is fixed.
public struct BoardReboot: Sendable {
    /// The file the path unit watches; nil where the kiosk has no runtime directory (not started by systemd).
    public let requestFile: String?
    /// Where the path unit is looked for: only a board with it installed can do what is asked.
    public let unitFiles: [String]
    /// How long `vitrine-reboot.service` waits before rebooting (its `ExecStartPre=sleep`).
    public static let delaySeconds = 2
    public static let requestFileName = "reboot-requested"
    /// The package's (/lib, /usr/lib), deploy/install.sh's (/usr/local/lib), an administrator's (/etc).
    public static let standardUnitFiles = ["/etc/systemd/system/vitrine-reboot.path", "/lib/systemd/system/vitrine-reboot.path",
                                           "/usr/lib/systemd/system/vitrine-reboot.path",
                                           "/usr/local/lib/systemd/system/vitrine-reboot.path"]
    /// How long the request may wait for the path unit to take it (it takes it within
    /// milliseconds when it runs: the service removes the file first).
    public let takeTimeout: Duration

    public init(runtimeDirectory: String? = ProcessInfo.processInfo.environment["RUNTIME_DIRECTORY"],
                unitFiles: [String] = BoardReboot.standardUnitFiles, takeTimeout: Duration = .seconds(3)) {
        self.takeTimeout = takeTimeout
        // systemd lists several directories, colon-separated, when a unit has several; Vitrine's has one.
        requestFile = runtimeDirectory.flatMap { $0.split(separator: ":").first }.map { "\($0)/\(Self.requestFileName)" }
        self.unitFiles = unitFiles
    }

    /// Why this kiosk cannot reboot its board, or nil when it can.
    public var unavailableReason: String? {
        guard unitFiles.contains(where: { access($0, F_OK) == 0 }) else {
            return "this kiosk cannot reboot its board: the vitrine-reboot.path unit is not installed (the vitrine package installs it, "
                + "and deploy/install.sh)"
        }
        guard requestFile != nil else {
            return "this kiosk cannot reboot its board: it was not started by vitrine.service (no RUNTIME_DIRECTORY for the request file)"
        }
        return nil
    }

    /// What became of a request.
    public enum Outcome: Equatable, Sendable {
        /// The path unit took it: the board reboots.
        case taken
        /// Nothing took it within `takeTimeout` (the path unit is installed but disabled or
        /// stopped); it was withdrawn, so that starting the unit later does not reboot the board then.
        case notTaken
    }

    /// Leaves the request for the path unit and waits for it to be taken.
    /// Throws, naming the file, when it cannot be written.
    public func request() async throws -> Outcome {
        guard let requestFile else { throw SystemError("open", errno: .noSuchFileOrDirectory, subject: "$RUNTIME_DIRECTORY") }
        // Written whole and renamed into place, so that the path unit sees it appear once; /run is memory, so not fsynced.
        try FileIO.writeAtomically(Array("reboot asked for through the API\n".utf8), to: requestFile, mode: 0o600, durable: false)
        let deadline = ContinuousClock.now + takeTimeout
        while ContinuousClock.now < deadline {
            if access(requestFile, F_OK) != 0 { return .taken }
            try? await Task.sleep(for: .milliseconds(20))
        }
        if access(requestFile, F_OK) != 0 { return .taken }
        unlink(requestFile)
        return .notTaken
    }
}
