import Logging
import VitrineConfig
import VitrineCore

/// The log line a video slide leaves when the carousel pages away from it:
/// what it is, and how its frames reached the screen in that playback
/// (`VideoPacingSummary`), or why it stopped; and its frames in /metrics
/// (`vitrine_video_frames_total`). Returns how much of the video played, for
/// proof of play (`KioskEvent.videoPlayed`); nil when the slide is no video
/// or none of it played.
enum VideoPlayReport {
    static func log(leaving slide: Int, store: SlideFrameStore, configuration: KioskConfiguration, metrics: KioskMetrics,
                    logger: Logger) -> Duration? {
        guard let video = store.video(of: slide) else { return nil }
        let pacing = video.pacing
        guard pacing.shown > 0 else { return nil }
        metrics.videoPlayed(pacing)
        let file = configuration.slides.indices.contains(slide) ? configuration.slides[slide].path : "slide \(slide)"
        var metadata: Logger.Metadata = ["file": "\(file)", "video": "\(video.info.summary)", "pacing": "\(pacing.description)"]
        if let failure = video.failure { metadata["stopped"] = "\(failure)" }
        let played = video.played
        metadata["played"] = "\(played.nanoseconds / 1_000_000) ms"
        logger.info("video played", metadata: metadata)
        return played
    }
}
