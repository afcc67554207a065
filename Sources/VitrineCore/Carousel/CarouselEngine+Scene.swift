// What the engine shows at an instant: the slides, their offsets and opacities, the dots.

extension CarouselEngine {
    /// The picture at `now`: which slides, where, how opaque, and the indicator.
    ///
    /// While a finger drags, and while the picture settles after a drag, the
    /// slides are drawn side by side whatever the configured transition: the
    /// picture must follow the finger, and a crossfade or a cut cannot. (A
    /// crossfade caught and held still stays a crossfade until the finger moves.)
    public func scene(at now: MonotonicInstant) -> Scene {
        guard !pages.isEmpty else { return Scene(layers: [Scene.Layer(content: .placeholder)], indicator: nil) }
        let position = position(at: now)
        let base = Int(position.rounded(.down))
        let fraction = position - Double(base)
        let visible = visiblePages
        // Pulled past the end of a non-looping playlist, the indicator stays on the end's dot.
        let indicated = visible.map { min(max(position, Double($0.lowerBound)), Double($0.upperBound)) } ?? position
        var indicatorPosition = wrappedPosition(indicated)
        if let substitute = activeSubstitute, let targetPage = pages.firstIndex(of: substitute.slide) {
            // A go-to across several pages: the dots in between never light up; the
            // indicator moves from the old dot to the target's once it covers half the screen.
            let nearest = Int(indicated.rounded())
            indicatorPosition = Double(nearest == substitute.page ? targetPage : wrappedPage(nearest))
        }
        let indicator = pages.count >= 2
            ? IndicatorState(count: pages.count, position: indicatorPosition) : nil
        let lower = slideOnScreen(atPage: base)
        let isDragged = { if case .dragging = phase { return true } else { return false } }()
        func layer(_ slide: Int, offset: Double = 0, opacity: Double = 1) -> Scene.Layer {
            Scene.Layer(content: .slide(slide), offset: offset, opacity: opacity,
                        playback: playback.playback(of: slide, at: now, isDragged: isDragged))
        }
        guard fraction > 1e-9 else {
            return Scene(layers: [layer(lower)], indicator: indicator)
        }
        let upper = slideOnScreen(atPage: base + 1)
        let kind: TransitionKind
        switch phase {
        case .animating(let animation): kind = animation.style.kind
        case .dragging(let drag): kind = drag.kind
        case .resting, .awaitingNext: kind = settings.transition.kind
        }
        switch kind {
        case .slide, .cut:
            // Each layer is offset by its page's distance from the position: dragged
            // from page 0, the slide under the finger moves by exactly offset / width.
            // A page that does not exist (past the end, without loop) shows the background.
            let layers = [base, base + 1]
                .filter { visible?.contains($0) ?? true }
                .map { layer(slideOnScreen(atPage: $0), offset: Double($0) - position) }
            return Scene(layers: layers.isEmpty ? [layer(lower)] : layers, indicator: indicator)
        case .crossfade:
            return Scene(layers: [layer(lower), layer(upper, opacity: fraction)], indicator: indicator)
        }
    }
}
