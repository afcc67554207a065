/// The carousel as a state machine on monotonic time.
///
/// Pages live on a continuous, unwrapped axis: the slide on screen is at an
/// integer position, and a page change animates the position to a neighbouring
/// integer. The picture at position `p` is the page `floor(p)` with its right
/// neighbour coming in by the fraction `p - floor(p)`; page `q` shows slide
/// `pages[q mod count]`. Wrap-around is therefore free in both directions, and a
/// finger can move the position anywhere and let it go (see `handle(_:at:settings:)`).
///
/// Nothing here reads a clock or does I/O: every call takes `now`.
public struct CarouselEngine: Sendable {
    public enum Phase: Hashable, Sendable {
        /// A slide is on screen at `anchor`.
        case resting
        /// The rotation deadline (`scheduledAt`) has come, but the next slide's
        /// picture is not decoded yet; `stalled` once an `advance` found it not ready.
        case awaitingNext(scheduledAt: MonotonicInstant, stalled: Bool)
        /// A page change is animating.
        case animating(PageAnimation)
        /// A finger holds the picture: it drags the slides, or it caught an
        /// animation and holds it still. Input drives the frames.
        case dragging(DragState)
    }

    /// Past the end of a non-looping playlist, the picture moves this fraction of
    /// the finger's movement (the rubber band).
    public static let rubberBand = 0.3

    /// A finger holding the picture.
    public struct DragState: Hashable, Sendable {
        /// Where the picture was when the finger took hold of it (or when the drag
        /// began): a drag moves the position from here by offset / width.
        public var startPosition: Double
        /// The page nearest `startPosition`: a swipe pages to its neighbour, a snap back returns to it.
        public var startPage: Int
        /// The position now.
        public var position: Double
        /// Whether a horizontal drag has begun; false while the finger only holds a
        /// caught animation still.
        public var hasMoved: Bool
        /// How the picture is drawn: as the caught animation was while the finger
        /// holds it still (a crossfade stays a crossfade), `.slide` once it drags.
        public var kind: TransitionKind
        /// The slide last settled on, which a page change is reported from.
        public var fromSlide: Int
        /// The cause of the animation the finger caught, if any: a settle that is
        /// not a swipe keeps it.
        public var caughtCause: PageChangeCause?
        /// With loop off, the positions the finger moves without resistance: the
        /// first to the last page, widened to hold the start. Nil when looping.
        public var limits: ClosedRange<Double>?
        /// With loop off, the pages that exist (the others draw as background): the
        /// playlist's, and any other the picture showed when the finger took hold.
        /// Nil when looping.
        public var visiblePages: ClosedRange<Int>?
        /// A page that shows another slide than its own, kept from a caught go-to.
        public var substitute: (page: Int, slide: Int)?

        public static func == (lhs: Self, rhs: Self) -> Bool {
            lhs.startPosition == rhs.startPosition && lhs.startPage == rhs.startPage && lhs.position == rhs.position
                && lhs.hasMoved == rhs.hasMoved && lhs.kind == rhs.kind && lhs.fromSlide == rhs.fromSlide
                && lhs.caughtCause == rhs.caughtCause
                && lhs.limits == rhs.limits && lhs.visiblePages == rhs.visiblePages
                && lhs.substitute?.page == rhs.substitute?.page && lhs.substitute?.slide == rhs.substitute?.slide
        }

        public func hash(into hasher: inout Hasher) {
            hasher.combine(startPosition)
            hasher.combine(startPage)
            hasher.combine(position)
        }
    }

    /// One animated page change.
    public struct PageAnimation: Hashable, Sendable {
        public var fromPosition: Double
        public var toPage: Int
        public var start: MonotonicInstant
        public var style: TransitionStyle
        public var cause: PageChangeCause
        /// The slide that was current before the change, for the page-changed event.
        public var fromSlide: Int
        /// A go-to across several pages animates as if the target were adjacent:
        /// this page shows that slide for the duration of the animation. It is the
        /// target page, except after a drag that caught a go-to (then it may be the
        /// page beside the target, showing the slide the go-to came from).
        public var substitute: (page: Int, slide: Int)?
        /// The pages that exist; the others draw as background. Set after a drag
        /// on a non-looping playlist, whose rubber band may have pulled the picture
        /// past the end; nil when every page exists.
        public var visiblePages: ClosedRange<Int>? = nil

