/// How long a video slide stays on screen, as its configuration says.
public enum VideoLength: Hashable, Sendable {
    /// As long as the video plays, once (the default).
    case wholeVideo
    /// The video plays again and again, with no seam at the loop, for this long.
    case loop(for: Duration)
    /// The video plays once and is cut after this long (or ends sooner).
    case stop(after: Duration)
    /// The video plays again and again for as long as the slide shows, with
    /// no seam: a playlist of one video without a `duration`, which the
    /// carousel never pages away from (one page does not rotate), and which
    /// would otherwise stand on its last frame for good.
    case endless

    /// The slide's time on screen for a video of `videoDuration`; nil while
    /// that is unknown and the video's own end decides.
    public func slideDuration(videoDuration: Duration?) -> Duration? {
        switch self {
        case .wholeVideo: videoDuration
        case .loop(let duration): duration
        case .stop(let duration): videoDuration.map { min($0, duration) } ?? duration
        case .endless: nil
        }
    }

    /// Whether decoding carries on with another pass when the video ends.
    public var loops: Bool {
        switch self {
        case .loop, .endless: true
        case .wholeVideo, .stop: false
        }
    }

    /// The slide time after which no more frames are wanted; nil: the video's end.
    public var cutoff: Duration? {
        switch self {
        case .wholeVideo, .endless: nil
        case .loop(let duration), .stop(let duration): duration
        }
    }
}
