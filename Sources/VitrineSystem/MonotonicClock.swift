import Glibc
import VitrineCore

/// `CLOCK_MONOTONIC`: the only clock the kiosk schedules by. It never jumps when
/// NTP or an operator sets the wall clock, and it is the clock DRM page-flip
/// timestamps and timerfd use.
public enum MonotonicClock {
    public static func now() -> MonotonicInstant {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return MonotonicInstant(nanoseconds: Int64(spec.tv_sec) * 1_000_000_000 + Int64(spec.tv_nsec))
    }
}
