import VitrineCore

/// Input-to-scanout latency: how long a finger's movement takes to reach the
/// glass. Each drag movement's kernel timestamp is paired with the vblank
/// timestamp of the flip that carries the first frame showing it; when several
/// movements share one frame, the oldest counts.
///
/// Pure: the display loop passes the instants in, so it is tested on virtual time.
struct InputLatencyTracker {
    /// The oldest drag movement not yet in a presented frame (its kernel timestamp).
    private var unshownMovement: MonotonicInstant?
    /// The movement whose effect is in the frame presented last.
    private var movementInLastFrame: MonotonicInstant?
    private var lastScanoutSeen: MonotonicInstant?
    private(set) var latencies = DurationHistogram()

    /// A movement that moves the picture: the frame presented next is the first to show it.
    mutating func pictureMoved(at input: MonotonicInstant) {
        unshownMovement = unshownMovement ?? input
    }

    /// A frame was presented: it carries every movement since the last one.
    mutating func framePresented() {
        movementInLastFrame = unshownMovement
        unshownMovement = nil
    }

    /// A flip completed with this vblank time: the frame it shows carries the
    /// movement that was newest when it was composed. Returns the latency recorded, if any.
    @discardableResult
    mutating func scanoutCompleted(at scanout: MonotonicInstant?) -> Duration? {
        guard let scanout, scanout != lastScanoutSeen else { return nil }
        lastScanoutSeen = scanout
        guard let input = movementInLastFrame else { return nil }
        movementInLastFrame = nil
        latencies.record(scanout - input)
        return scanout - input
    }
}
