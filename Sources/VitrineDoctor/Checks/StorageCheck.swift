import Glibc
import VitrineCore

/// The storage the kiosk keeps its state on: ext4's error counts, whether
/// the kernel has turned a file system read-only, and the space left.
///
/// The kernel log is closed to the kiosk's user, so this reads what the
/// kernel publishes to everyone: `/sys/fs/ext4/*/errors_count`, and each
/// mount's options against its superblock's in `/proc/self/mountinfo`. A
/// file system mounted `rw` whose superblock is `ro` was remounted by the
/// kernel after an error (`errors=remount-ro`); one mounted `ro` on purpose
/// (the image's root) is only a fact.
public struct StorageCheck: DoctorCheck {
    /// The directories whose file systems matter: `/` and the state directory.
    public var directories: [String]
    /// Less free space than this on the state directory's file system is a finding.
    public static let lowSpaceBytes: UInt64 = 64 << 20

    public init(stateDirectory: String = "/var/lib/vitrine") {
        directories = Array(Set(["/", stateDirectory])).sorted()
    }

    public func run(on system: DoctorSystem) -> DoctorSection {
        var facts: [DoctorFact] = []
        var findings: [String] = []
        var status = DoctorStatus.ok
        let mounts = (system.text("/proc/self/mountinfo") ?? "").split(separator: "\n").compactMap { MountInfoLine(String($0)) }
        for directory in directories {
            guard let mount = MountInfoLine.covering(directory, in: mounts) else { continue }
            let mode = mount.remountedReadOnly ? "read-only (remounted by the kernel)" : mount.mountedReadOnly ? "read-only" : "read-write"
            facts.append(DoctorFact(directory, "\(mount.source) (\(mount.type)) on \(mount.mountPoint), \(mode)"))
            if mount.remountedReadOnly {
                status = .problem
                findings.append("\(mount.mountPoint) (\(mount.source)) went read-only after an error: the storage is failing. Back up the state directory and replace the card.")
            }
            var space = statvfs()
            if directory != "/", statvfs(system.path(directory), &space) == 0 {
                let free = UInt64(space.f_bavail) * UInt64(space.f_frsize)
                facts.append(DoctorFact("free on \(directory)", "\(free >> 20) MiB"))
                if free < Self.lowSpaceBytes {
                    status = max(status, .warning)
                    findings.append("Only \(free >> 20) MiB free for \(directory): assets and the play log need room. Remove unused assets (`DELETE /api/v1/assets/…`).")
                }
            }
        }
        for device in system.names(in: "/sys/fs/ext4") {
            guard let count = system.text("/sys/fs/ext4/\(device)/errors_count").flatMap({ Int($0) }) else { continue }
            facts.append(DoctorFact("ext4 errors on \(device)", "\(count)"))
            if count > 0 {
                status = .problem
                let first = system.text("/sys/fs/ext4/\(device)/first_error_time").flatMap { Int($0) }
                let since = first.map { " (the first at \(WallInstant(secondsSinceEpoch: Int64($0))))" } ?? ""
                findings.append("ext4 recorded \(count) error\(count == 1 ? "" : "s") on \(device)\(since): the storage is failing. Back up the state directory and replace the card.")
            }
        }
        let summary = status == .ok ? "no errors; " + (facts.first.map { "\($0.name) is \($0.value)" } ?? "nothing mounted found")
            : findings.first.map { String($0.prefix { $0 != ":" }) } ?? status.rawValue
        return DoctorSection(id: "storage", title: "Storage", status: status, summary: summary, facts: facts, findings: findings)
    }
}

/// One line of `/proc/self/mountinfo` (proc(5)).
struct MountInfoLine: Equatable {
    var mountPoint: String
    var mountOptions: [String]
    var type: String
    var source: String
    var superOptions: [String]

    init?(_ line: String) {
        // Optional fields of any number come before the " - " that ends them.
        guard let dash = line.firstRange(of: " - ") else { return nil }
        let fields = line[..<dash.lowerBound].split(separator: " ").map(String.init)
        let tail = line[dash.upperBound...].split(separator: " ").map(String.init)
        guard fields.count >= 6, tail.count >= 3 else { return nil }
        mountPoint = Self.unescape(fields[4])
        mountOptions = fields[5].split(separator: ",").map(String.init)
        type = tail[0]
        source = Self.unescape(tail[1])
        superOptions = tail[2].split(separator: ",").map(String.init)
    }

    var mountedReadOnly: Bool { mountOptions.contains("ro") }
    /// Mounted writable, but its superblock is read-only: the kernel turned it so after an error.
    var remountedReadOnly: Bool { !mountedReadOnly && superOptions.contains("ro") }

    /// The mount `path` is on: the last listed whose mount point is the longest prefix of it.
    static func covering(_ path: String, in mounts: [MountInfoLine]) -> MountInfoLine? {
        mounts.enumerated().filter { _, mount in
            mount.mountPoint == "/" || path == mount.mountPoint || path.hasPrefix(mount.mountPoint + "/")
        }.max { ($0.element.mountPoint.count, $0.offset) < ($1.element.mountPoint.count, $1.offset) }?.element
    }

    /// mountinfo writes space, tab, newline and backslash as octal escapes.
    static func unescape(_ field: String) -> String {
        var result = "", characters = Array(field), index = 0
        while index < characters.count {
            if characters[index] == "\\", index + 3 < characters.count, let code = UInt8(String(characters[(index + 1)...(index + 3)]), radix: 8) {
                result.append(Character(UnicodeScalar(code)))
                index += 4
            } else {
                result.append(characters[index])
                index += 1
            }
        }
        return result
    }
}
