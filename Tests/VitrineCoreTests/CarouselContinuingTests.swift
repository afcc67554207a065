import Testing
@testable import VitrineCore

/// `CarouselEngine.continuing`: a changed playlist that still has the picture
/// on screen carries on from it, on virtual time.
@Suite("CarouselEngine: continuing into a changed playlist")
struct CarouselContinuingTests {
    static func settings(_ dwells: [Int64], loop: Bool = true) -> CarouselSettings {
        CarouselSettings(slideDwells: dwells.map { .milliseconds($0) }, loop: loop,
                         rotation: RotationPolicy(interval: .seconds(5)), transition: TransitionStyle(kind: .slide, duration: .milliseconds(400), easing: .easeOut))
    }

    /// On slide 1 since 5,400 ms with its deadline at 10,000 (its transition
    /// began at the previous deadline, 5,000, and dwells count from there): the new playlist
    /// has that picture at index 2. The new engine rests on 2, reports nothing,
    /// keeps the deadline, and then pages to 3 there, not to the old playlist's 2.
    @Test func theDeadlineAndThePictureOnScreenAreKept() {
        let old = makeEngine(count: 3)
        old.advance(to: ms(5000))
        #expect(old.advance(to: ms(5400)) == [.pageChanged(from: 0, to: 1, cause: .automatic)])
        #expect(old.scheduler.deadline == ms(10000))
        let next = EngineHarness(old.engine.continuing(with: Self.settings([5000, 5000, 7000, 5000]), atSlide: 2, at: ms(7000)))
        #expect(next.currentSlide == 2)
        #expect(next.phase == .resting)
        #expect(next.scheduler.deadline == ms(10000))
        #expect(next.takeEvents().isEmpty)
        #expect(next.advance(to: ms(9999)).isEmpty)
        next.advance(to: ms(10000))
        #expect(next.advance(to: ms(10400)) == [.pageChanged(from: 2, to: 3, cause: .automatic)])
        // The slide after it gets its own dwell in the new playlist, from the deadline.
        #expect(next.scheduler.deadline == ms(15000))
    }

    /// A playlist joining a group in step starts at the group's slide with that
    /// slide's own dwell, and pages on from it in order.
    @Test func anEngineCanStartAtAGivenSlide() {
        let engine = EngineHarness(CarouselEngine(settings: Self.settings([5000, 5000, 7000, 5000]), start: ms(1000), atSlide: 2))
        #expect(engine.currentSlide == 2)
        #expect(engine.phase == .resting)
        #expect(engine.scheduler.deadline == ms(8000))
        #expect(engine.takeEvents().isEmpty)
        engine.advance(to: ms(8000))
        #expect(engine.advance(to: ms(8400)) == [.pageChanged(from: 2, to: 3, cause: .automatic)])
    }

    /// Paused by an operator and by the screen being off: still paused after, and
    /// resuming arms the new playlist's dwell for the slide (7 s), not slide 0's.
    @Test func pausesCarryOverAndResumeUsesTheSlidesNewDwell() {
        let old = makeEngine(count: 3)
        old.pause(.remote, at: ms(1000))
        old.pause(.screenOff, at: ms(1000))
        let next = EngineHarness(old.engine.continuing(with: Self.settings([5000, 7000]), atSlide: 1, at: ms(2000)))
        #expect(next.scheduler.pauseReasons == [.remote, .screenOff])
        #expect(next.scheduler.deadline == nil)
        next.resume(.remote, at: ms(3000))
        #expect(next.scheduler.deadline == nil)
        next.resume(.screenOff, at: ms(4000))
        #expect(next.scheduler.deadline == ms(11000))
    }

    /// Past its deadline and waiting for the next picture: the change is due at once.
    @Test func anEngineWaitingForAPictureHandsOverADueChange() {
        let old = makeEngine(count: 3)
        #expect(old.advance(to: ms(5000), isReady: { _ in false }).isEmpty)
        guard case .awaitingNext = old.phase else { Issue.record("not waiting: \(old.phase)"); return }
        let next = EngineHarness(old.engine.continuing(with: Self.settings([5000, 5000, 5000]), atSlide: 0, at: ms(6000)))
        #expect(next.scheduler.deadline == ms(6000))
        next.advance(to: ms(6000))
        #expect(next.advance(to: ms(6400)) == [.pageChanged(from: 0, to: 1, cause: .automatic)])
    }

    /// A one-slide playlist does not rotate, whatever the old deadline was.
    @Test func aSingleSlideHasNoDeadline() {
        let old = makeEngine(count: 3)
        let next = old.engine.continuing(with: Self.settings([5000]), atSlide: 0, at: ms(1000))
        #expect(next.scheduler.deadline == nil)
        #expect(next.currentSlide == 0)
    }
}
