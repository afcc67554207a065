import Testing
@testable import VitrineCore

/// The display loop's per-turn value, on virtual time: what the screen shows
/// follows from the engine and the screen's power at the instant given, and
/// nothing else.
@Suite("Presentation: one value per turn")
struct PresentationTests {
    let power = ScreenPower(wakeOnTouch: .seconds(30))

    @Test("resting: slide 0 in place, still, the dots on page 0, the screen on")
    func resting() {
        let engine = makeEngine(count: 3)
        let presentation = Presentation(engine: engine.engine, power: power, at: ms(1_000))
        #expect(presentation.instant == ms(1_000))
        #expect(presentation.motion == .still)
        #expect(!presentation.isAnimating)
        #expect(presentation.screen == .on)
        #expect(presentation.scene == engine.scene(at: ms(1_000)))
        #expect(contents(presentation.scene) == [.slide(0)])
        #expect(presentation.scene.indicator?.count == 3)
    }

    @Test("a page change: its progress follows time, linear, whatever the easing draws")
    func transitionProgress() {
        let engine = makeEngine(count: 3, dwell: .seconds(5), kind: .slide, easing: .easeOut, duration: .milliseconds(400))
        engine.advance(to: ms(5_000))
        for (at, progress) in [(Int64(5_000), 0.0), (5_100, 0.25), (5_200, 0.5), (5_399, 0.9975)] {
            let presentation = Presentation(engine: engine.engine, power: power, at: ms(at))
            guard case .transition(let got) = presentation.motion else {
                Issue.record("no transition at \(at) ms: \(presentation.motion)")
                continue
            }
            #expect(abs(got - progress) < 1e-9, "at \(at) ms")
            #expect(presentation.isAnimating)
            // Once it has begun, both slides are drawn, the incoming one from the right.
            #expect(contents(presentation.scene) == (at == 5_000 ? [.slide(0)] : [.slide(0), .slide(1)]), "at \(at) ms")
        }
        engine.advance(to: ms(5_400))
        let after = Presentation(engine: engine.engine, power: power, at: ms(5_400))
        #expect(after.motion == .still)
        #expect(contents(after.scene) == [.slide(1)])
    }

    @Test("a cut has no duration: no transition is ever presented")
    func cut() {
        let engine = makeEngine(count: 2, kind: .cut)
        engine.advance(to: ms(5_000))
        #expect(Presentation(engine: engine.engine, power: power, at: ms(5_000)).motion == .still)
        #expect(engine.currentSlide == 1)
    }

    @Test("a finger on the picture: held, the drag's offset drawn")
    func held() {
        let engine = makeEngine(count: 3)
        let finger = Finger(engine)
        finger.down(800, at: 1_000)
        finger.move(700, at: 1_050)
        finger.move(600, at: 1_100)
        let presentation = Presentation(engine: engine.engine, power: power, at: ms(1_100))
        #expect(presentation.motion == .held)
        #expect(!presentation.isAnimating)
        #expect(presentation.scene.layers.first?.offset ?? 0 < 0, "slide 0 follows the finger left")
    }

    @Test("the screen's power is part of the value: off as asked, then woken by a touch until its wake ends")
    func screenPower() {
        let engine = makeEngine(count: 2)
        var power = self.power
        power.request(.off)
        #expect(Presentation(engine: engine.engine, power: power, at: ms(1_000)).screen == .off)
        #expect(!Presentation(engine: engine.engine, power: power, at: ms(1_000)).screen.isLit)
        _ = power.touched(at: ms(2_000))
        let woken = Presentation(engine: engine.engine, power: power, at: ms(2_000))
        #expect(woken.screen == .wokenByTouch(until: ms(32_000)))
        #expect(woken.screen.isLit)
        #expect(Presentation(engine: engine.engine, power: power, at: ms(32_000)).screen == .off)
    }

    @Test("the same engine and power at the same instant give equal values; another instant in a transition does not")
    func pure() {
        let engine = makeEngine(count: 3)
        engine.advance(to: ms(5_000))
        let a = Presentation(engine: engine.engine, power: power, at: ms(5_123))
        let b = Presentation(engine: engine.engine, power: power, at: ms(5_123))
        #expect(a == b)
        #expect(a != Presentation(engine: engine.engine, power: power, at: ms(5_124)))
    }
}
