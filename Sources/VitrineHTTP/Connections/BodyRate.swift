/// Whether a request body keeps `ServerLimits.minimumBodyBytesPerSecond`:
/// after a grace, every window must bring at least the rate times the window.
/// A window, not each byte, is judged, so that a link's bursts and pauses even
/// out, while a peer that sends one byte every few seconds (which re-arms any
/// per-byte timer for ever) fails its first window.
///
/// Pure: time is the time since the request's headers, passed in.
struct BodyRate: Sendable {
    let minimumBytesPerSecond: Int
    let window: Duration
    /// When the window being counted began, since the headers.
    private(set) var windowStart: Duration
    /// Bytes received within the window being counted.
    private(set) var bytesInWindow = 0

    init(minimumBytesPerSecond: Int, window: Duration, grace: Duration) {
        self.minimumBytesPerSecond = minimumBytesPerSecond
        self.window = window
        windowStart = grace
    }

    init(_ limits: ServerLimits) {
        self.init(minimumBytesPerSecond: limits.minimumBodyBytesPerSecond, window: limits.bodyRateWindow, grace: limits.bodyRateGrace)
    }

    /// The bytes a whole window must bring.
    var minimumBytesPerWindow: Int {
        Int((Double(minimumBytesPerSecond) * Double(window.nanoseconds) / 1e9).rounded(.up))
    }

    /// `count` bytes arrived `elapsed` after the headers. Bytes within the
    /// grace count for nothing: a burst at the start cannot buy a trickle later.
    mutating func received(_ count: Int, at elapsed: Duration) {
        if elapsed >= windowStart { bytesInWindow += count }
    }

    /// False when a window that ended by `elapsed` brought too few bytes. Each
    /// call that finds its window over starts the next one.
    mutating func keepsPace(at elapsed: Duration) -> Bool {
        guard elapsed >= windowStart + window else { return true }
        let enough = bytesInWindow >= minimumBytesPerWindow
        windowStart = elapsed
        bytesInWindow = 0
        return enough
    }
}
