import Testing
@testable import VitrineCore

/// A finger on an engine: touch events go through a `GestureRecognizer` into the
/// engine, each gesture at its own time.
final class Finger {
    let engine: EngineHarness
    let settings: GestureSettings
    var recognizer: GestureRecognizer
    let y: Double

    init(_ engine: EngineHarness, width: Int = 1000, y: Double = 300) {
        self.engine = engine
        self.settings = GestureSettings(outputWidth: width)
        self.recognizer = GestureRecognizer(settings: settings)
        self.y = y
    }

    @discardableResult
    func feed(_ event: TouchEvent) -> [GestureEvent] {
        let gestures = recognizer.handle(event)
        for gesture in gestures { engine.handle(gesture, settings: settings) }
        return gestures
    }

    @discardableResult func down(_ x: Double, at t: Int64) -> [GestureEvent] { feed(.down(pt(x, y), at: ms(t))) }
    @discardableResult func move(_ x: Double, at t: Int64) -> [GestureEvent] { feed(.move(pt(x, y), at: ms(t))) }
    @discardableResult func up(_ x: Double, at t: Int64) -> [GestureEvent] { feed(.up(pt(x, y), at: ms(t))) }
    @discardableResult func cancel(at t: Int64) -> [GestureEvent] { feed(.cancel(at: ms(t))) }

    /// A slow drag from `from` to `to` (10 px every 50 ms: 200 px/s), ending at
    /// `t` plus its duration; returns the instant of the last move.
    func slowDrag(from: Double, to: Double, at t: Int64) -> Int64 {
        down(from, at: t)
        var x = from, now = t
        while x != to {
            x += to > x ? min(10, to - x) : max(-10, to - x)
            now += 50
            move(x, at: now)
        }
        return now
    }
}

/// The gestures of one whole drag by `offset` pixels, released at `velocity`.
func drag(
    _ engine: EngineHarness, offset: Double, velocity: Double = 0, at t: Int64,
    settings: GestureSettings = GestureSettings(outputWidth: 1000)
) {
    engine.handle(.pressed(pt(500, 300), at: ms(t)), settings: settings)
    engine.handle(.dragBegan(at: ms(t + 10)), settings: settings)
    engine.handle(.dragMoved(offset: offset, at: ms(t + 10)), settings: settings)
    engine.handle(.dragEnded(offset: offset, velocity: velocity, at: ms(t + 20)), settings: settings)
    engine.handle(.released(at: ms(t + 20)), settings: settings)
}

@Suite("CarouselEngine: dragging")
struct CarouselDragTests {
    typealias Layer = Scene.Layer

    // MARK: Following the finger

