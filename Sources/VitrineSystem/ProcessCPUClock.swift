import Glibc
import SystemPackage

/// Another process's CPU time, every thread's (those that ended too), user
/// and system together (`clock_getcpuclockid`, then `clock_gettime` on the
/// clock it names): what a child's work cost, apart from the wall time it took
/// and from what the machine's other processes did meanwhile. The kernel lets
/// any process read the clock of a process in its PID namespace.
public enum ProcessCPUClock {
    public static func time(of process: pid_t) throws(SystemError) -> Duration {
        var clock = clockid_t()
        // Returns the error number rather than setting errno.
        let status = clock_getcpuclockid(process, &clock)
        guard status == 0 else { throw SystemError("clock_getcpuclockid", errno: Errno(rawValue: status), subject: "process \(process)") }
        var spec = timespec()
        guard clock_gettime(clock, &spec) == 0 else { throw SystemError("clock_gettime", subject: "process \(process)'s CPU clock") }
        return .seconds(Int64(spec.tv_sec)) + .nanoseconds(Int64(spec.tv_nsec))
    }
}
