import VitrineConfig
import VitrineCore

extension KioskConfiguration {
    /// One decode request per slide, for an output of `output` size; a Ken
    /// Burns slide's carries its motion over its dwell.
    public func slideRequests(output: PixelSize) -> [SlideRequest] {
        slides.map { slide in
            let motion = kenBurns(of: slide)?.motion(picture: slide.path, dwell: slide.duration ?? interval)
            var request = SlideRequest(file: slide.path, resolvedPath: resolve(slide.path), fit: slide.fit ?? fit,
                                       background: background, output: output, maxPixels: decode.maxPixels, kenBurns: motion)
            // A playlist of one video is never paged away from: it loops rather than standing on its last frame.
            request.videoLength = slides.count == 1 && slide.videoLength == .wholeVideo ? .endless : slide.videoLength
            request.maxVideoBitsPerSecond = decode.maxVideoBitsPerSecond
            return request
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
    /// The frame to draw for `layer`: an animated slide's frame at the layer's
    /// playback (its first frame while a finger holds it); otherwise as
    /// `frame(for:)` gives it.
    public func frame(for layer: Scene.Layer) -> PixelImage? {
        if let video = playingVideo(of: layer) { return layer.playback.isHeld ? video.poster : video.currentFrame }
        if let (animation, index) = animationFrame(of: layer) { return animation.frame(index) }
        return frame(for: layer.content)
    }

    /// The video of `layer`'s slide, while its own first frame is there to show
    /// (a failed one shows the still placeholder).
    private func playingVideo(of layer: Scene.Layer) -> (any SlideVideo)? {
        guard case .slide(let slide) = layer.content, let video = video(of: slide), frame(of: slide) != nil else { return nil }
        return video
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
        noteDrawn(scene.layers)
        var drawn = scene
        for index in drawn.layers.indices {
            let layer = drawn.layers[index]
            if let video = playingVideo(of: layer) {
                // The frame this playback shows is chosen here, once a turn, at the
                // scene's own time: a new frame is a new scene, and is drawn. What
                // draws it then takes `currentFrame`, never choosing again with the
                // drawn scene's time, which is the frame's, not the turn's.
                if layer.playback.isHeld {
                    drawn.layers[index].playback = LayerPlayback(elapsed: .zero, isHeld: true)
                } else {
                    _ = video.frame(at: layer.playback.elapsed)
                    drawn.layers[index].playback = LayerPlayback(elapsed: video.shownTime ?? .zero)
                }
                continue
            }
            let animation: SlideAnimation? = if case .slide(let slide) = layer.content { self.animation(of: slide) } else { nil }
            if let motion = kenBurns(of: layer.content) {
                // A Ken Burns picture past its end, or held by a finger, looks the same
                // however long it stays, unless its frames play.
                if animation == nil || layer.playback.isHeld { drawn.layers[index].playback = motion.drawn(layer.playback) }
            } else if let animation, !layer.playback.isHeld {
                drawn.layers[index].playback = LayerPlayback(elapsed: animation.timeline.frameStart(at: layer.playback.elapsed))
            } else {
                drawn.layers[index].playback = .start
            }
        }
        return drawn
    }

    /// When the picture of `scene` (as of `now`) next changes by itself: the
    /// soonest next frame of an animated slide it shows; nil when none moves.
    public func nextMotionChange(in scene: Scene, at now: MonotonicInstant) -> MonotonicInstant? {
        var soonest: MonotonicInstant?
        for layer in scene.layers where !layer.playback.isHeld {
            if let video = playingVideo(of: layer) {
                guard let change = video.nextChange(after: layer.playback.elapsed) else { continue }
                let instant = now + (change - layer.playback.elapsed)
                soonest = min(soonest ?? instant, instant)
                continue
            }
            guard case .slide(let slide) = layer.content, let animation = animation(of: slide),
                  let change = animation.timeline.nextChange(after: layer.playback.elapsed) else { continue }
            let instant = now + (change - layer.playback.elapsed)
            soonest = min(soonest ?? instant, instant)
        }
        return soonest
    }
}

extension SlideFrameStore {
    /// The Ken Burns motion `content` shows: its slide's, while the slide's own
    /// frame is there to show it (a failed one shows the still placeholder).
    public func kenBurns(of content: SlideContent) -> KenBurnsMotion? {
        // A video is shown whole: its frames are framed for the output as they are decoded.
        guard case .slide(let index) = content, let motion = kenBurns(ofSlide: index), frame(of: index) != nil,
              video(of: index) == nil else { return nil }
        return motion
    }

    /// What the compositor draws for `layer`: its slide's frame (an animated
    /// slide's frame at the layer's playback), or for a Ken Burns slide the
    /// rectangle of that frame at the layer's playback; a failed slide shows
    /// the placeholder; nil draws the background.
    public func picture(for layer: Scene.Layer) -> LayerPicture? { picture(for: layer, framingNow: false) }

    /// `picture(for:)`, with an animation's frame framed now if it is not yet:
    /// for `vitrine render`, which must show the frame of the instant it renders.
    public func pictureNow(for layer: Scene.Layer) -> LayerPicture? { picture(for: layer, framingNow: true) }

    private func picture(for layer: Scene.Layer, framingNow: Bool) -> LayerPicture? {
        if let video = playingVideo(of: layer) {
            if layer.playback.isHeld { return LayerPicture(frame: video.poster) }
            let frame = framingNow ? video.frameNow(at: layer.playback.elapsed) : video.currentFrame
            return LayerPicture(frame: frame, changesInPlace: frame !== video.poster)
        }
        let animated = animationFrame(of: layer).map { framingNow ? $0.0.frameNow($0.1) : $0.0.frame($0.1) }
        // An animation's framed frames are reused in place for later frames (`SlideAnimation`'s
        // spares): the planes must not keep a copy of one by its identity, so they are composed.
        let inPlace = animated.map { frame in !(frame === self.frame(for: layer.content)) } ?? false
        if case .slide(let index) = layer.content, let still = frame(of: index), let motion = kenBurns(of: layer.content) {
            return LayerPicture(frame: animated ?? still, region: motion.rect(at: layer.playback), changesInPlace: inPlace)
        }
        return (animated ?? frame(for: layer.content)).map { LayerPicture(frame: $0, changesInPlace: inPlace) }
    }

    /// Whether a Ken Burns picture in `scene` moves on at the next refresh: a
    /// frame is then wanted at every refresh, as during a transition.
    public func kenBurnsMoves(in scene: Scene) -> Bool {
        scene.layers.contains { layer in kenBurns(of: layer.content)?.isMoving(at: layer.playback) ?? false }
    }
}
