import Glibc

/// The calling thread's CPU time, user and system together
/// (`clock_gettime(CLOCK_THREAD_CPUTIME_ID)`, answered in the vDSO without a
/// system call): what a frame costs the display thread, apart from what other
/// threads and processes do meanwhile.
public enum ThreadCPUClock {
    public static func now() -> Duration {
        var spec = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &spec)
        return .seconds(Int64(spec.tv_sec)) + .nanoseconds(Int64(spec.tv_nsec))
    }
}