        public var end: MonotonicInstant { start + style.effectiveDuration }

        public func position(at now: MonotonicInstant) -> Double {
            let total = style.effectiveDuration.nanoseconds
            guard total > 0, now < end else { return Double(toPage) }
            let linear = Double((now - start).nanoseconds) / Double(total)
            return fromPosition + (Double(toPage) - fromPosition) * style.easing(max(0, linear))
        }

        public static func == (lhs: Self, rhs: Self) -> Bool {
            lhs.fromPosition == rhs.fromPosition && lhs.toPage == rhs.toPage && lhs.start == rhs.start
                && lhs.style == rhs.style && lhs.cause == rhs.cause && lhs.fromSlide == rhs.fromSlide
                && lhs.substitute?.page == rhs.substitute?.page && lhs.substitute?.slide == rhs.substitute?.slide
                && lhs.visiblePages == rhs.visiblePages
        }

        public func hash(into hasher: inout Hasher) {
            hasher.combine(fromPosition)
            hasher.combine(toPage)
            hasher.combine(start)
        }
    }

    public private(set) var settings: CarouselSettings
    public private(set) var phase: Phase = .resting
    public private(set) var scheduler: RotationScheduler
    /// The playlist indices that can be shown, in order; slides whose picture
    /// failed under the "skip" policy are left out, and so are hidden ones.
    public private(set) var pages: [Int]
    /// Slides left out because their picture failed ("skip"): for good, until
    /// the configuration changes (a new engine).
    private var unavailable: Set<Int> = []
    /// Slides left out for now (`hide`): attract-only slides while a visitor
    /// uses the kiosk.
    public private(set) var hidden: Set<Int> = []
    /// The integer position of the current page (or the target of the animation in flight).
    private var anchor = 0
    /// When the last page change finished; an automatic change never starts before it.
    private var restingSince: MonotonicInstant
    /// Events not yet collected by `takeEvents()`.
    private var outbox: [CarouselEvent] = []
    /// The slide whose own motion (animated picture, Ken Burns) runs, and since when.
    private var playback: SlidePlaybackClock

    public init(settings: CarouselSettings, start: MonotonicInstant) {
        self.settings = settings
        self.pages = Array(settings.slideDwells.indices)
        self.restingSince = start
        self.playback = SlidePlaybackClock(slide: settings.slideDwells.isEmpty ? nil : 0, startedAt: start)
        self.scheduler = RotationScheduler(
            policy: settings.rotation, firstDwell: max(settings.slideDwells.first ?? settings.rotation.interval, .milliseconds(1)),
            start: start)
        if pages.count < 2 { scheduler.clearDeadline() }
    }

    /// An engine for `settings` resting at `slide` from `start`, with that
    /// slide's dwell: a playlist that joins a group rotating in step starts
    /// where the group is, not at its first slide.
    public init(settings: CarouselSettings, start: MonotonicInstant, atSlide slide: Int) {
        precondition(settings.slideDwells.indices.contains(slide), "slide \(slide) of \(settings.slideCount)")
        self.init(settings: settings, start: start)
        anchor = slide
        playback.restart(slide, at: start)
        scheduler = RotationScheduler(policy: settings.rotation, firstDwell: max(settings.slideDwells[slide], .milliseconds(1)), start: start)
        if pages.count < 2 { scheduler.clearDeadline() }
    }

