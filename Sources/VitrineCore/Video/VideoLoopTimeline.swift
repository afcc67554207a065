/// Turns the timestamps a decoder gives, which start again at zero on each
/// pass through a looping video, into one slide time that only goes on.
///
/// Each pass begins where the last one's final frame ended (its timestamp
/// plus one frame interval), not at the container's stated duration, which
/// is rounded and often a frame longer or shorter: the loop then shows every
/// frame for its full time and no frame twice, with no seam.
public struct VideoLoopTimeline: Hashable, Sendable {
    public let length: VideoLength
    /// One frame's time, for the end of a pass.
    public let frameInterval: Duration
    /// Where the current pass began, in slide time.
    public private(set) var passStart: Duration = .zero
    /// Passes begun so far (1 while the video plays the first time).
    public private(set) var pass = 1
    private var lastTimestamp: Duration?

    public init(length: VideoLength, frameRate: Double?) {
        self.length = length
        let rate = frameRate.flatMap { $0 > 0 && $0.isFinite ? $0 : nil } ?? 25
        frameInterval = .nanoseconds(Int64((1e9 / rate).rounded()))
    }

    /// The slide time of a frame whose timestamp in the current pass is
    /// `timestamp`, or nil when the slide's length is reached and the frame
    /// is not wanted (decoding stops there).
    public mutating func slideTime(ofFrameAt timestamp: Duration) -> Duration? {
        let time = passStart + max(.zero, timestamp)
        if let cutoff = length.cutoff, time >= cutoff { return nil }
        lastTimestamp = max(lastTimestamp ?? .zero, timestamp)
        return time
    }

    /// The decoder reached the video's end: returns whether another pass
    /// follows (the decoder rewinds), and if so starts it.
    public mutating func passEnded() -> Bool {
        guard length.loops, let lastTimestamp else { return false }
        passStart += lastTimestamp + frameInterval
        self.lastTimestamp = nil
        pass += 1
        return true
    }

    /// A pass cut short (its decoder failed) is followed by another that
    /// starts at `time`, in slide time: a loop goes on from where it stopped.
    public mutating func resume(at time: Duration) {
        passStart = max(passStart, time)
        lastTimestamp = nil
        pass += 1
    }

    /// When the slide's picture stops: the end of the last frame shown, once
    /// the last pass has ended; the cutoff of a loop or a stop.
    public func end(afterFinalPass: Bool) -> Duration? {
        if let cutoff = length.cutoff, length.loops { return cutoff }
        guard afterFinalPass, let lastTimestamp else { return length.cutoff }
        let end = passStart + lastTimestamp + frameInterval
        return length.cutoff.map { min($0, end) } ?? end
    }
}
