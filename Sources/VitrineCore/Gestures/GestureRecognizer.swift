/// The thresholds that turn a finger's path into taps and swipes.
///
/// Lengths are output pixels and speeds output pixels per second: the runtime
/// converts the configuration's millimetres to pixels when the touch device
/// reports its resolution, so a gesture feels the same on any panel.
public struct GestureSettings: Hashable, Sendable {
    /// The longest press that still counts as a tap, from finger down to finger up
    /// (inclusive). A longer press that never moved is a long press: no tap.
    public var tapMaxDuration: Duration
    /// How far the finger may move from where it went down and still tap, in
    /// pixels (inclusive). Moving further starts a drag: horizontal when the
    /// horizontal movement is at least the vertical, vertical otherwise.
    public var tapSlop: Double
    /// The fraction of the output width a horizontal drag must exceed when the
    /// finger lifts to page to the neighbouring slide; a shorter drag snaps back.
    public var pageFraction: Double
    /// The horizontal speed at release, in pixels per second, above which a drag
    /// pages even when it is shorter than `pageFraction` (a flick).
    public var flickVelocity: Double
    /// The width of the output in pixels: a drag across all of it moves the
    /// carousel by exactly one page.
    public var outputWidth: Int

    public init(outputWidth: Int, tapMaxDuration: Duration = .milliseconds(250), tapSlop: Double = 20,
                pageFraction: Double = 0.25, flickVelocity: Double = 1000) {
        self.outputWidth = outputWidth
        self.tapMaxDuration = tapMaxDuration
        self.tapSlop = tapSlop
        self.pageFraction = pageFraction
        self.flickVelocity = flickVelocity
    }

    /// The distance in pixels a release must exceed to page: `pageFraction` of the width.
    public var pageDistance: Double { pageFraction * Double(outputWidth) }

    /// Whether a drag released `offset` pixels from its start at `velocity`
    /// pixels per second pages, and which way; nil for a snap back.
    ///
    /// It pages when the offset exceeds `pageDistance` or the speed exceeds
    /// `flickVelocity`, towards the side the finger went: left (negative) is
    /// `.next`. A flick against the offset (the finger turned back) snaps back
    /// even from far; a flick with no offset at all pages the way it flicks.
    public func swipeDirection(offset: Double, velocity: Double) -> SwipeDirection? {
        let flick = abs(velocity) > flickVelocity
        if flick && offset != 0 && (velocity < 0) != (offset < 0) { return nil }
        guard flick || abs(offset) > pageDistance else { return nil }
        let leftward = offset != 0 ? offset < 0 : velocity < 0
        return leftward ? .next : .previous
    }
}

/// What a touch means to the carousel. Offsets and velocities are horizontal,
/// in output pixels: negative is to the left.
public enum GestureEvent: Hashable, Sendable {
    /// A finger went down here: rotation pauses and a running animation stops under it.
    case pressed(TouchPoint, at: MonotonicInstant)
    /// The finger moved beyond the tap slop, mostly horizontally: it now drags the slides.
    case dragBegan(at: MonotonicInstant)
    /// The finger is `offset` pixels right of where it went down (negative: left).
    /// Measured from the down point, not from where the drag was recognised, so the
    /// picture follows the finger 1:1 without a jump at the slop.
    case dragMoved(offset: Double, at: MonotonicInstant)
    /// The finger lifted `offset` pixels from where it went down, moving at
    /// `velocity` pixels per second.
    case dragEnded(offset: Double, velocity: Double, at: MonotonicInstant)
    /// The drag was abandoned (events lost, device gone): nothing may be decided from it.
    case dragCancelled(at: MonotonicInstant)
    /// A short press that stayed within the slop, at the point where the finger went down.
    case tap(TouchPoint, at: MonotonicInstant)
    /// The finger is off the screen (the last event of every touch).
    case released(at: MonotonicInstant)

    public var time: MonotonicInstant {
        switch self {
        case .pressed(_, let at), .dragBegan(let at), .dragMoved(_, let at), .dragEnded(_, _, let at),
             .dragCancelled(let at), .tap(_, let at), .released(let at):
            return at
        }
    }
}

/// Turns the primary finger's `TouchEvent`s into `GestureEvent`s.
///
/// A pure state machine: it keeps only the current touch, and its output
/// depends only on the events it was given (their own timestamps are the clock).
///
/// Every touch begins with `pressed` and ends with `released`. In between:
/// - a tap (up within `tapMaxDuration`, never beyond `tapSlop`) gives `tap` just before `released`;
/// - a horizontal drag gives `dragBegan`, `dragMoved`s, then `dragEnded` (or
///   `dragCancelled` when the touch is cancelled);
/// - a vertical gesture, a long press or a cancelled press gives nothing more.
public struct GestureRecognizer: Hashable, Sendable {
    /// One position of the finger along the horizontal axis, for the release velocity.
    public struct Sample: Hashable, Sendable {
        public var x: Double
        public var time: MonotonicInstant

        public init(x: Double, time: MonotonicInstant) {
            self.x = x
            self.time = time
        }
    }

    public enum State: Hashable, Sendable {
        /// No finger.
        case idle
        /// A finger is down at `origin` since `since` and has stayed within the tap slop.
        case pressed(origin: TouchPoint, since: MonotonicInstant)
        /// A horizontal drag from `origin`; `samples` are the finger's recent positions, oldest first.
        case dragging(origin: TouchPoint, samples: [Sample])
        /// A mostly vertical gesture: it never pages and never taps; it only ends.
        case vertical
    }