    /// An engine for `settings` that carries on from this one at `slide`: the
    /// picture on screen, found in a changed playlist. It rests there, keeps
    /// this engine's pause reasons, and makes its next automatic change when
    /// this engine's was due, so that a change which leaves the picture on
    /// screen neither restarts its dwell nor sends the carousel back to its
    /// first slide. Nothing is reported: the picture on screen did not change.
    public func continuing(with settings: CarouselSettings, atSlide slide: Int, at now: MonotonicInstant) -> CarouselEngine {
        precondition(settings.slideDwells.indices.contains(slide), "slide \(slide) of \(settings.slideCount)")
        var next = CarouselEngine(settings: settings, start: now)
        next.anchor = slide
        next.restingSince = restingSince
        // The same picture stays on screen, so its motion carries on (at its new index).
        next.playback = playback
        if playback.slide == currentSlide {
            next.playback.renumber(to: slide)
            // The new engine rests: a picture a finger held here moves on from where it stopped.
            next.playback.settled(on: slide, at: now)
        } else {
            next.playback.restart(slide, at: now)
        }
        // A scheduler whose dwell is this slide's, for re-arming after a pause.
        next.scheduler = RotationScheduler(policy: settings.rotation, firstDwell: max(settings.slideDwells[slide], .milliseconds(1)), start: now)
        for reason in scheduler.pauseReasons.sorted() { next.scheduler.pause(reason) }
        switch phase {
        case .awaitingNext:
            // This engine was past its deadline, waiting for a picture: the change is due now.
            next.scheduler.align(deadline: now)
        case .resting, .animating, .dragging:
            if let deadline = scheduler.deadline { next.scheduler.align(deadline: deadline) }
        }
        if next.pages.count < 2 { next.scheduler.clearDeadline() }
        return next
    }

    // MARK: Queries

    public var pageCount: Int { pages.count }

    /// The slide on screen, or the one a running animation is heading to, or,
    /// while a finger holds the picture, the one nearest where it took hold; nil
    /// when the playlist is empty.
    public var currentSlide: Int? {
        // A go-to across several pages heads to its substitute, not to the page's own slide.
        if let substitute = activeSubstitute, substitute.page == anchor { return substitute.slide }
        return slide(atPage: anchor)
    }

    public var isPlaying: Bool { scheduler.isPlaying }

    /// The continuous page position at `now`.
    public func position(at now: MonotonicInstant) -> Double {
        switch phase {
        case .animating(let animation): return animation.position(at: now)
        case .dragging(let drag): return drag.position
        case .resting, .awaitingNext: return Double(anchor)
        }
    }

    /// The slides the screen may need next: the current one and its neighbours
    /// `radius` pages either way, nearest first. The image pipeline keeps these decoded.
    /// While a finger drags, both neighbours are among them (whichever way it goes),
    /// and so are the pages under it.
    public func slidesToPrefetch(radius: Int = 1) -> [Int] {
        guard !pages.isEmpty else { return [] }
        var result: [Int] = []
        func add(_ slide: Int?) { if let slide, !result.contains(slide) { result.append(slide) } }
        if let substitute = activeSubstitute { add(substitute.slide) }
        add(slide(atPage: anchor))
        for distance in 1...max(radius, 1) {
            add(slide(atPage: anchor + distance))
            add(slide(atPage: anchor - distance))
        }
        if case .dragging(let drag) = phase {
            let base = Int(drag.position.rounded(.down))
            add(slideOnScreen(atPage: base))
            add(slideOnScreen(atPage: base + 1))
        }
        return result
    }

    public func nextWakeup() -> CarouselWakeup {
        switch phase {
        case .animating: return .everyFrame
        case .awaitingNext: return .idle
        // The finger drives the frames: the runtime draws on every move.
        case .dragging: return .idle
        case .resting: return scheduler.deadline.map { .at($0) } ?? .idle
        }
    }

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

    // MARK: Time

    /// Brings the state up to `now`: finishes animations whose time is over and
    /// starts the page changes whose deadlines have come, each at its exact
    /// instant, so the state at `now` does not depend on how often this is called.
    ///
    /// `isReady` says whether a slide's picture is decoded; an automatic change
    /// waits for it rather than show a missing picture.
    @discardableResult
    public mutating func advance(to now: MonotonicInstant, isReady: (Int) -> Bool = { _ in true }) -> [CarouselEvent] {
        while true {
            switch phase {
            case .animating(let animation):
                guard now >= animation.end else { return takeEvents() }
                finish(animation)
            case .awaitingNext(let scheduledAt, let stalled):
                guard let target = slide(atPage: anchor + 1) else {
                    phase = .resting
                    return takeEvents()
                }
                guard isReady(target) else {
                    phase = .awaitingNext(scheduledAt: scheduledAt, stalled: true)
                    return takeEvents()
                }
                // A change that had to wait for its picture starts when the picture is
                // there; one that did not starts exactly at its deadline.
                begin(toPage: anchor + 1, at: stalled ? now : scheduledAt, cause: .automatic)
            case .dragging:
                return takeEvents()
            case .resting:
                guard pages.count >= 2, let deadline = scheduler.deadline, deadline <= now else { return takeEvents() }
                scheduler.clearDeadline()
                phase = .awaitingNext(scheduledAt: max(deadline, restingSince), stalled: false)
            }
        }
    }

