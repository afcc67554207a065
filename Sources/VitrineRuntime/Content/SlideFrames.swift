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
