/// A point on the monotonic clock, in nanoseconds from an arbitrary origin.
///
/// The engine never reads a clock: every state transition takes `now` as a
/// parameter. At run time the origin is `CLOCK_MONOTONIC`'s; in tests and in
/// `vitrine render` it is virtual time starting at zero. Using a plain integer
/// keeps arithmetic exact, which is what makes 10,000 rotations drift-free.
public struct MonotonicInstant: Comparable, Hashable, Sendable, CustomStringConvertible {
    public var nanoseconds: Int64

    public init(nanoseconds: Int64) { self.nanoseconds = nanoseconds }

    public static let zero = MonotonicInstant(nanoseconds: 0)

    /// Virtual time `seconds` after the origin; used by tests and `render --at`.
    public static func seconds(_ seconds: Double) -> MonotonicInstant {
        MonotonicInstant(nanoseconds: Int64((seconds * 1e9).rounded()))
    }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.nanoseconds < rhs.nanoseconds }

    public static func + (lhs: Self, rhs: Duration) -> Self {
        MonotonicInstant(nanoseconds: lhs.nanoseconds + rhs.nanoseconds)
    }

    public static func - (lhs: Self, rhs: Duration) -> Self {
        MonotonicInstant(nanoseconds: lhs.nanoseconds - rhs.nanoseconds)
    }

    public static func - (lhs: Self, rhs: Self) -> Duration {
        .nanoseconds(lhs.nanoseconds - rhs.nanoseconds)
    }

    public var seconds: Double { Double(nanoseconds) / 1e9 }

    public var description: String { "t=\(seconds)s" }
}

extension Duration {
    /// The duration as whole nanoseconds (saturating far outside any kiosk's range).
    public var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds &* 1_000_000_000 &+ attoseconds / 1_000_000_000
    }

    /// The duration in seconds as a floating-point value, for easing and logs.
    public var secondsValue: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
