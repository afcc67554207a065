import Glibc
import VitrineSystem

/// Where the kiosk leaves its requests for the update helper: a directory
/// `update-request` in its runtime directory (`/run/vitrine`), which
/// `vitrine-update.path` watches. The kiosk's side; it writes, never decides.
public struct UpdateRequestOutbox: Equatable, Sendable {
    public var runtimeDirectory: String

    /// The unit files that say the helper is installed (the vitrine package installs them).
    public static let standardUnitFiles = ["/etc/systemd/system/vitrine-update.path", "/lib/systemd/system/vitrine-update.path",
                                           "/usr/lib/systemd/system/vitrine-update.path"]

    public init(runtimeDirectory: String) {
        self.runtimeDirectory = runtimeDirectory
    }

    /// The outbox of a kiosk started by `vitrine.service` (RUNTIME_DIRECTORY
    /// set) on a board with the helper's path unit installed; nil elsewhere
    /// (a development run, deploy/install.sh), where nobody would act on a request.
    public static func standard(environment: [String: String], unitFiles: [String] = standardUnitFiles) -> UpdateRequestOutbox? {
        guard let runtime = environment["RUNTIME_DIRECTORY"]?.split(separator: ":").first.map(String.init), !runtime.isEmpty,
              unitFiles.contains(where: { access($0, F_OK) == 0 }) else { return nil }
        return UpdateRequestOutbox(runtimeDirectory: runtime)
    }

    public var directory: String { runtimeDirectory + "/" + UpdateRequest.directoryName }

    /// The request, whole or not at all: written into a directory of its own,
    /// then renamed into place, so the helper (started as soon as the name
    /// exists) never reads half of one. A request the helper has not taken
    /// yet is replaced: only the newest manifest matters.
    public func leave(_ request: UpdateRequest) throws(SystemError) {
        let staging = runtimeDirectory + "/.\(UpdateRequest.directoryName).tmp-\(getpid())"
        Self.removeFlat(staging)
        guard mkdir(staging, 0o700) == 0 else { throw SystemError("mkdir", subject: staging) }
        do {
            for file in request.files {
                try FileIO.writeAtomically(file.bytes, to: staging + "/" + file.name, mode: 0o600, durable: false)
            }
            Self.removeFlat(directory)
            try FileIO.rename(staging, to: directory)
        } catch {
            Self.removeFlat(staging)
            throw error
        }
    }

    /// A directory of plain files (a request has no subdirectories) removed.
    static func removeFlat(_ path: String) {
        for name in FileIO.names(in: path) { unlink(path + "/" + name) }
        rmdir(path)
    }
}