    /// The release velocity is fitted to the samples of this last stretch of the drag.
    public static let velocityWindow: Duration = .milliseconds(100)

    public var settings: GestureSettings
    public private(set) var state: State = .idle

    public init(settings: GestureSettings) {
        self.settings = settings
    }

    /// Feeds one event; returns what it means, in order.
    public mutating func handle(_ event: TouchEvent) -> [GestureEvent] {
        switch (state, event) {
        case (.idle, .down(let point, let at)):
            state = .pressed(origin: point, since: at)
            return [.pressed(point, at: at)]
        case (.idle, .move), (.idle, .up), (.idle, .cancel):
            return []
        case (.pressed, .down), (.dragging, .down), (.vertical, .down):
            // Only the primary finger reaches here; a second down is a glitch.
            return []

        case (.pressed(let origin, let since), .move(let point, let at)):
            return leaveSlop(origin: origin, since: since, to: point, at: at) ?? []
        case (.pressed(let origin, let since), .up(let point, let at)):
            // An up beyond the slop with no move before it still counts as the movement.
            if let events = leaveSlop(origin: origin, since: since, to: point, at: at) {
                return events + finish(at: point, time: at)
            }
            state = .idle
            if at - since <= settings.tapMaxDuration {
                return [.tap(origin, at: at), .released(at: at)]
            }
            return [.released(at: at)]
        case (.pressed, .cancel(let at)):
            state = .idle
            return [.released(at: at)]

        case (.dragging(let origin, var samples), .move(let point, let at)):
            samples.append(Sample(x: point.x, time: at))
            state = .dragging(origin: origin, samples: Self.pruned(samples, at: at))
            return [.dragMoved(offset: point.x - origin.x, at: at)]
        case (.dragging, .up(let point, let at)):
            return finish(at: point, time: at)
        case (.dragging, .cancel(let at)):
            state = .idle
            return [.dragCancelled(at: at), .released(at: at)]

        case (.vertical, .move):
            return []
        case (.vertical, .up(_, let at)), (.vertical, .cancel(let at)):
            state = .idle
            return [.released(at: at)]
        }
    }

    /// Moves a pressed finger to `point`: nil while it stays within the slop;
    /// otherwise the state becomes a drag or a vertical gesture, and the events that says.
    private mutating func leaveSlop(origin: TouchPoint, since: MonotonicInstant, to point: TouchPoint,
                                    at: MonotonicInstant) -> [GestureEvent]? {
        let dx = point.x - origin.x, dy = point.y - origin.y
        let slop = settings.tapSlop
        guard dx * dx + dy * dy > slop * slop else { return nil }
        guard abs(dx) >= abs(dy) else {
            state = .vertical
            return []
        }
        let samples = [Sample(x: origin.x, time: since), Sample(x: point.x, time: at)]
        state = .dragging(origin: origin, samples: Self.pruned(samples, at: at))
        return [.dragBegan(at: at), .dragMoved(offset: dx, at: at)]
    }

    /// Lifts a dragging finger at `point`.
    private mutating func finish(at point: TouchPoint, time: MonotonicInstant) -> [GestureEvent] {
        guard case .dragging(let origin, var samples) = state else {
            state = .idle
            return [.released(at: time)]
        }
        samples.append(Sample(x: point.x, time: time))
        state = .idle
        let velocity = Self.velocity(of: samples, at: time)
        return [.dragEnded(offset: point.x - origin.x, velocity: velocity, at: time), .released(at: time)]
    }

    /// The samples the velocity can still use at `now`: those in the window, and
    /// the newest one before it.
    static func pruned(_ samples: [Sample], at now: MonotonicInstant) -> [Sample] {
        let windowStart = now - velocityWindow
        guard let firstInside = samples.firstIndex(where: { $0.time >= windowStart }) else {
            return Array(samples.suffix(1))
        }
        return Array(samples[max(firstInside - 1, 0)...])
    }

    /// The horizontal velocity in pixels per second at `now`: the least-squares
    /// slope of position over time of the samples in the last `velocityWindow`.
    ///
    /// With fewer than two samples there, the newest sample before the window
    /// joins them, so a sparse device still gets a (smaller) velocity, and a
    /// finger that stopped before lifting gets zero. Samples all at one instant give zero.
    public static func velocity(of samples: [Sample], at now: MonotonicInstant) -> Double {
        let windowStart = now - velocityWindow
        var used = samples.filter { $0.time >= windowStart && $0.time <= now }
        if used.count < 2, let before = samples.last(where: { $0.time < windowStart }) {
            used.insert(before, at: 0)
        }
        guard used.count >= 2 else { return 0 }
        // Times in seconds relative to `now`, so the sums stay small.
        let ts = used.map { Double(($0.time - now).nanoseconds) / 1e9 }
        let xs = used.map(\.x)
        let n = Double(used.count)
        let meanT = ts.reduce(0, +) / n, meanX = xs.reduce(0, +) / n
        var covariance = 0.0, variance = 0.0
        for (t, x) in zip(ts, xs) {
            covariance += (t - meanT) * (x - meanX)
            variance += (t - meanT) * (t - meanT)
        }
        return variance > 0 ? covariance / variance : 0
    }
}
