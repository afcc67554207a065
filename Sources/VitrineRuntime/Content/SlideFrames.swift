import VitrineConfig
import VitrineCore

extension KioskConfiguration {
    /// One decode request per slide, for an output of `output` size; a Ken
    /// Burns slide's carries its motion over its dwell.
    public func slideRequests(output: PixelSize) -> [SlideRequest] {
        slides.map { slide in
            let motion = kenBurns(of: slide)?.motion(picture: slide.path, dwell: slide.duration ?? interval)
            return SlideRequest(file: slide.path, resolvedPath: resolve(slide.path), fit: slide.fit ?? fit,
                                background: background, output: output, maxPixels: decode.maxPixels, kenBurns: motion)
        }
    }

    /// The log line, if any, saying that Ken Burns frames at `output` are held
    /// to `SlideRequest.kenBurnsFramePixelLimit` with less headroom than their zoom.
    public func kenBurnsHeadroomNote(output: PixelSize) -> String? {
        let limited = slideRequests(output: output).filter(\.isHeadroomLimited)
        guard let first = limited.first, let zoom = limited.compactMap(\.kenBurns?.largestZoom).max() else { return nil }
        let limit = SlideRequest.kenBurnsFramePixelLimit
        return "Ken Burns frames at \(output) are held to \(limit >> 20) Mi pixels (\(limit >> 18) MiB) each: "
            + "\(fixedPoint(first.frameScale, decimals: 2))x the output instead of up to \(fixedPoint(zoom, decimals: 2))x, "
            + "so the closest views of \(limited.count) slide\(limited.count == 1 ? "" : "s") are enlarged from it"
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
        // A Ken Burns picture past its end, or held by a finger, looks the same however long it stays.
        for index in drawn.layers.indices {
            if let motion = kenBurns(of: drawn.layers[index].content) { drawn.layers[index].playback = motion.drawn(drawn.layers[index].playback) }
        }
        return drawn
    }

    /// Whether `content`'s picture moves of itself.
    func hasMotion(_ content: SlideContent) -> Bool { kenBurns(of: content) != nil }
}

extension SlideFrameStore {
    /// The Ken Burns motion `content` shows: its slide's, while the slide's own
    /// frame is there to show it (a failed one shows the still placeholder).
    public func kenBurns(of content: SlideContent) -> KenBurnsMotion? {
        guard case .slide(let index) = content, let motion = kenBurns(ofSlide: index), frame(of: index) != nil else { return nil }
        return motion
    }

    /// What the compositor draws for `layer`: its slide's frame, or for a Ken
    /// Burns slide the rectangle of its frame at the layer's playback; a failed
    /// slide shows the placeholder; nil draws the background.
    public func picture(for layer: Scene.Layer) -> LayerPicture? {
        if case .slide(let index) = layer.content, let frame = frame(of: index), let motion = kenBurns(ofSlide: index) {
            return LayerPicture(frame: frame, region: motion.rect(at: layer.playback))
        }
        return frame(for: layer.content).map { LayerPicture(frame: $0) }
    }

    /// Whether a Ken Burns picture in `scene` moves on at the next refresh: a
    /// frame is then wanted at every refresh, as during a transition.
    public func kenBurnsMoves(in scene: Scene) -> Bool {
        scene.layers.contains { layer in kenBurns(of: layer.content)?.isMoving(at: layer.playback) ?? false }
    }
}
