import Testing
@testable import VitrineCore

/// Attract mode on virtual time: the state machine alone, then driving a real
/// engine the way the display loop does.
@Suite("Attract mode")
struct AttractModeTests {
    @Test("a first touch engages; the idle time counts from the last lift; back home when it is over")
    func lifecycle() {
        var attract = AttractMode(settings: .init(idle: .seconds(30), home: 0))
        #expect(attract.state == .attracting)
        #expect(attract.deadline == nil)
        #expect(attract.fingerDown(at: ms(1_000)) == .engage)
        #expect(attract.state == .touched)
        #expect(attract.deadline == nil, "no countdown while a finger is down")
        #expect(attract.advance(to: ms(100_000)) == nil)
        attract.fingerUp(at: ms(2_000))
        #expect(attract.deadline == ms(32_000))
        // A second touch before the end: engaged still (no second engage), the countdown restarts at its lift.
        #expect(attract.advance(to: ms(31_999)) == nil)
        #expect(attract.fingerDown(at: ms(31_999)) == nil)
        attract.fingerUp(at: ms(33_000))
        #expect(attract.advance(to: ms(62_999)) == nil)
        #expect(attract.advance(to: ms(63_000)) == .returnHome)
        #expect(attract.state == .attracting)
        #expect(attract.advance(to: ms(200_000)) == nil, "returns once")
        #expect(attract.fingerDown(at: ms(200_000)) == .engage, "the next visitor engages again")
    }

    @Test("a lift without a press, or a second lift, changes nothing")
    func strayLifts() {
        var attract = AttractMode(settings: .init(idle: .seconds(5)))
        attract.fingerUp(at: ms(1_000))
        #expect(attract.state == .attracting)
        _ = attract.fingerDown(at: ms(2_000))
        attract.fingerUp(at: ms(3_000))
        attract.fingerUp(at: ms(4_000))
        #expect(attract.deadline == ms(8_000))
    }

    @Test("home is clamped to the playlist on screen")
    func homeClamps() {
        let attract = AttractMode(settings: .init(idle: .seconds(5), home: 4))
        #expect(attract.homeSlide(slideCount: 10) == 4)
        #expect(attract.homeSlide(slideCount: 3) == 2)
        #expect(attract.homeSlide(slideCount: 0) == 0)
    }

    /// The loop's part, as `KioskAttract` applies it: engage holds rotation, the
    /// return pages home with the transition and lets rotation run.
    static func apply(_ action: AttractMode.Action?, to engine: EngineHarness, home: Int, at now: MonotonicInstant) {
        switch action {
        case .engage?: engine.pause(.visitor, at: now)
        case .returnHome?:
            engine.perform(.goTo(home), at: now)
            engine.resume(.visitor, at: now)
        case nil: break
        }
    }

    @Test("on an engine: a swipe to slide 1 stays past its dwell; 30 s after the lift it pages home with the transition, then rotates")
    func onAnEngine() {
        // 5 s dwells, a 400 ms slide transition, a 3 s resume delay after touch.
        let engine = makeEngine(count: 4)
        var attract = AttractMode(settings: .init(idle: .seconds(30), home: 0))
        let finger = Finger(engine)
        func turn(_ t: Int64) -> [CarouselEvent] {
            Self.apply(attract.advance(to: ms(t)), to: engine, home: 0, at: ms(t))
            return engine.advance(to: ms(t))
        }
        _ = turn(1_000)
        for gesture in finger.down(800, at: 1_000) where gesture.isPress {
            Self.apply(attract.fingerDown(at: ms(1_000)), to: engine, home: 0, at: ms(1_000))
        }
        _ = finger.slowDrag(from: 800, to: 500, at: 1_000)
        finger.up(500, at: 2_600)
        attract.fingerUp(at: ms(2_600))
        _ = turn(3_100)
        #expect(engine.currentSlide == 1, "the swipe paged")
        #expect(engine.scheduler.pauseReasons == [.visitor])
        // Without attract mode rotation would move on 3 s + 5 s after the lift; held here.
        for t in stride(from: Int64(4_000), through: 32_000, by: 1_000) { #expect(turn(t).isEmpty, "at \(t) ms") }
        #expect(engine.currentSlide == 1)
        // 30 s after the lift: home, with the transition.
        let events = turn(32_600)
        #expect(events.isEmpty, "the page change is reported when the transition ends")
        #expect(Presentation(engine: engine.engine, power: ScreenPower(wakeOnTouch: nil), at: ms(32_800)).isAnimating)
        let arrived = turn(33_000)
        #expect(arrived == [.pageChanged(from: 1, to: 0, cause: .command)])
        #expect(engine.scheduler.pauseReasons.isEmpty)
        // Rotation runs again: a dwell counts from the start of the transition in
        // (32.6 s), as for every page change, so slide 1 comes in at 37.6 s.
        _ = turn(37_599)
        #expect(engine.currentSlide == 0)
        #expect(engine.nextWakeup() == .at(ms(37_600)))
        _ = turn(37_600)
        #expect(turn(38_000) == [.pageChanged(from: 0, to: 1, cause: .automatic)])
    }
}

extension GestureEvent {
    var isPress: Bool { if case .pressed = self { return true } else { return false } }
}
