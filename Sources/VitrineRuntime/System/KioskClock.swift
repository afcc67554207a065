import VitrineCore
import VitrineSystem

/// One reading of both clocks the display loop runs on, taken together at the
/// start of a turn: everything the turn decides uses this reading, so two
/// owners never disagree about what time it is.
public struct KioskInstant: Hashable, Sendable {
    /// `CLOCK_MONOTONIC`: what the carousel, frame pacing and screen power time.
    public var monotonic: MonotonicInstant
    /// `CLOCK_REALTIME` in nanoseconds since 1970: what schedules, overrides and
    /// rotation in step are defined by. It may step (NTP, an operator).
    public var wallNanoseconds: Int64

    public init(monotonic: MonotonicInstant, wallNanoseconds: Int64) {
        self.monotonic = monotonic
        self.wallNanoseconds = wallNanoseconds
    }

    /// The wall clock to the second, as schedules read it.
    public var wall: WallInstant { WallInstant(nanosecondsSinceEpoch: wallNanoseconds) }

    /// The wall-clock time of `instant` on the monotonic clock, as this reading
    /// maps one onto the other (valid until the wall clock steps).
    public func wallNanoseconds(at instant: MonotonicInstant) -> Int64 {
        wallNanoseconds + (instant - monotonic).nanoseconds
    }

    /// The monotonic instant of the wall-clock time `wall` (nanoseconds since 1970).
    public func monotonic(atWallNanoseconds wall: Int64) -> MonotonicInstant {
        monotonic + .nanoseconds(wall - wallNanoseconds)
    }
}

/// Where the display loop gets its time: the system's clocks when it runs, and
/// virtual ones in tests (`KioskClock(reading:)`).
///
/// The loop still sleeps on the kernel's timers: its monotonic timerfd and
/// its `CLOCK_REALTIME` one for the schedule's next change. A test clock's
/// monotonic readings must therefore be `CLOCK_MONOTONIC`'s, and its wall
/// clock may be offset, but to the future only: a schedule deadline in the
/// system's past would make the wall timer fire at once, turn after turn.
public struct KioskClock: Sendable {
    private let reading: @Sendable () -> KioskInstant

    public init(reading: @escaping @Sendable () -> KioskInstant) {
        self.reading = reading
    }

    /// `clock_gettime` on `CLOCK_MONOTONIC` and `CLOCK_REALTIME`, one after the other.
    public static let system = KioskClock { KioskInstant(monotonic: MonotonicClock.now(), wallNanoseconds: WallClock.nanoseconds()) }

    public func now() -> KioskInstant { reading() }
}
