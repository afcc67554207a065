import Logging
import VitrineConfig
import VitrineCore

/// The log line a video slide leaves when the carousel pages away from it:
/// what it is, and how its frames reached the screen in that playback
/// (`VideoPacingSummary`), or why it stopped; and its frames in /metrics
/// (`vitrine_video_frames_total`).
enum VideoPlayReport {
    static func log(leaving slide: Int, store: SlideFrameStore, configuration: KioskConfiguration, metrics: KioskMetrics, logger: Logger) {
        guard let video = store.video(of: slide) else { return }
        let pacing = video.pacing
        guard pacing.shown > 0 else { return }
        metrics.videoPlayed(pacing)
        let file = configuration.slides.indices.contains(slide) ? configuration.slides[slide].path : "slide \(slide)"
        var metadata: Logger.Metadata = ["file": "\(file)", "video": "\(video.info.summary)", "pacing": "\(pacing.description)"]
        if let failure = video.failure { metadata["stopped"] = "\(failure)" }
        logger.info("video played", metadata: metadata)
    }
}
