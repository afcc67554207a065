// The page axis: wrapping, which slide a page shows, and starting and finishing page changes.

extension CarouselEngine {
    func wrappedPage(_ page: Int) -> Int {
        let count = pages.count
        return count == 0 ? 0 : ((page % count) + count) % count
    }

    func wrappedPosition(_ position: Double) -> Double {
        let count = Double(pages.count)
        let wrapped = position.truncatingRemainder(dividingBy: count)
        // A position a hair below zero would round to `count` itself.
        let result = wrapped < 0 ? wrapped + count : wrapped
        return result < count ? result : 0
    }

    func slide(atPage page: Int) -> Int? {
        pages.isEmpty ? nil : pages[wrappedPage(page)]
    }

    /// The page showing another slide than its own, in the animation or drag under way.
    var activeSubstitute: (page: Int, slide: Int)? {
        switch phase {
        case .animating(let animation): return animation.substitute
        case .dragging(let drag): return drag.substitute
        case .resting, .awaitingNext: return nil
        }
    }

    /// The pages that exist now; nil when all do.
    var visiblePages: ClosedRange<Int>? {
        switch phase {
        case .animating(let animation): return animation.visiblePages
        case .dragging(let drag): return drag.visiblePages
        case .resting, .awaitingNext: return nil
        }
    }

    /// The slide drawn at `page`; only called while the playlist has pages.
    func slideOnScreen(atPage page: Int) -> Int {
        if let substitute = activeSubstitute, substitute.page == page { return substitute.slide }
        return pages[wrappedPage(page)]
    }

    func dwell(ofSlide slide: Int) -> Duration {
        let dwell = settings.slideDwells.indices.contains(slide) ? settings.slideDwells[slide] : settings.rotation.interval
        return max(dwell, .milliseconds(1))
    }

    mutating func begin(toPage page: Int, at start: MonotonicInstant, cause: PageChangeCause) {
        startAnimation(from: Double(anchor), toPage: page, at: start, cause: cause, substitute: nil)
    }

    mutating func startAnimation(
        from: Double, toPage page: Int, at start: MonotonicInstant, cause: PageChangeCause,
        substitute: (page: Int, slide: Int)?, style: TransitionStyle? = nil
    ) {
        // Interrupting an animation or a drag continues its page change: the report
        // names the slide that was on screen before it, not the one it never settled on.
        var fromSlide = currentSlide ?? 0
        var visible: ClosedRange<Int>?
        switch phase {
        case .animating(let running):
            fromSlide = running.fromSlide
            visible = running.visiblePages
        case .dragging(let drag):
            fromSlide = drag.fromSlide
            visible = drag.visiblePages
        case .resting, .awaitingNext:
            break
        }
        anchor = page
        let target = substitute.flatMap { $0.page == page ? $0.slide : nil } ?? slide(atPage: page) ?? 0
        phase = .animating(PageAnimation(
            fromPosition: from, toPage: page, start: start, style: style ?? settings.transition, cause: cause,
            fromSlide: fromSlide, substitute: substitute,
            visiblePages: visible.map { min($0.lowerBound, page)...max($0.upperBound, page) }))
        scheduler.slideBegan(at: start, dwell: dwell(ofSlide: target))
    }

    mutating func finish(_ animation: PageAnimation) {
        let target = animation.substitute.flatMap { $0.page == animation.toPage ? $0.slide : nil }
            ?? slide(atPage: animation.toPage) ?? 0
        // Normalise the axis so positions stay small however long the kiosk runs.
        anchor = pages.firstIndex(of: target) ?? wrappedPage(animation.toPage)
        phase = .resting
        restingSince = animation.end
        playback.settled(on: target, at: animation.end)
        if target != animation.fromSlide {
            outbox.append(.pageChanged(from: animation.fromSlide, to: target, cause: animation.cause))
        }
    }
}
