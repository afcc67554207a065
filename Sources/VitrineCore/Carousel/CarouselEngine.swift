/// The carousel as a state machine on monotonic time.
///
/// Pages live on a continuous, unwrapped axis: the slide on screen is at an
/// integer position, and a page change animates the position to a neighbouring
/// integer. The picture at position `p` is the page `floor(p)` with its right
/// neighbour coming in by the fraction `p - floor(p)`; page `q` shows slide
/// `pages[q mod count]`. Wrap-around is therefore free in both directions, and a
/// later gesture can move the position with a finger and let it go anywhere.
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
        /// this page shows that slide for the duration of the animation.
        public var substitute: (page: Int, slide: Int)?

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
    /// failed under the "skip" policy are left out.
    public private(set) var pages: [Int]
    /// The integer position of the current page (or the target of the animation in flight).
    private var anchor = 0
    /// When the last page change finished; an automatic change never starts before it.
    private var restingSince: MonotonicInstant
    /// Events not yet collected by `takeEvents()`.
    private var outbox: [CarouselEvent] = []

    public init(settings: CarouselSettings, start: MonotonicInstant) {
        self.settings = settings
        self.pages = Array(settings.slideDwells.indices)
        self.restingSince = start
        self.scheduler = RotationScheduler(
            policy: settings.rotation, firstDwell: max(settings.slideDwells.first ?? settings.rotation.interval, .milliseconds(1)),
            start: start)
        if pages.count < 2 { scheduler.clearDeadline() }
    }

    // MARK: Queries

    public var pageCount: Int { pages.count }

    /// The slide on screen, or the one a running animation is heading to; nil
    /// when the playlist is empty.
    public var currentSlide: Int? {
        // A go-to across several pages heads to its substitute, not to the page's own slide.
        if case .animating(let animation) = phase, let substitute = animation.substitute, substitute.page == anchor {
            return substitute.slide
        }
        return slide(atPage: anchor)
    }

    public var isPlaying: Bool { scheduler.isPlaying }

    /// The continuous page position at `now`.
    public func position(at now: MonotonicInstant) -> Double {
        if case .animating(let animation) = phase { return animation.position(at: now) }
        return Double(anchor)
    }

    /// The slides the screen may need next: the current one and its neighbours
    /// `radius` pages either way, nearest first. The image pipeline keeps these decoded.
    public func slidesToPrefetch(radius: Int = 1) -> [Int] {
        guard !pages.isEmpty else { return [] }
        var result: [Int] = []
        func add(_ slide: Int?) { if let slide, !result.contains(slide) { result.append(slide) } }
        if case .animating(let animation) = phase, let substitute = animation.substitute { add(substitute.slide) }
        add(slide(atPage: anchor))
        for distance in 1...max(radius, 1) {
            add(slide(atPage: anchor + distance))
            add(slide(atPage: anchor - distance))
        }
        return result
    }

    public func nextWakeup() -> CarouselWakeup {
        switch phase {
        case .animating: return .everyFrame
        case .awaitingNext: return .idle
        case .resting: return scheduler.deadline.map { .at($0) } ?? .idle
        }
    }

    /// The picture at `now`: which slides, where, how opaque, and the indicator.
    public func scene(at now: MonotonicInstant) -> Scene {
        guard !pages.isEmpty else { return Scene(layers: [Scene.Layer(content: .placeholder)], indicator: nil) }
        let position = position(at: now)
        let base = Int(position.rounded(.down))
        let fraction = position - Double(base)
        var indicatorPosition = wrappedPosition(position)
        if case .animating(let animation) = phase, let substitute = animation.substitute,
           let targetPage = pages.firstIndex(of: substitute.slide) {
            // A go-to across several pages: the dots in between never light up; the
            // indicator moves from the old dot to the target's once it covers half the screen.
            let nearest = Int(position.rounded())
            indicatorPosition = Double(nearest == substitute.page ? targetPage : wrappedPage(nearest))
        }
        let indicator = pages.count >= 2
            ? IndicatorState(count: pages.count, position: indicatorPosition) : nil
        let lower = slideOnScreen(atPage: base, now: now)
        guard fraction > 1e-9 else {
            return Scene(layers: [Scene.Layer(content: .slide(lower))], indicator: indicator)
        }
        let upper = slideOnScreen(atPage: base + 1, now: now)
        let kind: TransitionKind
        if case .animating(let animation) = phase { kind = animation.style.kind } else { kind = settings.transition.kind }
        switch kind {
        case .slide, .cut:
            return Scene(layers: [
                Scene.Layer(content: .slide(lower), offset: -fraction),
                Scene.Layer(content: .slide(upper), offset: 1 - fraction),
            ], indicator: indicator)
        case .crossfade:
            return Scene(layers: [
                Scene.Layer(content: .slide(lower)),
                Scene.Layer(content: .slide(upper), opacity: fraction),
            ], indicator: indicator)
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
    @discardableResult
    public mutating func perform(_ command: CarouselCommand, at now: MonotonicInstant) -> Bool {
        guard pages.count >= 2 else { return false }
        // A command during an animation continues from where the picture is now,
        // towards a page counted from the animation's target. An animation that is
        // over is finished first, so that `from` is on the normalised axis.
        if case .animating(let animation) = phase, now >= animation.end { finish(animation) }
        let from = position(at: now)
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
        startAnimation(from: from, toPage: target, at: now, cause: .command, substitute: substitute)
        return true
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
        guard let page = pages.firstIndex(of: slide) else { return }
        if case .animating(let animation) = phase { finish(animation) }
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
        return wrapped < 0 ? wrapped + count : wrapped
    }

    private func slide(atPage page: Int) -> Int? {
        pages.isEmpty ? nil : pages[wrappedPage(page)]
    }

    /// The slide drawn at `page`; only called while the playlist has pages.
    private func slideOnScreen(atPage page: Int, now: MonotonicInstant) -> Int {
        if case .animating(let animation) = phase, let substitute = animation.substitute, substitute.page == page {
            return substitute.slide
        }
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
        substitute: (page: Int, slide: Int)?
    ) {
        // Interrupting an animation continues its page change: the report names the
        // slide that was on screen before it, not the one it never settled on.
        var fromSlide = currentSlide ?? 0
        if case .animating(let running) = phase { fromSlide = running.fromSlide }
        anchor = page
        let target = substitute?.slide ?? slide(atPage: page) ?? 0
        phase = .animating(PageAnimation(
            fromPosition: from, toPage: page, start: start, style: settings.transition, cause: cause,
            fromSlide: fromSlide, substitute: substitute))
        scheduler.slideBegan(at: start, dwell: dwell(ofSlide: target))
    }

    private mutating func finish(_ animation: PageAnimation) {
        let target = animation.substitute?.slide ?? slide(atPage: animation.toPage) ?? 0
        // Normalise the axis so positions stay small however long the kiosk runs.
        anchor = pages.firstIndex(of: target) ?? wrappedPage(animation.toPage)
        phase = .resting
        restingSince = animation.end
        if target != animation.fromSlide {
            outbox.append(.pageChanged(from: animation.fromSlide, to: target, cause: animation.cause))
        }
    }
}
