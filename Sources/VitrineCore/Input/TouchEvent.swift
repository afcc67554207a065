/// A position on the output, in output pixels (fractions allowed).
public struct TouchPoint: Hashable, Sendable, CustomStringConvertible {
    public var x: Double
    public var y: Double

    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }

    public var description: String { "(\(x), \(y))" }
}

/// What the input layer reports of the finger that drives the carousel: the
/// first finger down, in output coordinates (device ranges, rotation and
/// calibration already applied). Extra fingers never appear here.
public enum TouchEvent: Hashable, Sendable {
    case down(TouchPoint, at: MonotonicInstant)
    case move(TouchPoint, at: MonotonicInstant)
    case up(TouchPoint, at: MonotonicInstant)
    /// The touch is abandoned without a lift: events were dropped (SYN_DROPPED)
    /// or the device went away. Nothing may be decided from it (no tap, no swipe).
    case cancel(at: MonotonicInstant)

    public var time: MonotonicInstant {
        switch self {
        case .down(_, let at), .move(_, let at), .up(_, let at), .cancel(let at): return at
        }
    }
}
