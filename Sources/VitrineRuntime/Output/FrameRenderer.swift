import VitrineConfig
import VitrineCore

/// Renders the exact frame the kiosk shows at a given time after start, with no
/// input: the engine runs on virtual time from zero and every picture is
/// decoded before it is needed, so the result depends only on the
/// configuration and the instant. This is what `vitrine render` prints and
/// what golden-image tests compare.
public struct FrameRenderer {
    public let configuration: KioskConfiguration
    public let output: PixelSize
    private let decoder: any SlideDecoder

    /// - Parameter decoder: in this process, with video slides in video
    ///   helpers when `vitrine render` hands an opener in.
    public init(configuration: KioskConfiguration, output: PixelSize? = nil, decoder: any SlideDecoder = InProcessSlideDecoder()) {
        self.configuration = configuration
        self.output = output ?? configuration.outputSize
        self.decoder = decoder
    }

    /// The frame at `seconds` after start, and the failures met on the way.
    public func render(at seconds: Double) -> (frame: PixelImage, failures: [SlideError]) {
        let store = SlideFrameStore(
            slides: configuration.slideRequests(output: output),
            placeholder: configuration.placeholderRequest(output: output),
            capacity: max(configuration.decode.cacheSlides, 4), scratch: .keptWarm, decoder: decoder, onChange: {})
        var engine = CarouselEngine(settings: configuration.carouselSettings, start: .zero)
        var failures: [SlideError] = []
        if configuration.onImageError == .skip {
            // The live kiosk learns of a bad picture while prefetching it, before its
            // turn; here every slide is checked first to reach the same state.
            for slide in configuration.slides.indices {
                store.request([slide])
                store.waitUntilIdle()
                if case .failed = store.state(of: slide) { engine.markUnavailable(slide, at: .zero) }
            }
        }
        // The kiosk learns a video slide's length while the slide before it
        // shows; here every video is opened first to reach the same dwells.
        let requests = configuration.slideRequests(output: output)
        for slide in requests.indices where requests[slide].resolvedPath.map(VideoFile.isVideo(atPath:)) == true {
            store.request([slide])
            store.waitUntilIdle()
            VideoSlideTiming.apply(store: store, configuration: configuration, refreshInterval: nil, engine: &engine)
        }
        engine.advance(to: .seconds(seconds))
        let scene = engine.scene(at: .seconds(seconds))
        let needed = scene.layers.compactMap { layer -> Int? in
            if case .slide(let index) = layer.content { return index }
            return nil
        }
        store.request(needed)
        store.waitUntilIdle()
        failures += store.takeNewFailures().map(\.error)
        let frame = PixelImage(size: output)
        configuration.compositor.compose(scene, into: frame.canvas) { store.pictureNow(for: $0) }
        return (frame, failures)
    }
}
