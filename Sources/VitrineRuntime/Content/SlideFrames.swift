import VitrineConfig
import VitrineCore

extension KioskConfiguration {
    /// One decode request per slide, for an output of `output` size.
    public func slideRequests(output: PixelSize) -> [SlideRequest] {
        slides.map { slide in
            SlideRequest(file: slide.path, resolvedPath: resolve(slide.path), fit: slide.fit ?? fit,
                         background: background, output: output, maxPixels: decode.maxPixels)
        }
    }

    public func placeholderRequest(output: PixelSize) -> SlideRequest? {
        placeholder.map {
            SlideRequest(file: $0, resolvedPath: resolve($0), fit: fit, background: background, output: output,
                         maxPixels: decode.maxPixels)
        }
    }

    public var compositor: Compositor { Compositor(background: background, indicator: indicator) }
}

extension SlideFrameStore {
    /// The frame to draw for `content`: a failed slide shows the placeholder (the
    /// "skip" policy takes failed slides out of paging before they are drawn);
    /// nil draws the background.
    public func frame(for content: SlideContent) -> PixelImage? {
        switch content {
        case .placeholder:
            return placeholderFrame
        case .slide(let index):
            if let frame = frame(of: index) { return frame }
            if case .failed = state(of: index) { return placeholderFrame }
            return nil
        }
    }
}

extension SlideFrameStore {
    /// `scene` as drawn: a layer whose picture does not move of itself is drawn
    /// the same at any playback, so its playback is left out, and an unchanged
    /// still picture is not drawn again on every turn of the loop.
    public func drawnScene(_ scene: Scene) -> Scene {
        var drawn = scene
        for index in drawn.layers.indices where !hasMotion(drawn.layers[index].content) {
            drawn.layers[index].playback = .start
        }
        return drawn
    }

    /// Whether `content`'s picture moves of itself.
    func hasMotion(_ content: SlideContent) -> Bool { false }
}
