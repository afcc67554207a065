import VitrineConfig
import VitrineCore

/// A video slide without a `duration` stays on screen as long as its video
/// plays: its transition in, then the video's length. The length is known
/// only once the video is open in its helper, usually while the slide before
/// it shows, so the engine learns it then (`CarouselEngine.setDwell`).
///
/// A group that rotates in step (`rotation.sync`) plans every slide's dwell
/// from the configuration alone; there a video slide needs a `duration`.
enum VideoSlideLengths {
    static func apply(store: SlideFrameStore, configuration: KioskConfiguration, engine: inout CarouselEngine) {
        for (slide, video) in store.residentVideos {
            guard configuration.slides.indices.contains(slide), configuration.slides[slide].duration == nil,
                  let length = video.length else { continue }
            engine.setDwell(configuration.transition.duration + length, ofSlide: slide)
        }
    }
}
