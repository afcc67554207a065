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

    public internal(set) var settings: CarouselSettings
    public internal(set) var phase: Phase = .resting
    public internal(set) var scheduler: RotationScheduler
    /// The playlist indices that can be shown, in order; slides whose picture
    /// failed under the "skip" policy are left out, and so are hidden ones.
    public internal(set) var pages: [Int]
    // The stored state below is internal, not private, only because the
    // engine's extensions in this folder share it; nothing else in the module touches it.

    /// Slides left out because their picture failed ("skip"): for good, until
    /// the configuration changes (a new engine).
    var unavailable: Set<Int> = []
    /// Slides left out for now (`hide`): attract-only slides while a visitor
    /// uses the kiosk.
    public internal(set) var hidden: Set<Int> = []
    /// The integer position of the current page (or the target of the animation in flight).
    var anchor = 0
    /// When the last page change finished; an automatic change never starts before it.
    var restingSince: MonotonicInstant
    /// Events not yet collected by `takeEvents()`.
    var outbox: [CarouselEvent] = []
    /// The slide whose own motion (animated picture, Ken Burns) runs, and since when.
    var playback: SlidePlaybackClock

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
}
