/// A point on the monotonic clock, in nanoseconds from an arbitrary origin.
///
/// The engine never reads a clock: every state transition takes `now` as a
/// parameter. At run time the origin is `CLOCK_MONOTONIC`'s; in tests and in
/// `vitrine render` it is virtual time starting at zero. Using a plain integer
/// keeps arithmetic exact, which is what makes 10,000 rotations drift-free.
///
/// Arithmetic saturates at Int64's ends instead of trapping: a duration that
/// reaches here from outside (a crafted video's length, a schedule's far
/// future) lands at "never" rather than stopping the process that serves the screen.
public struct MonotonicInstant: Comparable, Hashable, Sendable, CustomStringConvertible {
    public var nanoseconds: Int64

    public init(nanoseconds: Int64) { self.nanoseconds = nanoseconds }

    public static let zero = MonotonicInstant(nanoseconds: 0)

    /// Virtual time `seconds` after the origin; used by tests and `render --at`.
    public static func seconds(_ seconds: Double) -> MonotonicInstant {
        let value = (seconds * 1e9).rounded()
        guard value.isFinite else { return MonotonicInstant(nanoseconds: value.isNaN ? 0 : value > 0 ? .max : .min) }
        // Int64.max is not a Double: 2^63 is the first value past it.
        return MonotonicInstant(nanoseconds: value >= 0x1p63 ? .max : value < -0x1p63 ? .min : Int64(value))
    }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.nanoseconds < rhs.nanoseconds }

    public static func + (lhs: Self, rhs: Duration) -> Self {
        MonotonicInstant(nanoseconds: saturating(lhs.nanoseconds.addingReportingOverflow(rhs.nanoseconds), positive: rhs > .zero))
    }

    public static func - (lhs: Self, rhs: Duration) -> Self {
        MonotonicInstant(nanoseconds: saturating(lhs.nanoseconds.subtractingReportingOverflow(rhs.nanoseconds), positive: rhs < .zero))
    }

    public static func - (lhs: Self, rhs: Self) -> Duration {
        .nanoseconds(saturating(lhs.nanoseconds.subtractingReportingOverflow(rhs.nanoseconds), positive: lhs > rhs))
    }

    /// An overflowed sum's end of the range: the way it was heading.
    private static func saturating(_ result: (partialValue: Int64, overflow: Bool), positive: Bool) -> Int64 {
        result.overflow ? (positive ? .max : .min) : result.partialValue
    }

    public var seconds: Double { Double(nanoseconds) / 1e9 }

    public var description: String { "t=\(seconds)s" }
}

extension Duration {
    /// The duration as whole nanoseconds, saturating at Int64's ends (292
    /// years, far outside any kiosk's range, but reachable by a crafted value).
    public var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return seconds > 0 ? .max : .min }
        let (sum, sumOverflow) = scaled.addingReportingOverflow(attoseconds / 1_000_000_000)
        return sumOverflow ? (seconds > 0 ? .max : .min) : sum
    }

    /// The duration in seconds as a floating-point value, for easing and logs.
    public var secondsValue: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
