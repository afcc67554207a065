/// Chooses the video frame each refresh shows: the frame presented at the
/// refresh nearest its timestamp, as a player keeps a film's cadence.
///
/// At a refresh whose slide time is `t`, the frame due is the last one with
/// a timestamp before `t` plus half a refresh period (one exactly halfway
/// goes to the later refresh). 24 fps on a
/// 60 Hz screen then shows frames for 3 and 2 refreshes in turn (3:2
/// pulldown), 25 on 50 Hz and 30 on 60 Hz for 2 each, and 60 fps on 50 Hz
/// drops one frame in six by design. Pure: the slide time and the frames on
/// hand are parameters, so the cadence is tested on virtual time.
public struct VideoFramePacer: Hashable, Sendable {
    /// The screen's refresh period; it may change (a new mode after a hotplug).
    public var refreshPeriod: Duration {
        didSet { if refreshPeriod <= .zero { refreshPeriod = oldValue } }
    }
    public private(set) var summary = VideoPacingSummary()
    /// The timestamp of the frame on screen.
    public private(set) var shownTimestamp: Duration?

    public init(refreshPeriod: Duration) {
        self.refreshPeriod = refreshPeriod > .zero ? refreshPeriod : .milliseconds(16)
    }

    /// The frame to show at slide time `time`, from `timestamps` (the decoded
    /// frames waiting, oldest first): its index, with every frame before it to
    /// be let go; nil when none is due yet (the frame on screen stays).
    ///
    /// A frame let go unseen is counted dropped by design when the next frame
    /// follows it within a refresh period (a frame rate above the refresh
    /// rate), and dropped late otherwise. A frame shown at a later refresh than
    /// its own is late.
    public mutating func choose(from timestamps: [Duration], at time: Duration) -> Int? {
        let half = refreshPeriod / 2
        guard let due = timestamps.lastIndex(where: { $0 < time + half }) else { return nil }
        // The frame on screen may still be among them: it was seen, and is no loss.
        for skipped in 0..<due where shownTimestamp.map({ timestamps[skipped] > $0 }) ?? true {
            // Frames closer together than a refresh cannot all be shown: no fault.
            if timestamps[skipped + 1] - timestamps[skipped] < refreshPeriod {
                summary.droppedByDesign += 1
            } else {
                summary.droppedLate += 1
            }
        }
        let chosen = timestamps[due]
        if chosen != shownTimestamp {
            summary.shown += 1
            // Its own refresh was an earlier one, by more than a loop's wake-up jitter.
            if chosen < time - half - lateTolerance { summary.late += 1 }
            shownTimestamp = chosen
        }
        return due
    }

    /// How far past its own refresh a frame may be drawn before it counts as
    /// late: a quarter of a period, for the loop's wake-up jitter.
    private var lateTolerance: Duration { refreshPeriod / 4 }
}

/// How a video slide's frames reached the screen: for /metrics and each
/// slide's pacing summary.
public struct VideoPacingSummary: Hashable, Sendable {
    /// Frames shown.
    public var shown = 0
    /// Frames shown at a later refresh than their own.
    public var late = 0
    /// Frames never shown because a later frame was due at the same refresh
    /// (a frame rate above the refresh rate): no fault.
    public var droppedByDesign = 0
    /// Frames never shown because they were decoded too late for their refresh.
    public var droppedLate = 0

    public init() {}

    /// "250 shown, 0 late, 0 dropped (50 by design)".
    public var description: String {
        "\(shown) shown, \(late) late, \(droppedLate) dropped (\(droppedByDesign) by design)"
    }
}
