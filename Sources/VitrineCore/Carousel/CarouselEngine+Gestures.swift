// A finger on the picture: holding, dragging, letting go, tapping.

extension CarouselEngine {
    /// Applies a gesture from `GestureRecognizer` at `now` (normally the gesture's own time).
    ///
    /// - `pressed` pauses rotation (`PauseReason.touch`) and, if an animation is
    ///   running, the finger catches it: the picture stops where it is.
    /// - `dragBegan` and `dragMoved` move the picture with the finger: the position
    ///   is where it was when the drag began minus offset / width, so a finger moving
    ///   left brings the next slide in from the right. Without loop the picture
    ///   moves only `rubberBand` of the finger's movement past the first or last page.
    /// - `dragEnded` pages to the neighbour of the page the finger took hold of (one
    ///   page at most, never past the ends without loop) when the drag went further
    ///   than `pageFraction` of the width or was a flick (see
    ///   `GestureSettings.swipeDirection`), and otherwise snaps back; either way the
    ///   picture animates from where the finger left it over the configured
    ///   duration and easing, sliding whatever the transition kind. A page change is
    ///   reported as `pageChanged` with cause `.swipe` when the animation completes.
    /// - `dragCancelled` snaps back; nothing is decided from a cancelled touch.
    /// - `tap` reports `tapped`; the engine does not navigate on a tap.
    /// - `released` settles a caught animation on the nearest page and resumes
    ///   rotation per the scheduler's touch policy: the resume delay plus a full
    ///   dwell from now.
    ///
    /// With fewer than two pages, drags do nothing; taps are still reported (not
    /// with an empty playlist, which has no slide to name).
    public mutating func handle(_ gesture: GestureEvent, at now: MonotonicInstant, settings gestures: GestureSettings) {
        // As in libinput's state machines, the phase picks the handler, and each
        // handler says what every gesture does in its phases.
        switch phase {
        case .resting, .awaitingNext:
            handleUnheld(gesture, running: nil, at: now)
        case .animating(let animation):
            handleUnheld(gesture, running: animation, at: now)
        case .dragging(let drag):
            handleWhileDragging(drag, gesture, at: now, settings: gestures)
        }
    }

    /// No finger holds the picture, which is at rest or in an animation
    /// (`running`): a finger can pause rotation, catch a running animation
    /// where it is, take hold of the picture by moving, or tap.
    mutating func handleUnheld(_ gesture: GestureEvent, running animation: PageAnimation?, at now: MonotonicInstant) {
        switch gesture {
        case .pressed:
            pause(.touch, at: now)
            if let animation {
                if now >= animation.end { finish(animation) } else { takeHold(at: now) }
            }
        case .dragBegan:
            beginDrag(at: now)
        case .dragMoved, .dragEnded, .dragCancelled:
            // No drag began (fewer than two pages): nothing to move.
            break
        case .tap(let point, _):
            reportTap(at: point)
        case .released:
            resume(.touch, at: now)
        }
    }

    /// A finger holds the picture: it moves it, lets it go to a page, or puts it back.
    mutating func handleWhileDragging(_ drag: DragState, _ gesture: GestureEvent, at now: MonotonicInstant,
                                              settings gestures: GestureSettings) {
        var drag = drag
        switch gesture {
        case .pressed:
            pause(.touch, at: now)
        case .dragBegan:
            beginDrag(at: now)
        case .dragMoved(let offset, _):
            guard drag.hasMoved else { return }
            drag.position = position(of: drag, offset: offset, width: gestures.outputWidth)
            phase = .dragging(drag)
        case .dragEnded(let offset, let velocity, _):
            guard drag.hasMoved else { return }
            drag.position = position(of: drag, offset: offset, width: gestures.outputWidth)
            phase = .dragging(drag)
            guard let direction = gestures.swipeDirection(offset: offset, velocity: velocity) else {
                settle(drag, toPage: drag.startPage, at: now, swipe: nil)
                return
            }
            let blocked = !settings.loop
                && wrappedPage(drag.startPage) == (direction == .next ? pages.count - 1 : 0)
            if blocked {
                settle(drag, toPage: drag.startPage, at: now, swipe: nil)
            } else {
                settle(drag, toPage: drag.startPage + (direction == .next ? 1 : -1), at: now, swipe: direction)
            }
        case .dragCancelled:
            settle(drag, toPage: drag.startPage, at: now, swipe: nil)
        case .tap(let point, _):
            reportTap(at: point)
        case .released:
            settle(drag, toPage: drag.startPage, at: now, swipe: nil)
            resume(.touch, at: now)
        }
    }

    /// The finger starts moving the picture (taking hold of it first, in any
    /// phase); a second `dragBegan` for the same hold does nothing.
    mutating func beginDrag(at now: MonotonicInstant) {
        guard takeHold(at: now), case .dragging(var drag) = phase, !drag.hasMoved else { return }
        drag.hasMoved = true
        if drag.kind != .slide {
            // A caught crossfade cannot follow a finger: it completes to the nearest slide.
            drag.position = Double(drag.startPage)
            drag.kind = .slide
        }
        drag.startPosition = drag.position
        phase = .dragging(drag)
        outbox.append(.dragBegan(slide: currentSlide ?? 0))
    }

