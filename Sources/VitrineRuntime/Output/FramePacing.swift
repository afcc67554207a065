import VitrineCore

/// When the next frame may be presented, and how evenly transition frames came.
///
/// Frames are at least a little under one refresh period apart: on hardware the
/// next frame is then always ready for the next vblank, while drivers that
/// complete flips at once (bochs and virtio-gpu have no real vblank) cannot
/// make the loop draw hundreds of frames a second, or draw into a buffer the
/// emulator may still be reading.
///
/// Pure: the display loop passes the instants in.
struct FramePacing {
    /// The display's refresh period.
    var refreshInterval: Duration
    private(set) var lastPresent: MonotonicInstant?
    private var lastPresentWasAnimating = false
    /// Gaps between consecutive frames presented while a transition animates.
    private(set) var transitionFrameGaps = DurationHistogram()

    init(refreshInterval: Duration) {
        self.refreshInterval = refreshInterval
    }

    var minimumFrameGap: Duration { max(refreshInterval - .milliseconds(2), .milliseconds(1)) }

    /// Whether a frame presented now would come too soon after the last one.
    func isTooSoon(_ now: MonotonicInstant) -> Bool {
        guard let lastPresent else { return false }
        return now < lastPresent + minimumFrameGap
    }

    /// The earliest instant the next frame may be presented (`now` counts as the last present if there was none).
    func nextFrame(after now: MonotonicInstant) -> MonotonicInstant {
        (lastPresent ?? now) + minimumFrameGap
    }

    /// A frame was presented at `now`; `animating` says whether a transition drew it.
    /// The gap counts only when both it and the previous frame were animation frames.
    mutating func presented(at now: MonotonicInstant, animating: Bool) {
        if animating, lastPresentWasAnimating, let lastPresent { transitionFrameGaps.record(now - lastPresent) }
        lastPresentWasAnimating = animating
        lastPresent = now
    }
}
