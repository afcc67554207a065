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
    /// The frame to draw for `layer`: an animated slide's frame at the layer's
    /// playback (its first frame while a finger holds it); otherwise as
    /// `frame(for:)` gives it.
    public func frame(for layer: Scene.Layer) -> PixelImage? {
        if let (animation, index) = animationFrame(of: layer) { return animation.frame(index) }
        return frame(for: layer.content)
    }

    /// `frame(for:)`, with an animation's frame framed now if it is not yet:
    /// for `vitrine render`, which must show the frame of the instant it renders.
    public func frameNow(for layer: Scene.Layer) -> PixelImage? {
        if let (animation, index) = animationFrame(of: layer) { return animation.frameNow(index) }
        return frame(for: layer.content)
    }

    /// The animation of `layer`'s slide and the frame its playback shows (the
    /// first while a finger holds it); nil for a still or an undecoded slide.
    private func animationFrame(of layer: Scene.Layer) -> (SlideAnimation, Int)? {
        guard case .slide(let slide) = layer.content, let animation = animation(of: slide), frame(of: slide) != nil else { return nil }
        return (animation, layer.playback.isHeld ? 0 : animation.timeline.frame(at: layer.playback.elapsed))
    }

    /// `scene` as drawn: a still picture is the same at any playback, so its
    /// playback is left out, and an animated one's is the start of the frame
    /// it shows; an unchanged picture is then not drawn again on every turn
    /// of the loop, and an animation is drawn once a frame.
    public func drawnScene(_ scene: Scene) -> Scene {
        var drawn = scene
        for index in drawn.layers.indices {
            let layer = drawn.layers[index]
            guard case .slide(let slide) = layer.content, let animation = animation(of: slide), !layer.playback.isHeld else {
                drawn.layers[index].playback = .start
                continue
            }
            drawn.layers[index].playback = LayerPlayback(elapsed: animation.timeline.frameStart(at: layer.playback.elapsed))
        }
        return drawn
    }

    /// When the picture of `scene` (as of `now`) next changes by itself: the
    /// soonest next frame of an animated slide it shows; nil when none moves.
    public func nextMotionChange(in scene: Scene, at now: MonotonicInstant) -> MonotonicInstant? {
        var soonest: MonotonicInstant?
        for layer in scene.layers where !layer.playback.isHeld {
            guard case .slide(let slide) = layer.content, let animation = animation(of: slide),
                  let change = animation.timeline.nextChange(after: layer.playback.elapsed) else { continue }
            let instant = now + (change - layer.playback.elapsed)
            soonest = min(soonest ?? instant, instant)
        }
        return soonest
    }
}