    @Test func horizontalDragFollowsTheFingerOneToOne() {
        let engine = makeEngine(count: 3)
        let finger = Finger(engine)
        finger.down(500, at: 1000)
        #expect(engine.phase == .resting)
        #expect(!engine.isPlaying)
        finger.move(480, at: 1010)  // within the slop: nothing moves
        #expect(engine.position(at: ms(1010)) == 0)
        #expect(engine.takeEvents().isEmpty)
        finger.move(470, at: 1020)
        #expect(engine.takeEvents() == [.dragBegan(slide: 0)])
        guard case .dragging(let state) = engine.phase else { Issue.record("not dragging"); return }
        #expect(state.startPosition == 0)
        #expect(state.startPage == 0)
        #expect(state.hasMoved)

        var t: Int64 = 1020
        for offset: Double in [-30, -100, -250, -499.5, -730, -999, -30] {
            if offset != -30 || t > 1020 { t += 16; finger.move(500 + offset, at: t) }
            let x = offset / 1000
            #expect(engine.position(at: ms(t)) == -x, "offset \(offset)")
            #expect(engine.scene(at: ms(t)).withoutPlayback.layers == [
                Layer(content: .slide(0), offset: x), Layer(content: .slide(1), offset: 1 + x),
            ], "offset \(offset)")
            #expect(engine.scene(at: ms(t)).withoutPlayback.indicator == IndicatorState(count: 3, position: -x))
            #expect(engine.nextWakeup() == .idle)
        }
        // Right of where it went down: the last slide comes in from the left.
        for offset: Double in [40, 333, 900] {
            t += 16
            finger.move(500 + offset, at: t)
            let x = offset / 1000
            #expect(engine.position(at: ms(t)) == -x)
            #expect(engine.scene(at: ms(t)).withoutPlayback.layers == [
                Layer(content: .slide(2), offset: -1 + x), Layer(content: .slide(0), offset: x),
            ], "offset \(offset)")
        }
        // Back exactly where it went down: one slide, in place.
        t += 16
        finger.move(500, at: t)
        #expect(engine.scene(at: ms(t)).withoutPlayback.layers == [Layer(content: .slide(0))])
        // Time passing does not move a held picture.
        #expect(engine.advance(to: ms(60_000)).isEmpty)
        #expect(engine.position(at: ms(60_000)) == 0)
        #expect(engine.takeEvents().isEmpty)
    }

    @Test func dragFromALaterSlideFollowsTheFinger() {
        // 1024 px wide: offsets in whole pixels are exact fractions of the width.
        let engine = makeEngine(count: 4)
        #expect(engine.perform(.next, at: ms(0)))
        #expect(engine.advance(to: ms(400)).count == 1)
        let finger = Finger(engine, width: 1024)
        finger.down(600, at: 1000)
        finger.move(556, at: 1016)
        for (t, offset) in [(Int64(1016), -44.0), (1032, -300), (1048, 100)] {
            if t > 1016 { finger.move(600 + offset, at: t) }
            let x = offset / 1024
            #expect(engine.position(at: ms(t)) == 1 - x)
            let expected = offset < 0
                ? [Layer(content: .slide(1), offset: x), Layer(content: .slide(2), offset: 1 + x)]
                : [Layer(content: .slide(0), offset: -1 + x), Layer(content: .slide(1), offset: x)]
            #expect(engine.scene(at: ms(t)).withoutPlayback.layers == expected, "offset \(offset)")
        }
    }

    @Test func verticalDragNeverPages() {
        let engine = makeEngine(count: 3)
        let finger = Finger(engine)
        let before = engine.scene(at: ms(1000)).withoutPlayback
        #expect(finger.feed(.down(pt(500, 300), at: ms(1000))).count == 1)
        #expect(finger.feed(.move(pt(505, 360), at: ms(1020))).isEmpty)
        #expect(finger.feed(.move(pt(100, 700), at: ms(1040))).isEmpty)  // even far sideways afterwards
        #expect(engine.phase == .resting)
        #expect(engine.scene(at: ms(1040)).withoutPlayback == before)
        #expect(!engine.isPlaying)
        #expect(finger.feed(.up(pt(100, 700), at: ms(1060))) == [.released(at: ms(1060))])
        #expect(engine.takeEvents().isEmpty)
        #expect(engine.phase == .resting)
        #expect(engine.isPlaying)
        #expect(engine.scheduler.deadline == ms(1060 + 3000 + 5000))
        #expect(engine.advance(to: ms(9059)).isEmpty)
        #expect(engine.currentSlide == 0)
    }

    // MARK: Releasing

    @Test func slowShortDragSnapsBackFromWhereTheFingerLeft() {
        let engine = makeEngine(count: 3)
        let finger = Finger(engine)
        let last = finger.slowDrag(from: 500, to: 300, at: 1000)  // 200 px: under a quarter
        #expect(last == 2000)
        #expect(engine.position(at: ms(2000)) == 0.2)
        let held = engine.scene(at: ms(2000)).withoutPlayback
        #expect(engine.takeEvents() == [.dragBegan(slide: 0)])

        finger.up(300, at: 2000)
        #expect(engine.takeEvents() == [.dragEnded(slide: 0, paged: false)])
        guard case .animating(let animation) = engine.phase else { Issue.record("not settling"); return }
        #expect(animation.fromPosition == 0.2)
        #expect(animation.toPage == 0)
        #expect(animation.start == ms(2000))
        #expect(animation.cause == .swipe)
        #expect(animation.style == TransitionStyle(kind: .slide, duration: .milliseconds(400), easing: .easeOut))
        // The first animated frame is the last dragged one: no jump.
        #expect(engine.position(at: ms(2000)) == 0.2)
        #expect(engine.scene(at: ms(2000)).withoutPlayback == held)
        #expect(engine.nextWakeup() == .everyFrame)
        #expect(engine.position(at: ms(2200)) == 0.2 + (0 - 0.2) * Easing.easeOut(0.5))
        #expect(engine.advance(to: ms(2399)).isEmpty)
        #expect(engine.advance(to: ms(2400)).isEmpty, "a snap back is no page change")
        #expect(engine.phase == .resting)
        #expect(engine.currentSlide == 0)
        #expect(engine.position(at: ms(2400)) == 0)
    }

    @Test func longDragPastAQuarterPages() {
        let engine = makeEngine(count: 3)
        let finger = Finger(engine)
        let last = finger.slowDrag(from: 700, to: 400, at: 1000)
        finger.up(400, at: last)
        #expect(engine.takeEvents() == [
            .dragBegan(slide: 0), .dragEnded(slide: 1, paged: true), .swiped(from: 0, direction: .next),
        ])
        guard case .animating(let animation) = engine.phase else { Issue.record("not paging"); return }
        #expect(animation.fromPosition == 0.3)
        #expect(animation.toPage == 1)
        #expect(animation.cause == .swipe)
        #expect(engine.currentSlide == 1)
        #expect(engine.advance(to: ms(last + 399)).isEmpty)
        #expect(engine.advance(to: ms(last + 400)) == [.pageChanged(from: 0, to: 1, cause: .swipe)])

        // Exactly a quarter is not past it.
        drag(engine, offset: -250, at: 10_000)
        #expect(engine.takeEvents() == [.dragBegan(slide: 1), .dragEnded(slide: 1, paged: false)])
        drag(engine, offset: -250.5, at: 11_000)
        #expect(engine.takeEvents() == [
            .dragBegan(slide: 1), .dragEnded(slide: 2, paged: true), .swiped(from: 1, direction: .next),
        ])
    }

    @Test func fastShortFlickPages() {
        let engine = makeEngine(count: 3)
        let finger = Finger(engine)
        // 2 px/ms to the left for 32 ms: 64 px, far less than a quarter.
        finger.down(500, at: 1000)
        finger.move(484, at: 1008)
        finger.move(468, at: 1016)
        finger.move(452, at: 1024)
        finger.move(436, at: 1032)
        let gestures = finger.up(436, at: 1032)
        #expect(releaseVelocity(gestures).map { $0 < -1000 } == true, "\(gestures)")
        #expect(engine.takeEvents() == [
            .dragBegan(slide: 0), .dragEnded(slide: 1, paged: true), .swiped(from: 0, direction: .next),
        ])
        #expect(engine.position(at: ms(1032)) == 0.064)
        #expect(engine.advance(to: ms(1432)) == [.pageChanged(from: 0, to: 1, cause: .swipe)])

        // The same distance slowly snaps back.
        let last = Finger(engine).slowDrag(from: 500, to: 436, at: 2000)
        engine.handle(.dragEnded(offset: -64, velocity: -200, at: ms(last)))
        #expect(engine.takeEvents() == [.dragBegan(slide: 1), .dragEnded(slide: 1, paged: false)])
        // A flick to the right pages back.
        drag(engine, offset: 30, velocity: 1500, at: 5000)
        #expect(engine.takeEvents() == [
            .dragBegan(slide: 1), .dragEnded(slide: 0, paged: true), .swiped(from: 1, direction: .previous),
        ])
    }

    @Test func swipeDirectionsAndWrapAroundWithLoop() {
        let engine = makeEngine(count: 3)
        // Right: the previous slide, wrapping from the first to the last.
        drag(engine, offset: 400, at: 1000)
        #expect(engine.takeEvents() == [
            .dragBegan(slide: 0), .dragEnded(slide: 2, paged: true), .swiped(from: 0, direction: .previous),
        ])
        #expect(engine.advance(to: ms(1420)) == [.pageChanged(from: 0, to: 2, cause: .swipe)])
        // Left: the next slide, wrapping from the last to the first; the picture
        // shows the last and the first side by side on the way.
        engine.handle(.pressed(pt(500, 300), at: ms(2000)))
        engine.handle(.dragBegan(at: ms(2010)))
        engine.handle(.dragMoved(offset: -400, at: ms(2010)))
        #expect(contents(engine.scene(at: ms(2010)).withoutPlayback) == [.slide(2), .slide(0)])
        engine.handle(.dragEnded(offset: -400, velocity: 0, at: ms(2020)))
        engine.handle(.released(at: ms(2020)))
        #expect(engine.takeEvents() == [
            .dragBegan(slide: 2), .dragEnded(slide: 0, paged: true), .swiped(from: 2, direction: .next),
        ])
        #expect(engine.advance(to: ms(2420)) == [.pageChanged(from: 2, to: 0, cause: .swipe)])
        drag(engine, offset: -400, at: 3000)
        #expect(engine.advance(to: ms(3420)).contains(.pageChanged(from: 0, to: 1, cause: .swipe)))
        drag(engine, offset: 400, at: 4000)
        #expect(engine.advance(to: ms(4420)).contains(.pageChanged(from: 1, to: 0, cause: .swipe)))
    }

    @Test func oneSwipeNeverPagesMoreThanOnce() {
        let engine = makeEngine(count: 5)
        // A drag of three widths with a fast flick still goes one page: the picture
        // stops a page away, and the release is on that page at once.
        engine.handle(.pressed(pt(500, 300), at: ms(1000)))
        engine.handle(.dragBegan(at: ms(1010)))
        engine.handle(.dragMoved(offset: -3000, at: ms(1010)))
        #expect(engine.position(at: ms(1010)) == 1)
        engine.handle(.dragMoved(offset: 3000, at: ms(1015)))
        #expect(engine.position(at: ms(1015)) == -1)
        engine.handle(.dragMoved(offset: -3000, at: ms(1020)))
        engine.handle(.dragEnded(offset: -3000, velocity: -9000, at: ms(1020)))
        #expect(engine.takeEvents() == [
            .dragBegan(slide: 0), .dragEnded(slide: 1, paged: true), .swiped(from: 0, direction: .next),
            .pageChanged(from: 0, to: 1, cause: .swipe),
        ])
        #expect(engine.phase == .resting)
        #expect(engine.currentSlide == 1)
    }

    @Test func flickBackAgainstTheDragSnapsBack() {
        let engine = makeEngine(count: 3)
        drag(engine, offset: -600, velocity: 1500, at: 1000)
        #expect(engine.takeEvents() == [.dragBegan(slide: 0), .dragEnded(slide: 0, paged: false)])
        #expect(engine.advance(to: ms(1420)).isEmpty)
        #expect(engine.currentSlide == 0)
    }

    // MARK: Without loop

    @Test func withoutLoopNoPagingPastTheEndsAndARubberBand() {
        let engine = makeEngine(count: 3, loop: false)
        engine.handle(.pressed(pt(500, 300), at: ms(1000)))
        engine.handle(.dragBegan(at: ms(1010)))
        // Inside the playlist the finger moves the picture freely.
        engine.handle(.dragMoved(offset: -100, at: ms(1010)))
        #expect(engine.position(at: ms(1010)) == 0.1)
        // Before the first slide: resistance, and only the first slide, over the background.
        engine.handle(.dragMoved(offset: 600, at: ms(1020)))
        let pulled = -(600.0 / 1000 * CarouselEngine.rubberBand)
        #expect(engine.position(at: ms(1020)) == pulled)
        #expect(engine.scene(at: ms(1020)).withoutPlayback == Scene(
            layers: [Layer(content: .slide(0), offset: -pulled)], indicator: IndicatorState(count: 3, position: 0)))
        engine.handle(.dragEnded(offset: 600, velocity: 3000, at: ms(1030)))
        engine.handle(.released(at: ms(1030)))
        #expect(engine.takeEvents() == [.dragBegan(slide: 0), .dragEnded(slide: 0, paged: false)])
        guard case .animating(let animation) = engine.phase else { Issue.record("not settling"); return }
        #expect(animation.fromPosition == pulled)
        #expect(animation.visiblePages == 0...2)
        // Snapping back, the last slide never shows at the left.
        for t: Int64 in [1030, 1100, 1200, 1300, 1429] {
            #expect(contents(engine.scene(at: ms(t)).withoutPlayback) == [.slide(0)], "at \(t) ms")
            #expect(engine.scene(at: ms(t)).withoutPlayback.indicator == IndicatorState(count: 3, position: 0))
        }
        #expect(engine.advance(to: ms(1430)).isEmpty)
        #expect(engine.phase == .resting)

        // At the last slide: the same at the other end.
        #expect(engine.perform(.goTo(2), at: ms(2000)))
        #expect(engine.advance(to: ms(2400)).count == 1)
        engine.handle(.pressed(pt(500, 300), at: ms(3000)))
        engine.handle(.dragBegan(at: ms(3010)))
        engine.handle(.dragMoved(offset: -600, at: ms(3010)))
        let beyond = 2 + ((2 - -600.0 / 1000) - 2) * CarouselEngine.rubberBand
        #expect(engine.position(at: ms(3010)) == beyond)
        #expect(engine.scene(at: ms(3010)).withoutPlayback.layers == [Layer(content: .slide(2), offset: 2 - beyond)])
        engine.handle(.dragEnded(offset: -600, velocity: -3000, at: ms(3020)))
        engine.handle(.released(at: ms(3020)))
        #expect(engine.takeEvents() == [.dragBegan(slide: 2), .dragEnded(slide: 2, paged: false)])
        #expect(engine.advance(to: ms(3420)).isEmpty)
        #expect(engine.currentSlide == 2)
        // Backwards from the last slide is fine.
        drag(engine, offset: 400, at: 4000)
        #expect(engine.advance(to: ms(4420)).contains(.pageChanged(from: 2, to: 1, cause: .swipe)))
    }

    // MARK: Catching an animation

    @Test func aFingerCatchesARunningAnimation() {
        let engine = makeEngine(count: 3)
        #expect(engine.perform(.next, at: ms(0)))
        let moving = engine.scene(at: ms(200)).withoutPlayback
        #expect(engine.position(at: ms(200)) == 0.875)
        engine.handle(.pressed(pt(10, 10), at: ms(200)))
        guard case .dragging(let held) = engine.phase else { Issue.record("not caught"); return }
        #expect(!held.hasMoved)
        #expect(held.startPage == 1)
        #expect(engine.currentSlide == 1)  // the nearest page
        // Frozen where it was.
        for t: Int64 in [200, 300, 400, 5000] {
            #expect(engine.position(at: ms(t)) == 0.875)
            #expect(engine.scene(at: ms(t)).withoutPlayback == moving)
        }
        #expect(engine.nextWakeup() == .idle)
        #expect(engine.advance(to: ms(5000)).isEmpty, "held: the page change is not over")
        #expect(engine.scheduler.deadline == nil)
        // Let go: it settles on the nearest page, from where it was.
        engine.handle(.released(at: ms(6000)))
        guard case .animating(let settle) = engine.phase else { Issue.record("not settling"); return }
        #expect(settle.fromPosition == 0.875)
        #expect(settle.toPage == 1)
        #expect(settle.cause == .command)
        #expect(engine.scene(at: ms(6000)).withoutPlayback == moving)
        #expect(engine.advance(to: ms(6400)) == [.pageChanged(from: 0, to: 1, cause: .command)])
        #expect(engine.scheduler.deadline == ms(6000 + 3000 + 5000))
    }

    @Test func aCaughtAnimationNearItsStartGoesBack() {
        let engine = makeEngine(count: 3, easing: .linear)
        #expect(engine.perform(.next, at: ms(0)))
        engine.handle(.pressed(pt(100, 200), at: ms(100)))
        #expect(engine.position(at: ms(300)) == 0.25)
        #expect(engine.currentSlide == 0)
        engine.handle(.tap(pt(100, 200), at: ms(150)))
        engine.handle(.released(at: ms(150)))
        #expect(engine.takeEvents() == [.tapped(slide: 0, x: 100, y: 200)])
        #expect(engine.position(at: ms(250)) == 0.25 + (0 - 0.25) * 0.25)
        #expect(engine.advance(to: ms(550)).isEmpty)
        #expect(engine.currentSlide == 0)
    }

    @Test func aCaughtAnimationCanBeSwiped() {
        let engine = makeEngine(count: 4)
        #expect(engine.perform(.next, at: ms(0)))
        engine.handle(.pressed(pt(500, 300), at: ms(200)))  // at 0.875
        engine.handle(.dragBegan(at: ms(210)))
        engine.handle(.dragMoved(offset: -300, at: ms(210)))
        #expect(engine.position(at: ms(210)) == 0.875 - -300.0 / 1000)
        engine.handle(.dragEnded(offset: -300, velocity: 0, at: ms(220)))
        engine.handle(.released(at: ms(220)))
        // The neighbour of the page it took hold of; reported from the slide last settled on.
        #expect(engine.takeEvents() == [
            .dragBegan(slide: 1), .dragEnded(slide: 2, paged: true), .swiped(from: 1, direction: .next),
        ])
        #expect(engine.advance(to: ms(620)) == [.pageChanged(from: 0, to: 2, cause: .swipe)])
    }

    @Test func anAnimationThatIsOverIsFinishedNotCaught() {
        let engine = makeEngine(count: 3)
        #expect(engine.perform(.next, at: ms(0)))
        engine.handle(.pressed(pt(500, 300), at: ms(400)))
        #expect(engine.phase == .resting)
        #expect(engine.takeEvents() == [.pageChanged(from: 0, to: 1, cause: .command)])
    }

    @Test func catchingAGoToKeepsThePictureAndPagesFromItsTarget() {
        let engine = makeEngine(count: 5, easing: .linear)
        #expect(engine.perform(.goTo(3), at: ms(0)))
        let moving = engine.scene(at: ms(300)).withoutPlayback
        #expect(moving.layers == [Layer(content: .slide(0), offset: -0.75), Layer(content: .slide(3), offset: 0.25)])
        engine.handle(.pressed(pt(500, 300), at: ms(300)))
        #expect(engine.scene(at: ms(300)).withoutPlayback == moving)
        #expect(engine.currentSlide == 3)
        // Dragged on to the left, slide 3's own neighbour comes in.
        engine.handle(.dragBegan(at: ms(310)))
        engine.handle(.dragMoved(offset: -500, at: ms(310)))
        #expect(contents(engine.scene(at: ms(310)).withoutPlayback) == [.slide(3), .slide(4)])
        engine.handle(.dragEnded(offset: -500, velocity: 0, at: ms(320)))
        engine.handle(.released(at: ms(320)))
        #expect(engine.takeEvents() == [
            .dragBegan(slide: 3), .dragEnded(slide: 4, paged: true), .swiped(from: 3, direction: .next),
        ])
        #expect(engine.advance(to: ms(720)) == [.pageChanged(from: 0, to: 4, cause: .swipe)])

        // Swiped back the other way, it lands on the slide the go-to came from.
        #expect(engine.perform(.goTo(1), at: ms(1000)))  // 4 -> 1, backwards
        engine.handle(.pressed(pt(500, 300), at: ms(1300)))
        #expect(engine.currentSlide == 1)
        engine.handle(.dragBegan(at: ms(1310)))
        engine.handle(.dragMoved(offset: -400, at: ms(1310)))
        #expect(contents(engine.scene(at: ms(1310)).withoutPlayback) == [.slide(1), .slide(4)])
        engine.handle(.dragEnded(offset: -400, velocity: 0, at: ms(1320)))
        engine.handle(.released(at: ms(1320)))
        #expect(engine.takeEvents() == [
            .dragBegan(slide: 1), .dragEnded(slide: 4, paged: true), .swiped(from: 1, direction: .next),
        ])
        #expect(engine.advance(to: ms(1720)).isEmpty, "back on the slide it started from")
        #expect(engine.currentSlide == 4)

        // Held still and let go: the go-to completes.
        #expect(engine.perform(.goTo(2), at: ms(2000)))
        engine.handle(.pressed(pt(500, 300), at: ms(2300)))
        engine.handle(.released(at: ms(2400)))
        #expect(engine.advance(to: ms(2800)) == [.pageChanged(from: 4, to: 2, cause: .command)])
        #expect(engine.currentSlide == 2)
        #expect(engine.scene(at: ms(2800)).withoutPlayback.layers == [Layer(content: .slide(2))])
    }

    @Test func aCaughtCrossfadeStaysAFadeUntilTheFingerMoves() {
        let engine = makeEngine(count: 3, kind: .crossfade)
        #expect(engine.perform(.next, at: ms(0)))
        let fading = engine.scene(at: ms(200)).withoutPlayback
        engine.handle(.pressed(pt(500, 300), at: ms(200)))
        #expect(engine.scene(at: ms(500)).withoutPlayback == fading)
        // Moving, the fade completes to the nearest slide, which then follows the finger.
        engine.handle(.dragBegan(at: ms(510)))
        engine.handle(.dragMoved(offset: 100, at: ms(510)))
        #expect(engine.scene(at: ms(510)).withoutPlayback.layers == [
            Layer(content: .slide(0), offset: -1 + 0.1), Layer(content: .slide(1), offset: 1 - 0.9),
        ])
        engine.handle(.dragEnded(offset: 100, velocity: 0, at: ms(520)))
        engine.handle(.released(at: ms(520)))
        #expect(engine.takeEvents() == [.dragBegan(slide: 1), .dragEnded(slide: 1, paged: false)])
        #expect(engine.advance(to: ms(920)) == [.pageChanged(from: 0, to: 1, cause: .command)])

        // Held still and let go, it fades on.
        #expect(engine.perform(.next, at: ms(1000)))
        engine.handle(.pressed(pt(500, 300), at: ms(1200)))
        let held = engine.scene(at: ms(1300)).withoutPlayback
        #expect(held.layers == [Layer(content: .slide(1)), Layer(content: .slide(2), opacity: 0.875)])
        engine.handle(.released(at: ms(1300)))
        guard case .animating(let settle) = engine.phase else { Issue.record("not settling"); return }
        #expect(settle.style.kind == .crossfade)
        #expect(engine.scene(at: ms(1300)).withoutPlayback == held)
        #expect(engine.advance(to: ms(1700)) == [.pageChanged(from: 1, to: 2, cause: .command)])
    }

    // MARK: Rotation

    @Test func rotationPausesWhilePressedAndResumesAfterReleaseDelayAndDwell() {
        let engine = makeEngine(count: 3, dwells: [.seconds(5), .seconds(7), .seconds(2)])
        let finger = Finger(engine)
        finger.down(700, at: 2000)
        #expect(!engine.isPlaying)
        #expect(engine.scheduler.pauseReasons == [.touch])
        #expect(engine.scheduler.deadline == nil)
        #expect(engine.advance(to: ms(6000)).isEmpty, "the old deadline at 5 s passes while pressed")
        finger.move(600, at: 6100)
        finger.move(400, at: 6400)
        finger.up(400, at: 6500)
        #expect(engine.takeEvents() == [
            .dragBegan(slide: 0), .dragEnded(slide: 1, paged: true), .swiped(from: 0, direction: .next),
        ])
        #expect(engine.isPlaying)
        // Released at 6.5 s: the resume delay, then the new slide's full dwell.
        #expect(engine.scheduler.deadline == ms(6500 + 3000 + 7000))
        #expect(engine.advance(to: ms(6900)) == [.pageChanged(from: 0, to: 1, cause: .swipe)])
        #expect(engine.nextWakeup() == .at(ms(16_500)))
        #expect(engine.advance(to: ms(16_499)).isEmpty)
        #expect(engine.phase == .resting)
        #expect(engine.advance(to: ms(16_500)).isEmpty)
        guard case .animating(let automatic) = engine.phase else { Issue.record("rotation did not resume"); return }
        #expect(automatic.start == ms(16_500))
        #expect(automatic.cause == .automatic)
        #expect(engine.advance(to: ms(16_900)) == [.pageChanged(from: 1, to: 2, cause: .automatic)])
    }

    @Test func tapReportsTheSlideAndPointAndRestartsTheDwellFromRelease() {
        let engine = makeEngine(count: 3)
        let finger = Finger(engine, y: 222)
        finger.down(123.5, at: 1000)
        #expect(engine.scheduler.deadline == nil)
        finger.up(125, at: 1100)
        #expect(engine.takeEvents() == [.tapped(slide: 0, x: 123.5, y: 222)])
        #expect(engine.phase == .resting)
        #expect(engine.currentSlide == 0)
        #expect(engine.scheduler.deadline == ms(1100 + 3000 + 5000))
        // A long press: no tap, same resume policy.
        finger.down(500, at: 2000)
        finger.up(500, at: 4000)
        #expect(engine.takeEvents().isEmpty)
        #expect(engine.scheduler.deadline == ms(4000 + 3000 + 5000))
    }

    @Test func remotePauseOutlastsTheTouch() {
        let engine = makeEngine(count: 3)
        engine.pause(.remote, at: ms(500))
        drag(engine, offset: -400, at: 1000)
        #expect(engine.advance(to: ms(1420)).contains(.pageChanged(from: 0, to: 1, cause: .swipe)))
        #expect(!engine.isPlaying)
        #expect(engine.scheduler.deadline == nil)
    }

    // MARK: Cancel

    @Test func cancelDuringADragSnapsBackAndNeverTaps() {
        let engine = makeEngine(count: 3)
        let finger = Finger(engine)
        finger.down(500, at: 1000)
        finger.move(450, at: 1050)
        finger.move(150, at: 1100)  // far past a quarter
        #expect(engine.position(at: ms(1100)) == 0.35)
        #expect(finger.cancel(at: 1150) == [.dragCancelled(at: ms(1150)), .released(at: ms(1150))])
        #expect(engine.takeEvents() == [.dragBegan(slide: 0), .dragEnded(slide: 0, paged: false)])
        guard case .animating(let animation) = engine.phase else { Issue.record("not snapping back"); return }
        #expect(animation.fromPosition == 0.35)
        #expect(animation.toPage == 0)
        #expect(engine.advance(to: ms(1550)).isEmpty)
        #expect(engine.currentSlide == 0)
        #expect(engine.scheduler.deadline == ms(1150 + 3000 + 5000))
        // A cancelled short press is no tap.
        finger.down(500, at: 2000)
        finger.cancel(at: 2050)
        #expect(engine.takeEvents().isEmpty)
    }

    // MARK: Degenerate playlists

    @Test func withOneSlideDragsDoNothingButTapsReport() {
        let engine = makeEngine(count: 1)
        let finger = Finger(engine)
        finger.down(500, at: 1000)
        finger.move(100, at: 1100)
        #expect(engine.phase == .resting)
        #expect(engine.position(at: ms(1100)) == 0)
        #expect(engine.scene(at: ms(1100)).withoutPlayback == Scene(layers: [Layer(content: .slide(0))], indicator: nil))
        finger.up(100, at: 1150)
        #expect(engine.takeEvents().isEmpty)
        #expect(engine.advance(to: ms(2000)).isEmpty)
        #expect(engine.phase == .resting)
        finger.down(40, at: 3000)
        finger.up(40, at: 3050)
        #expect(engine.takeEvents() == [.tapped(slide: 0, x: 40, y: 300)])
        #expect(engine.scheduler.deadline == nil)
        #expect(engine.nextWakeup() == .idle)

        let empty = makeEngine(count: 0)
        let other = Finger(empty)
        other.down(500, at: 0)
        other.move(100, at: 50)
        other.up(100, at: 60)
        other.down(500, at: 100)
        other.up(500, at: 150)
        #expect(empty.takeEvents().isEmpty)
        #expect(empty.scene(at: ms(150)).withoutPlayback == Scene(layers: [Layer(content: .placeholder)], indicator: nil))
    }

    // MARK: Rendering, wake-ups, prefetch

    @Test func dragsSlideEvenWithACrossfadeOrCutTransition() {
        for kind in [TransitionKind.crossfade, .cut] {
            let engine = makeEngine(count: 3, kind: kind, easing: .linear, duration: .milliseconds(300))
            engine.handle(.pressed(pt(500, 300), at: ms(1000)))
            engine.handle(.dragBegan(at: ms(1010)))
            engine.handle(.dragMoved(offset: -100, at: ms(1010)))
            #expect(engine.scene(at: ms(1010)).withoutPlayback.layers == [
                Layer(content: .slide(0), offset: -0.1), Layer(content: .slide(1), offset: 0.9),
            ], "\(kind)")
            engine.handle(.dragEnded(offset: -300, velocity: 0, at: ms(1020)))
            guard case .animating(let animation) = engine.phase else { Issue.record("\(kind): not paging"); continue }
            #expect(animation.style == TransitionStyle(kind: .slide, duration: .milliseconds(300), easing: .linear))
            let halfway = 0.3 + (1 - 0.3) * 0.5
            #expect(engine.scene(at: ms(1170)).withoutPlayback.layers == [
                Layer(content: .slide(0), offset: 0 - halfway), Layer(content: .slide(1), offset: 1 - halfway),
            ], "\(kind)")
            #expect(engine.advance(to: ms(1320)).last == .pageChanged(from: 0, to: 1, cause: .swipe), "\(kind)")
        }
    }

    @Test func prefetchHasBothNeighboursAndThePagesUnderTheFinger() {
        let engine = makeEngine(count: 5, easing: .linear)
        engine.handle(.pressed(pt(500, 300), at: ms(1000)))
        engine.handle(.dragBegan(at: ms(1010)))
        engine.handle(.dragMoved(offset: 200, at: ms(1010)))
        #expect(engine.slidesToPrefetch() == [0, 1, 4])
        engine.handle(.dragEnded(offset: 200, velocity: 0, at: ms(1020)))
        engine.handle(.released(at: ms(1020)))
        #expect(engine.takeEvents() == [.dragBegan(slide: 0), .dragEnded(slide: 0, paged: false)])
        #expect(engine.advance(to: ms(1420)).isEmpty)

        // Caught at 0.6 (page 1 nearest), then dragged a whole width right: pages -1 and 0 show.
        #expect(engine.perform(.next, at: ms(2000)))
        engine.handle(.pressed(pt(500, 300), at: ms(2240)))
        engine.handle(.dragBegan(at: ms(2250)))
        engine.handle(.dragMoved(offset: 1000, at: ms(2250)))
        #expect(contents(engine.scene(at: ms(2250)).withoutPlayback) == [.slide(4), .slide(0)])
        #expect(engine.slidesToPrefetch() == [1, 2, 0, 4])
        #expect(engine.nextWakeup() == .idle)
    }

    @Test func zeroOffsetReleaseIsAtRestAtOnce() {
        let engine = makeEngine(count: 3)
        drag(engine, offset: 0, at: 1000)
        #expect(engine.phase == .resting)
        #expect(engine.takeEvents() == [.dragBegan(slide: 0), .dragEnded(slide: 0, paged: false)])
        #expect(engine.scheduler.deadline == ms(1020 + 3000 + 5000))
    }

    // MARK: Interference

    @Test func aCommandTakesThePictureFromTheFinger() {
        let engine = makeEngine(count: 3)
        engine.handle(.pressed(pt(500, 300), at: ms(1000)))
        engine.handle(.dragBegan(at: ms(1010)))
        engine.handle(.dragMoved(offset: -200, at: ms(1010)))
        #expect(engine.perform(.next, at: ms(1020)))
        guard case .animating(let animation) = engine.phase else { Issue.record("command did not run"); return }
        #expect(animation.fromPosition == 0.2)
        #expect(animation.cause == .command)
        #expect(engine.takeEvents() == [.dragBegan(slide: 0), .dragEnded(slide: 1, paged: false)])
        // The finger's later moves and release do nothing to the picture.
        engine.handle(.dragMoved(offset: 300, at: ms(1100)))
        #expect(engine.position(at: ms(1100)) == animation.position(at: ms(1100)))
        engine.handle(.dragEnded(offset: 300, velocity: 0, at: ms(1200)))
        engine.handle(.released(at: ms(1200)))
        #expect(engine.takeEvents().isEmpty)
        #expect(engine.advance(to: ms(1420)) == [.pageChanged(from: 0, to: 1, cause: .command)])
        #expect(engine.scheduler.deadline == ms(1200 + 3000 + 5000))
    }

    @Test func aTapActionWhileStillPressedNavigates() {
        // The runtime may perform a tap action before it handles `released`.
        let engine = makeEngine(count: 3)
        #expect(engine.perform(.next, at: ms(0)))
        engine.handle(.pressed(pt(900, 300), at: ms(200)))
        engine.handle(.tap(pt(900, 300), at: ms(250)))
        #expect(engine.takeEvents() == [.tapped(slide: 1, x: 900, y: 300)])
        #expect(engine.perform(.next, at: ms(250)))
        engine.handle(.released(at: ms(250)))
        #expect(engine.advance(to: ms(650)) == [.pageChanged(from: 0, to: 2, cause: .command)])
    }

    @Test func removingASlideDuringADragEndsIt() {
        let engine = makeEngine(count: 4)
        engine.handle(.pressed(pt(500, 300), at: ms(1000)))
        engine.handle(.dragBegan(at: ms(1010)))
        engine.handle(.dragMoved(offset: -200, at: ms(1010)))
        engine.markUnavailable(2, at: ms(1020))
        #expect(engine.phase == .resting)
        #expect(engine.currentSlide == 0)
        #expect(engine.takeEvents() == [.dragBegan(slide: 0), .dragEnded(slide: 0, paged: false)])
        engine.handle(.dragMoved(offset: -300, at: ms(1030)))
        #expect(engine.position(at: ms(1030)) == 0)
    }
}

