import Glibc
import VitrineCore
import SystemPackage
import VitrineSystem

/// Runs another program and measures it the way the benchmarks need: wall time
/// on the monotonic clock and peak resident memory from `wait4`'s rusage.
public enum ChildProcess {
    public struct Measurement: Sendable {
        public var wall: Duration
        /// `ru_maxrss`: the child's peak resident set, in KiB.
        public var peakResidentKiB: Int
        public var exitStatus: Int32
    }

    /// Runs `arguments[0]` (looked up on PATH) with its output sent to /dev/null,
    /// under GNU time for the peak memory.
    ///
    /// `wait4`'s own `ru_maxrss` is useless here: posix_spawn starts the child
    /// with a vfork-style clone that shares this process's memory until exec, and
    /// Linux carries that high-water mark over the exec, so every child would
    /// report this (large) process's peak. GNU time's child is forked from the
    /// small `time` process instead, and `%M` is that child's true peak.
    public static func measure(_ arguments: [String]) throws(SystemError) -> Measurement {
        let report = "/tmp/vitrine-time-\(getpid()).txt"
        defer { unlink(report) }
        var measurement = try spawnAndWait(["/usr/bin/time", "-f", "%M", "-o", report] + arguments)
        guard let text = try? FileIO.read(report),
              let peak = Int(String(decoding: text, as: UTF8.self).split(separator: "\n").last ?? "") else {
            throw SystemError("measure", errno: .noSuchFileOrDirectory, subject: "/usr/bin/time output (install Debian's time package)")
        }
        measurement.peakResidentKiB = peak
        return measurement
    }

    private static func spawnAndWait(_ arguments: [String]) throws(SystemError) -> Measurement {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let start = MonotonicClock.now()
        let status = posix_spawnp(&pid, arguments[0], &actions, nil, &argv, environ)
        guard status == 0 else { throw SystemError("posix_spawnp", errno: Errno(rawValue: status), subject: arguments[0]) }
        var waitStatus: Int32 = 0
        var usage = rusage()
        while wait4(pid, &waitStatus, 0, &usage) < 0 {
            guard errno == EINTR else { throw SystemError("wait4", subject: arguments[0]) }
        }
        let wall = MonotonicClock.now() - start
        let exited = (waitStatus & 0x7F) == 0
        return Measurement(wall: wall, peakResidentKiB: Int(usage.ru_maxrss),
                           exitStatus: exited ? (waitStatus >> 8) & 0xFF : 128 + (waitStatus & 0x7F))
    }

    /// This process's resident set now and at its peak (VmRSS, VmHWM), in KiB.
    public static func ownMemory() -> (resident: Int, peak: Int) {
        guard let status = try? FileIO.read("/proc/self/status") else { return (0, 0) }
        var resident = 0, peak = 0
        for line in String(decoding: status, as: UTF8.self).split(separator: "\n") {
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard fields.count >= 2, let value = Int(fields[1]) else { continue }
            if fields[0] == "VmRSS:" { resident = value }
            if fields[0] == "VmHWM:" { peak = value }
        }
        return (resident, peak)
    }
}
