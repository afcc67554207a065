/// How far a slide's own motion has run when a frame is drawn: an animated
/// picture's frames, and Ken Burns pan and zoom, play from the moment the
/// slide comes to rest, not from when it was decoded or first drawn.
public struct LayerPlayback: Hashable, Sendable {
    /// How long the slide's motion has run.
    public var elapsed: Duration
    /// A finger holds the picture: its motion stands still at `elapsed`, and
    /// an animated picture shows its first frame.
    public var isHeld: Bool

    public init(elapsed: Duration, isHeld: Bool = false) {
        self.elapsed = elapsed
        self.isHeld = isHeld
    }

    /// Not begun: an animated picture's first frame, Ken Burns at its start.
    public static let start = LayerPlayback(elapsed: .zero)
}

/// The carousel's clock for the one slide whose motion runs: the slide that
/// last came to rest. A page change to another slide restarts it from the end
/// of the change; an incoming slide waits at its start until then, and the
/// outgoing one keeps moving through the transition. A finger stops it, and a
/// picture let go back onto the same slide carries on from where it stopped,
/// so neither a touch nor a snap back makes the picture jump.
struct SlidePlaybackClock: Hashable, Sendable {
    private(set) var slide: Int?
    private var startedAt: MonotonicInstant
    private var heldAt: MonotonicInstant?

    init(slide: Int?, startedAt: MonotonicInstant) {
        self.slide = slide
        self.startedAt = startedAt
    }

    /// The playback of `slide` drawn at `now`; `isDragged` says whether a finger
    /// holds the picture (a slide other than the running one waits at its start).
    func playback(of slide: Int, at now: MonotonicInstant, isDragged: Bool) -> LayerPlayback {
        guard slide == self.slide else { return LayerPlayback(elapsed: .zero, isHeld: isDragged) }
        if let heldAt { return LayerPlayback(elapsed: max(.zero, heldAt - startedAt), isHeld: true) }
        return LayerPlayback(elapsed: max(.zero, now - startedAt))
    }

    /// `slide` came to rest at `instant`: its motion starts there.
    mutating func restart(_ slide: Int?, at instant: MonotonicInstant) {
        self.slide = slide
        startedAt = instant
        heldAt = nil
    }

    /// The same picture has another index in a changed playlist.
    mutating func renumber(to slide: Int) { self.slide = slide }

    /// A finger took hold of the picture at `instant`.
    mutating func hold(at instant: MonotonicInstant) {
        if heldAt == nil { heldAt = instant }
    }

    /// The picture settled at `instant` on `slide`: the same slide carries on
    /// from where the finger stopped it; another starts from the beginning.
    mutating func settled(on slide: Int, at instant: MonotonicInstant) {
        guard slide == self.slide else { return restart(slide, at: instant) }
        if let heldAt {
            startedAt = instant - max(.zero, heldAt - startedAt)
            self.heldAt = nil
        }
    }
}
