// Navigation and rotation commands from outside the engine (the API, rotation in step, attract mode).

extension CarouselEngine {
    /// Navigates; returns false when the command does nothing (a single page, the
    /// end of a non-looping playlist, or a slide that is not in the playlist).
    /// `cause` is what the page change is reported as: `.automatic` when
    /// rotation in step (`SyncedRotationTimeline`) brings a kiosk back to the slide its
    /// group shows.
    @discardableResult
    public mutating func perform(_ command: CarouselCommand, at now: MonotonicInstant,
                                 cause: PageChangeCause = .command) -> Bool {
        guard pages.count >= 2 else { return false }
        // A command during an animation continues from where the picture is now,
        // towards a page counted from the animation's target. An animation that is
        // over is finished first, so that `from` is on the normalised axis.
        if case .animating(let animation) = phase, now >= animation.end { finish(animation) }
        let from = position(at: now)
        // A command takes the picture from a finger holding it; the finger's later moves do nothing.
        var heldSubstitute: (page: Int, slide: Int)?
        var takesADrag = false
        if case .dragging(let drag) = phase {
            heldSubstitute = drag.substitute
            takesADrag = drag.hasMoved
        }
        let target: Int
        var substitute: (page: Int, slide: Int)?
        switch command {
        case .next:
            target = anchor + 1
            // The ends are those of the playlist: `anchor` may be off the 0..<count
            // range while an automatic change wraps from the last slide to the first.
            if !settings.loop && wrappedPage(anchor) == pages.count - 1 { return false }
        case .previous:
            target = anchor - 1
            if !settings.loop && wrappedPage(anchor) == 0 { return false }
        case .goTo(let slide):
            guard let page = pages.firstIndex(of: slide) else { return false }
            let currentPage = wrappedPage(anchor)
            guard page != currentPage else { return false }
            let forward = page > currentPage
            target = anchor + (forward ? 1 : -1)
            if wrappedPage(target) != page { substitute = (target, slide) }
        }
        startAnimation(from: from, toPage: target, at: now, cause: cause, substitute: substitute ?? heldSubstitute)
        if takesADrag { outbox.append(.dragEnded(slide: currentSlide ?? 0, paged: false)) }
        return true
    }

    /// Moves the next automatic page change to `deadline`, while one is
    /// scheduled (rotation playing, the slide resting): rotation in step puts
    /// it on the wall clock's instant instead of the slide's own dwell.
    public mutating func alignRotation(to deadline: MonotonicInstant) {
        guard case .resting = phase else { return }
        scheduler.align(deadline: deadline)
    }

    public mutating func pause(_ reason: PauseReason, at now: MonotonicInstant) {
        scheduler.pause(reason)
        if case .awaitingNext = phase { phase = .resting }
    }

    public mutating func resume(_ reason: PauseReason, at now: MonotonicInstant) {
        scheduler.resume(reason, at: now)
        if pages.count < 2 { scheduler.clearDeadline() }
    }
}
