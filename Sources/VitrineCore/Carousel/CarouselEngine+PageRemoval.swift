// Slides leaving and rejoining paging: failed pictures ("skip") and attract mode's hidden slides.

extension CarouselEngine {
    /// Leaves `slide` out of paging (its picture cannot be shown and the policy is
    /// "skip"). If it is on screen, the next page takes its place.
    public mutating func markUnavailable(_ slide: Int, at now: MonotonicInstant) {
        unavailable.insert(slide)
        leaveOut(slide, at: now)
    }

    /// Leaves `slides` out of paging until `showHidden`: attract mode hides the
    /// slides meant only for nobody (`attractOnly`) from a visitor. A hidden slide
    /// on screen gives way at once to the next page, as a failed one does. Hides
    /// nothing that would leave no page to show.
    public mutating func hide(_ slides: Set<Int>, at now: MonotonicInstant) {
        let leaving = slides.subtracting(hidden).filter { pages.contains($0) }
        guard !leaving.isEmpty, pages.contains(where: { !leaving.contains($0) }) else { return }
        hidden.formUnion(leaving)
        for slide in pages where leaving.contains(slide) { leaveOut(slide, at: now) }
    }

    /// Brings the hidden slides back into paging, in playlist order, with the
    /// slide on screen staying where it is (an animation in flight finishes at
    /// once, a drag ends on its page). Slides that failed meanwhile stay out.
    public mutating func showHidden(at now: MonotonicInstant) {
        guard !hidden.isEmpty else { return }
        if case .animating(let animation) = phase { finish(animation) }
        if case .dragging(let drag) = phase { abandon(drag, at: now) }
        let current = currentSlide
        let previousCount = pages.count
        hidden = []
        pages = settings.slideDwells.indices.filter { !unavailable.contains($0) }
        anchor = current.flatMap { pages.firstIndex(of: $0) } ?? 0
        // With a single page there was no rotation deadline; now there is a next slide.
        if previousCount < 2, pages.count >= 2, let slide = currentSlide {
            scheduler.slideBegan(at: now, dwell: dwell(ofSlide: slide))
        }
    }

    /// Takes `slide` out of `pages`; if it is on screen, the next page takes its place.
    mutating func leaveOut(_ slide: Int, at now: MonotonicInstant) {
        guard let page = pages.firstIndex(of: slide) else { return }
        if case .animating(let animation) = phase { finish(animation) }
        if case .dragging(let drag) = phase { abandon(drag, at: now) }
        let previousPhase = phase
        let current = currentSlide
        pages.remove(at: page)
        if let current, current != slide, let kept = pages.firstIndex(of: current) {
            anchor = kept
        } else {
            // The next page takes its place: past the end that is the first page when
            // looping, and the new last page when not.
            anchor = pages.isEmpty ? 0 : (settings.loop ? page % pages.count : min(page, pages.count - 1))
        }
        phase = .resting
        // The replacement comes to rest now: its motion starts from the beginning.
        if currentSlide != playback.slide { playback.restart(currentSlide, at: now) }
        if pages.count < 2 {
            scheduler.clearDeadline()
        } else if case .awaitingNext(let scheduledAt, let stalled) = previousPhase {
            // The deadline was consumed by the change that waited for a picture; keep
            // that change pending (now towards the following page), or, if the slide on
            // screen went, give its replacement a full dwell, so rotation never stops.
            if let current, current != slide {
                phase = .awaitingNext(scheduledAt: scheduledAt, stalled: stalled)
            } else if let replacement = currentSlide {
                scheduler.slideBegan(at: now, dwell: dwell(ofSlide: replacement))
            }
        }
    }
}
