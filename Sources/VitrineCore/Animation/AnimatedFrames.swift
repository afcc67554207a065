/// An animated picture's frames, each the whole composed canvas scaled to one
/// stored size (no larger than what covers the output), in stored orientation,
/// and when each shows. Frame 0 is the first frame.
public struct AnimatedFrames: Sendable {
    public let frames: [PixelImage]
    public let orientation: ExifOrientation
    public let timeline: AnimationTimeline

    public init(frames: [PixelImage], orientation: ExifOrientation, timeline: AnimationTimeline) {
        precondition(frames.count == timeline.frameCount, "\(frames.count) frames, \(timeline.frameCount) durations")
        self.frames = frames
        self.orientation = orientation
        self.timeline = timeline
    }

    /// The memory the stored frames take.
    public var byteCount: Int { frames.reduce(0) { $0 + $1.size.pixelCount * 4 } }
}

/// What an animated picture's decoder found: its canvas, how many frames it
/// handed out, and how many times the file asks to play (nil: for ever).
public struct AnimationInfo: Hashable, Sendable {
    public var canvas: PixelSize
    public var frameCount: Int
    public var plays: Int?

    public init(canvas: PixelSize, frameCount: Int, plays: Int?) {
        self.canvas = canvas
        self.frameCount = frameCount
        self.plays = plays
    }
}