    mutating func reportTap(at point: TouchPoint) {
        if let slide = currentSlide { outbox.append(.tapped(slide: slide, x: point.x, y: point.y)) }
    }

    /// Stops the picture under a finger: the phase becomes `.dragging`, holding
    /// the position it has at `now` (a running animation freezes). Returns false
    /// when there is nothing to hold (fewer than two pages).
    @discardableResult
    mutating func takeHold(at now: MonotonicInstant) -> Bool {
        guard pages.count >= 2 else { return false }
        if case .dragging = phase { return true }
        if case .animating(let animation) = phase, now >= animation.end { finish(animation) }
        var position = position(at: now)
        var startPage = Int(position.rounded())
        // The pages on screen now; they stay whatever happens to the axis.
        let base = Int(position.rounded(.down))
        var shown = position > Double(base) ? [base, base + 1] : [base]
        if let visible = visiblePages { shown = shown.filter { visible.contains($0) } }
        var fromSlide = currentSlide ?? 0
        var cause: PageChangeCause?
        var kind = TransitionKind.slide
        var substitute: (page: Int, slide: Int)?
        if case .animating(let animation) = phase {
            fromSlide = animation.fromSlide
            cause = animation.cause
            kind = animation.style.kind
            substitute = animation.substitute
            if let stand = substitute, stand.page == startPage, let real = pages.firstIndex(of: stand.slide) {
                // The finger holds a slide drawn on a stand-in page (a go-to's target).
                // Move the axis so that slide is on its own page, with its own
                // neighbours, and let the slide beside it on screen stand in instead.
                let shift = real - stand.page
                let other = shown.first { $0 != stand.page }
                substitute = other.map { ($0 + shift, slideOnScreen(atPage: $0)) }
                shown = shown.map { $0 + shift }
                position += Double(shift)
                startPage = real
            }
        }
        var limits: ClosedRange<Double>?
        var visible: ClosedRange<Int>?
        if !settings.loop {
            // The playlist's pages, and those on screen (an automatic change wraps from
            // the last page to the first even without loop), and a go-to's stand-in.
            let first = startPage - wrappedPage(startPage), last = first + pages.count - 1
            limits = min(Double(first), position)...max(Double(last), position)
            let extra = shown + (substitute.map { [$0.page] } ?? [])
            visible = min(first, extra.min() ?? first)...max(last, extra.max() ?? last)
        }
        anchor = startPage
        playback.hold(at: now)
        phase = .dragging(DragState(
            startPosition: position, startPage: startPage, position: position, hasMoved: false, kind: kind,
            fromSlide: fromSlide, caughtCause: cause, limits: limits, visiblePages: visible, substitute: substitute))
        return true
    }

    /// The position of a drag whose finger is `offset` pixels from where the drag
    /// began: at most a page either way (a finger cannot cross more than the screen).
    func position(of drag: DragState, offset: Double, width: Int) -> Double {
        guard width > 0, offset.isFinite else { return drag.position }
        let free = min(max(drag.startPosition - offset / Double(width), drag.startPosition - 1),
                       drag.startPosition + 1)
        guard let limits = drag.limits else { return free }
        if free < limits.lowerBound { return limits.lowerBound - (limits.lowerBound - free) * Self.rubberBand }
        if free > limits.upperBound { return limits.upperBound + (free - limits.upperBound) * Self.rubberBand }
        return free
    }

    /// Lets the picture go: it animates from where the finger left it to `page`,
    /// with the configured duration and easing, sliding (or, for a crossfade held
    /// still, fading). `swipe` is the direction when the release pages (`page` is
    /// then a neighbour of the start page).
    mutating func settle(
        _ drag: DragState, toPage page: Int, at now: MonotonicInstant, swipe: SwipeDirection?
    ) {
        let swipedFrom = slideOnScreen(atPage: drag.startPage)
        var style = settings.transition
        style.kind = drag.kind
        if drag.position == Double(page) { style.duration = .zero }
        let cause = swipe == nil ? drag.caughtCause ?? .swipe : .swipe
        startAnimation(from: drag.position, toPage: page, at: now, cause: cause, substitute: drag.substitute,
                       style: style)
        if drag.hasMoved { outbox.append(.dragEnded(slide: currentSlide ?? 0, paged: swipe != nil)) }
        if let swipe { outbox.append(.swiped(from: swipedFrom, direction: swipe)) }
        // Already there (the finger put it back exactly, or caught it on a page): at rest now.
        if case .animating(let animation) = phase, now >= animation.end { finish(animation) }
    }

    /// Ends a drag at once, on the page the finger took hold of (a slide it held went away).
    mutating func abandon(_ drag: DragState, at now: MonotonicInstant) {
        var style = settings.transition
        style.duration = .zero
        startAnimation(from: Double(drag.startPage), toPage: drag.startPage, at: now,
                       cause: drag.caughtCause ?? .swipe, substitute: drag.substitute, style: style)
        if case .animating(let animation) = phase { finish(animation) }
        if drag.hasMoved { outbox.append(.dragEnded(slide: currentSlide ?? 0, paged: false)) }
    }
}
