import VitrineConfig
import VitrineCore

/// The video on screen, as the status tells an operator: what it is, which
/// decoder plays it (software or hardware, the question a Pi's owner asks
/// first), how much of it has played and how its frames reached the screen,
/// and why it stopped, if it did. Read from the slide's `SlideVideo` each
/// turn the status is published.
public struct VideoStatus: Hashable, Sendable {
    /// The slide's `path` as the configuration names it.
    public var file: String
    public var info: VideoInfo
    /// How much of the video this playback has shown (`SlideVideo.played`).
    public var played: Duration
    public var pacing: VideoPacingSummary
    /// Why it stopped playing (its last frame stays), if it did.
    public var failure: String?

    public init(file: String, info: VideoInfo, played: Duration, pacing: VideoPacingSummary, failure: String?) {
        self.file = file
        self.info = info
        self.played = played
        self.pacing = pacing
        self.failure = failure
    }

    /// The video slide `slide` shows, if it is one and its video is open.
    static func of(slide: Int?, store: SlideFrameStore, configuration: KioskConfiguration) -> VideoStatus? {
        guard let slide, configuration.slides.indices.contains(slide), let video = store.video(of: slide) else { return nil }
        return VideoStatus(file: configuration.slides[slide].path, info: video.info, played: video.played, pacing: video.pacing, failure: video.failure)
    }
}
