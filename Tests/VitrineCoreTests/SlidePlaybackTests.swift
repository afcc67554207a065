import Testing
@testable import VitrineCore

/// How far a slide's own motion (an animated picture, Ken Burns) has run in
/// each scene the engine gives, on virtual time.
@Suite("CarouselEngine: slide playback")
struct SlidePlaybackTests {
    private func playback(_ engine: EngineHarness, of slide: Int, at t: Int64) -> LayerPlayback? {
        engine.scene(at: ms(t)).layers.first { $0.content == .slide(slide) }?.playback
    }

    @Test func theRestingSlidePlaysFromWhenItCameToRest() {
        let engine = makeEngine(count: 3, start: ms(100))
        #expect(playback(engine, of: 0, at: 1100) == LayerPlayback(elapsed: .seconds(1)))
        // The automatic change at 5,100 ms: the outgoing slide keeps moving, the
        // incoming one waits at its start until it is at rest.
        engine.advance(to: ms(5300))
        #expect(playback(engine, of: 0, at: 5300) == LayerPlayback(elapsed: .milliseconds(5200)))
        #expect(playback(engine, of: 1, at: 5300) == .start)
        engine.advance(to: ms(5500))
        #expect(engine.currentSlide == 1)
        #expect(playback(engine, of: 1, at: 5500) == .start)
        #expect(playback(engine, of: 1, at: 6750) == LayerPlayback(elapsed: .milliseconds(1250)))
    }

    @Test func aFingerHoldsTheMotionAndASnapBackCarriesOnFromThere() {
        let engine = makeEngine(count: 3)
        let finger = Finger(engine)
        finger.down(500, at: 1000)
        finger.move(470, at: 1020)
        guard case .dragging = engine.phase else { Issue.record("not dragging"); return }
        // Held where the drag took hold, however long the finger stays.
        #expect(playback(engine, of: 0, at: 1500) == LayerPlayback(elapsed: .milliseconds(1020), isHeld: true))
        #expect(playback(engine, of: 1, at: 1500) == LayerPlayback(elapsed: .zero, isHeld: true))
        finger.move(460, at: 2000)
        finger.up(460, at: 2000)
        // A short slow drag snaps back: the slide carries on from 1,020 ms once at rest.
        engine.advance(to: ms(3000))
        #expect(engine.currentSlide == 0)
        guard case .resting = engine.phase else { Issue.record("not at rest"); return }
        let atRest = playback(engine, of: 0, at: 3000)
        #expect(atRest?.isHeld == false)
        // 3,000 ms less the 980 ms held and settling back: never the 3 s a still clock would give.
        #expect(atRest.map { $0.elapsed < .milliseconds(2100) && $0.elapsed > .milliseconds(1020) } == true)
        #expect(playback(engine, of: 0, at: 3500).map { $0.elapsed - atRest!.elapsed } == .milliseconds(500))
    }

    @Test func aSwipeStartsTheNewSlideFromItsBeginning() {
        let engine = makeEngine(count: 3)
        drag(engine, offset: -600, velocity: -2000, at: 2000)
        engine.advance(to: ms(4000))
        #expect(engine.currentSlide == 1)
        let settledAt = playback(engine, of: 1, at: 4000)!.elapsed
        #expect(settledAt > .zero && settledAt < .seconds(2))
        #expect(playback(engine, of: 1, at: 4000)?.isHeld == false)
    }

    @Test func aSlideThatReplacesAFailedOneStartsFromItsBeginning() {
        let engine = makeEngine(count: 3)
        engine.markUnavailable(0, at: ms(2500))
        #expect(engine.currentSlide == 1)
        #expect(playback(engine, of: 1, at: 3000) == LayerPlayback(elapsed: .milliseconds(500)))
    }

    @Test func aChangedPlaylistKeepsThePictureOnScreenMoving() {
        let old = makeEngine(count: 3)
        old.advance(to: ms(5400))
        let settings = CarouselSettings(
            slideDwells: [.seconds(5), .seconds(5), .seconds(5), .seconds(5)], loop: true,
            rotation: RotationPolicy(autoplay: true, interval: .seconds(5), resumeDelayAfterTouch: .seconds(3)),
            transition: TransitionStyle(kind: .slide, duration: .milliseconds(400), easing: .easeOut))
        // Slide 1 of the old playlist is slide 2 of the new one.
        let next = EngineHarness(old.engine.continuing(with: settings, atSlide: 2, at: ms(7000)))
        #expect(playback(next, of: 2, at: 7400) == LayerPlayback(elapsed: .seconds(2)))
    }
}
