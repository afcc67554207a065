import VitrineCore

/// When the next frame may be presented, and how evenly the frames of a
/// transition, or of a Ken Burns picture moving, came.
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
    /// What drew the last frame presented, if it was drawn for a motion.
    private var lastMotion: FrameMotion?
    /// Gaps between consecutive frames presented while a transition animates.
    private(set) var transitionFrameGaps = DurationHistogram()
    /// Gaps between consecutive frames presented while a Ken Burns picture moves
    /// (and no transition runs).
    private(set) var kenBurnsFrameGaps = DurationHistogram()

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

    /// A frame was presented at `now`; `animating` says whether a transition drew
    /// it, `kenBurns` whether a Ken Burns picture moving did. The gap counts (and
    /// is returned) only when it and the previous frame were drawn for the same motion.
    @discardableResult
    mutating func presented(at now: MonotonicInstant, animating: Bool, kenBurns: Bool = false) -> FrameGap? {
        let motion: FrameMotion? = animating ? .transition : kenBurns ? .kenBurns : nil
        var gap: FrameGap?
        if let motion, motion == lastMotion, let lastPresent {
            gap = FrameGap(motion: motion, duration: now - lastPresent)
            switch motion {
            case .transition: transitionFrameGaps.record(now - lastPresent)
            case .kenBurns: kenBurnsFrameGaps.record(now - lastPresent)
            }
        }
        lastMotion = motion
        lastPresent = now
        return gap
    }
}

/// What a run of frames at every refresh is drawn for.
public enum FrameMotion: String, Hashable, Sendable, CaseIterable {
    /// A page change animates.
    case transition
    /// A Ken Burns picture pans and zooms.
    case kenBurns = "kenburns"
}

/// The time between two consecutive frames drawn for the same motion.
public struct FrameGap: Hashable, Sendable {
    public var motion: FrameMotion
    public var duration: Duration
}
