import Glibc
import VitrineCore

/// `CLOCK_REALTIME`, read only for what is defined by the wall clock: the
/// schedule and an override's end. Everything the carousel times runs on
/// `MonotonicClock`, which the wall clock's steps do not move.
public enum WallClock {
    public static func now() -> WallInstant { WallInstant(nanosecondsSinceEpoch: nanoseconds()) }

    /// Nanoseconds since 1970, for what needs better than the second (rotation in step).
    public static func nanoseconds() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Int64(spec.tv_sec) * 1_000_000_000 + Int64(spec.tv_nsec)
    }
}