    /// The events since the last call, oldest first.
    public mutating func takeEvents() -> [CarouselEvent] {
        defer { outbox.removeAll(keepingCapacity: true) }
        return outbox
    }

    // MARK: Commands

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

    // MARK: Gestures

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
    private mutating func handleUnheld(_ gesture: GestureEvent, running animation: PageAnimation?, at now: MonotonicInstant) {
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
    private mutating func handleWhileDragging(_ drag: DragState, _ gesture: GestureEvent, at now: MonotonicInstant,
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
    private mutating func beginDrag(at now: MonotonicInstant) {
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

    private mutating func reportTap(at point: TouchPoint) {
        if let slide = currentSlide { outbox.append(.tapped(slide: slide, x: point.x, y: point.y)) }
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
    private mutating func leaveOut(_ slide: Int, at now: MonotonicInstant) {
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

    // MARK: Internals

    private func wrappedPage(_ page: Int) -> Int {
        let count = pages.count
        return count == 0 ? 0 : ((page % count) + count) % count
    }

    private func wrappedPosition(_ position: Double) -> Double {
        let count = Double(pages.count)
        let wrapped = position.truncatingRemainder(dividingBy: count)
        // A position a hair below zero would round to `count` itself.
        let result = wrapped < 0 ? wrapped + count : wrapped
        return result < count ? result : 0
    }

    private func slide(atPage page: Int) -> Int? {
        pages.isEmpty ? nil : pages[wrappedPage(page)]
    }

    /// The page showing another slide than its own, in the animation or drag under way.
    private var activeSubstitute: (page: Int, slide: Int)? {
        switch phase {
        case .animating(let animation): return animation.substitute
        case .dragging(let drag): return drag.substitute
        case .resting, .awaitingNext: return nil
        }
    }

    /// The pages that exist now; nil when all do.
    private var visiblePages: ClosedRange<Int>? {
        switch phase {
        case .animating(let animation): return animation.visiblePages
        case .dragging(let drag): return drag.visiblePages
        case .resting, .awaitingNext: return nil
        }
    }

    /// The slide drawn at `page`; only called while the playlist has pages.
    private func slideOnScreen(atPage page: Int) -> Int {
        if let substitute = activeSubstitute, substitute.page == page { return substitute.slide }
        return pages[wrappedPage(page)]
    }

    private func dwell(ofSlide slide: Int) -> Duration {
        let dwell = settings.slideDwells.indices.contains(slide) ? settings.slideDwells[slide] : settings.rotation.interval
        return max(dwell, .milliseconds(1))
    }

    private mutating func begin(toPage page: Int, at start: MonotonicInstant, cause: PageChangeCause) {
        startAnimation(from: Double(anchor), toPage: page, at: start, cause: cause, substitute: nil)
    }

    private mutating func startAnimation(
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

    /// Stops the picture under a finger: the phase becomes `.dragging`, holding
    /// the position it has at `now` (a running animation freezes). Returns false
    /// when there is nothing to hold (fewer than two pages).
    @discardableResult
    private mutating func takeHold(at now: MonotonicInstant) -> Bool {
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
    private func position(of drag: DragState, offset: Double, width: Int) -> Double {
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
    private mutating func settle(
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
    private mutating func abandon(_ drag: DragState, at now: MonotonicInstant) {
        var style = settings.transition
        style.duration = .zero
        startAnimation(from: Double(drag.startPage), toPage: drag.startPage, at: now,
                       cause: drag.caughtCause ?? .swipe, substitute: drag.substitute, style: style)
        if case .animating(let animation) = phase { finish(animation) }
        if drag.hasMoved { outbox.append(.dragEnded(slide: currentSlide ?? 0, paged: false)) }
    }

    private mutating func finish(_ animation: PageAnimation) {
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
