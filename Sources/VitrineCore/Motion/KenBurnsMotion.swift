/// One slide's pan and zoom: which rectangle of its framed picture fills the
/// screen at each moment of its dwell. It starts at `from` when the slide
/// comes to rest and reaches `to` when its dwell is over, eased; it holds
/// `to` after that (rotation paused, or the outgoing slide of a transition)
/// and stands still while a finger holds the picture.
///
/// The clock is the carousel's (`LayerPlayback`): nothing here reads one.
public struct KenBurnsMotion: Hashable, Sendable {
    public var from: FrameRect
    public var to: FrameRect
    /// The slide's dwell: the motion's length.
    public var duration: Duration
    public var easing: Easing

    public init(from: FrameRect, to: FrameRect, duration: Duration, easing: Easing) {
        self.from = from
        self.to = to
        self.duration = duration
        self.easing = easing
    }

    /// How far along the motion is at `playback`, 0...1 (not eased).
    public func progress(at playback: LayerPlayback) -> Double {
        guard duration > .zero else { return 1 }
        return min(max(Double(playback.elapsed.nanoseconds) / Double(duration.nanoseconds), 0), 1)
    }

    /// The rectangle on screen at `playback`.
    public func rect(at playback: LayerPlayback) -> FrameRect {
        from.interpolated(to: to, by: easing(progress(at: playback)))
    }

    /// Whether the picture still moves at `playback`, so that the next refresh
    /// shows it elsewhere: not held by a finger, and not at its end yet.
    public func isMoving(at playback: LayerPlayback) -> Bool {
        !playback.isHeld && playback.elapsed < duration && from != to
    }

    /// `playback` as far as the picture is concerned: every moment past the end
    /// shows the end, and a finger's hold changes nothing drawn. Two playbacks
    /// with the same drawn playback are the same picture.
    public func drawn(_ playback: LayerPlayback) -> LayerPlayback {
        LayerPlayback(elapsed: from == to ? .zero : min(max(playback.elapsed, .zero), duration))
    }

    /// The closest view on the way (the larger of the two ends' zooms): how much
    /// finer than the output the stored frame must be to show it sharp.
    public var largestZoom: Double { max(from.zoom, to.zoom) }
}
