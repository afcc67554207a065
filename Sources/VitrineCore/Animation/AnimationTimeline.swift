/// When each frame of an animated picture (GIF, WebP) shows, as a function of
/// how long the slide has played (`LayerPlayback.elapsed`): pure, so the frame
/// on screen at any instant is known without a clock.
public struct AnimationTimeline: Hashable, Sendable {
    /// How long each frame shows, after `shownDuration`'s rule.
    public let frameDurations: [Duration]
    /// How many times the whole animation plays; nil: for ever. After the last
    /// play the last frame stays.
    public let plays: Int?
    /// One play's length.
    public let period: Duration

    /// - Parameters:
    ///   - durations: each frame's duration as the file gives it.
    ///   - plays: how many times the animation plays (nil or 0: for ever).
    public init(durations: [Duration], plays: Int?) {
        let shown = durations.map(Self.shownDuration)
        frameDurations = shown.isEmpty ? [.seconds(1)] : shown
        self.plays = plays.flatMap { $0 > 0 ? $0 : nil }
        period = frameDurations.reduce(.zero, +)
    }

    /// A frame that asks for 10 ms or less shows for 100 ms, as browsers show
    /// it: files made for them carry 0 where they mean "the default speed", and
    /// a kiosk drawing them at 0 ms would spin through every frame each refresh.
    public static func shownDuration(_ requested: Duration) -> Duration {
        requested <= .milliseconds(10) ? .milliseconds(100) : requested
    }

    public var frameCount: Int { frameDurations.count }

    /// The frame that shows at `elapsed`.
    public func frame(at elapsed: Duration) -> Int { position(at: elapsed).frame }

    /// When the picture next changes, as an elapsed time after `elapsed`; nil
    /// when it never does again (a single frame, or the last play is over).
    public func nextChange(after elapsed: Duration) -> Duration? {
        guard frameCount > 1 else { return nil }
        let (frame, frameStart, finished) = position(at: elapsed)
        guard !finished else { return nil }
        return frameStart + frameDurations[frame]
    }

    /// The elapsed time at which the frame showing at `elapsed` began: two
    /// playbacks with the same start show the same picture.
    public func frameStart(at elapsed: Duration) -> Duration { position(at: elapsed).frameStart }

    private func position(at elapsed: Duration) -> (frame: Int, frameStart: Duration, finished: Bool) {
        let elapsed = max(.zero, elapsed)
        guard frameCount > 1, period > .zero else { return (0, .zero, true) }
        let periodNanoseconds = period.nanoseconds
        let completed = elapsed.nanoseconds / periodNanoseconds
        if let plays, completed >= Int64(plays) {
            // Over: the last frame stays, from when it began in the last play.
            let lastStart = period * plays - frameDurations[frameCount - 1]
            return (frameCount - 1, lastStart, true)
        }
        var start = Duration.nanoseconds(completed * periodNanoseconds)
        let into = elapsed - start
        var offset = Duration.zero
        for (index, duration) in frameDurations.enumerated() {
            if into < offset + duration { return (index, start + offset, false) }
            offset += duration
        }
        start += offset
        return (frameCount - 1, start - frameDurations[frameCount - 1], false)
    }
}