@Suite("CarouselEngine invariants with touches")
struct CarouselDragFuzzTests {
    /// Random touches, commands (go-tos included), pauses and wake-ups; the
    /// picture never jumps at a touch, and the reported page changes chain.
    /// Seeds 108 to 1482 once found bugs: catching a stand-in page, void pages
    /// after re-basing, an indicator at `count` for a position a hair below zero.
    @Test(arguments: [
        (UInt64(21), TransitionKind.slide, true), (22, .slide, false), (23, .crossfade, true), (24, .cut, false),
        (25, .slide, true), (26, .crossfade, false), (108, .slide, false), (116, .slide, false),
        (148, .slide, false), (1298, .cut, true), (1482, .cut, true),
    ])
    func invariantsHoldUnderRandomTouches(seed: UInt64, kind: TransitionKind, loop: Bool) {
        var rng = SplitMix64(seed: seed)
        let count = Int(rng.next() % 5) + 2
        let engine = makeEngine(count: count, loop: loop, kind: kind)
        let settings = GestureSettings(outputWidth: 800)
        var recognizer = GestureRecognizer(settings: settings)
        var now: Int64 = 0
        var shown = 0
        var finger: TouchPoint?
        var remote = false
        var issues = 0

        func check(_ condition: Bool, _ message: @autoclosure () -> String) {
            guard !condition, issues < 5 else { return }
            issues += 1
            Issue.record("seed \(seed), t=\(now) ms: \(message())")
        }
        func collect(_ events: [CarouselEvent]) {
            for case .pageChanged(let from, let to, _) in events {
                check(from == shown, "event from \(from), but \(shown) was shown")
                check(from != to, "event from \(from) to itself")
                shown = to
            }
        }
        func same(_ a: Scene, _ b: Scene) -> Bool {
            a.indicator?.count == b.indicator?.count && a.layers.count == b.layers.count
                && zip(a.layers, b.layers).allSatisfy {
                    $0.content == $1.content && abs($0.offset - $1.offset) < 1e-9 && abs($0.opacity - $1.opacity) < 1e-9
                }
                && abs((a.indicator?.position ?? 0) - (b.indicator?.position ?? 0)) < 1e-9
        }
        func touch(_ event: TouchEvent) {
            for gesture in recognizer.handle(event) {
                let before = engine.scene(at: ms(now)).withoutPlayback
                engine.handle(gesture, settings: settings)
                let after = engine.scene(at: ms(now)).withoutPlayback
                switch gesture {
                case .dragMoved, .tap: break
                case .dragBegan where kind == .crossfade: break  // a held crossfade completes
                default: check(same(before, after), "\(gesture) made the picture jump: \(before) -> \(after)")
                }
            }
            collect(engine.takeEvents())
        }

        for _ in 0..<3000 {
            let roll = rng.next() % 20
            if roll < 8 {
                now += Int64(rng.next() % 300) + 1
                collect(engine.advance(to: ms(now)))
            } else if let point = finger {
                now += Int64(rng.next() % 40)
                switch roll {
                case 8...15:
                    let moved = TouchPoint(x: point.x + Double(Int64(rng.next() % 161) - 80),
                                           y: point.y + Double(Int64(rng.next() % 41) - 20))
                    finger = moved
                    touch(.move(moved, at: ms(now)))
                case 16...18:
                    finger = nil
                    touch(.up(point, at: ms(now)))
                default:
                    if rng.next() % 2 == 0 {
                        finger = nil
                        touch(.cancel(at: ms(now)))
                    } else {
                        // A command (an API call, or a tap action) while the finger is down.
                        engine.perform(rng.next() % 2 == 0 ? .next : .previous, at: ms(now))
                    }
                }
            } else {
                switch roll {
                case 8...14:
                    let point = TouchPoint(x: Double(rng.next() % 800), y: Double(rng.next() % 480))
                    finger = point
                    touch(.down(point, at: ms(now)))
                case 15...17:
                    let command: CarouselCommand = switch rng.next() % 3 {
                    case 0: .next
                    case 1: .previous
                    default: .goTo(Int(rng.next() % UInt64(count)))
                    }
                    engine.perform(command, at: ms(now))
                default:
                    if remote { engine.resume(.remote, at: ms(now)) } else { engine.pause(.remote, at: ms(now)) }
                    remote.toggle()
                }
            }
            collect(engine.takeEvents())
            if engine.phase == .resting {
                check(engine.currentSlide == shown, "resting on \(engine.currentSlide!) but \(shown) was reported")
            }
            check(engine.isPlaying == (finger == nil && !remote),
                  "playing \(engine.isPlaying), finger \(finger != nil), remote \(remote)")
            if finger != nil { check(engine.scheduler.deadline == nil, "a deadline while touched") }
            let scene = engine.scene(at: ms(now)).withoutPlayback
            check((1...2).contains(scene.layers.count), "scene with \(scene.layers.count) layers")
            for layer in scene.layers {
                if case .slide(let slide) = layer.content { check((0..<count).contains(slide), "slide \(slide)") }
                else { check(false, "placeholder with \(count) slides") }
                check(abs(layer.offset) < 1.5, "layer offset \(layer.offset)")
            }
            if let indicator = scene.indicator {
                check(indicator.position >= 0 && indicator.position < Double(count),
                      "indicator at \(indicator.position)")
            }
        }
    }
}
