import VitrineConfig
import VitrineCore

/// What the display loop and its video slides tell each other, once a turn:
///
/// - A video slide without a `duration` stays on screen as long as its video
///   plays: its transition in, then the video's length. The length is known
///   only once the video is open in its helper, usually while the slide before
///   it shows, so the engine learns it then (`CarouselEngine.setDwell`). A group
///   that rotates in step (`rotation.sync`) plans every slide's dwell from the
///   configuration alone; there a video slide needs a `duration`.
/// - Each video's frames are paced to the refresh of the screen that shows it
///   (`refreshInterval`: 60 Hz, 50 Hz, a mode chosen after a hotplug).
enum VideoSlideTiming {
    static func apply(store: SlideFrameStore, configuration: KioskConfiguration, refreshInterval: Duration?,
                      engine: inout CarouselEngine) {
        for (slide, video) in store.residentVideos {
            if let refreshInterval { video.paceTo(refreshInterval: refreshInterval) }
            guard configuration.slides.indices.contains(slide), configuration.slides[slide].duration == nil,
                  let length = video.length else { continue }
            engine.setDwell(configuration.transition.duration + length, ofSlide: slide)
        }
    }
}
