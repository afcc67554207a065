import Testing
import VitrineCore
@testable import VitrineRuntime

/// The display loop's owners, each alone, on virtual time.
@Suite("Kiosk owners: latency, pacing, slide boundary, recent errors")
struct KioskOwnersTests {
    func at(_ milliseconds: Int64) -> MonotonicInstant { MonotonicInstant(nanoseconds: milliseconds * 1_000_000) }

    @Test func latencyPairsTheOldestMovementWithTheFlipThatShowsIt() {
        var tracker = InputLatencyTracker()
        tracker.pictureMoved(at: at(100))
        tracker.pictureMoved(at: at(104))  // same frame: the oldest counts
        #expect(tracker.scanoutCompleted(at: at(105)) == nil, "no frame carries the movement yet")
        tracker.framePresented()
        #expect(tracker.scanoutCompleted(at: at(116)) == .milliseconds(16))
        #expect(tracker.scanoutCompleted(at: at(116)) == nil, "the same flip is counted once")
        tracker.framePresented()  // a frame with no movement in it
        #expect(tracker.scanoutCompleted(at: at(133)) == nil)
        tracker.pictureMoved(at: at(140))
        tracker.framePresented()
        #expect(tracker.scanoutCompleted(at: at(150)) == .milliseconds(10))
        #expect(tracker.latencies.count == 2)
    }

    @Test func pacingKeepsFramesAlmostARefreshApartAndMeasuresTransitions() {
        var pacing = FramePacing(refreshInterval: .nanoseconds(16_666_667))
        #expect(pacing.minimumFrameGap == .nanoseconds(14_666_667))
        #expect(!pacing.isTooSoon(at(0)))
        #expect(pacing.nextFrame(after: at(5)) == at(5) + .nanoseconds(14_666_667))
        pacing.presented(at: at(0), animating: false)
        #expect(pacing.isTooSoon(at(10)))
        #expect(!pacing.isTooSoon(at(15)))
        pacing.presented(at: at(16), animating: true)   // first animation frame: no gap yet
        pacing.presented(at: at(33), animating: true)
        pacing.presented(at: at(50), animating: true)
        pacing.presented(at: at(1000), animating: false) // the rest after the transition is no gap
        #expect(pacing.transitionFrameGaps.count == 2)
        #expect(pacing.transitionFrameGaps.summary == "n=2 median=17ms p95=17ms max=17ms")
        // Ken Burns frames (a picture moving at rest) are counted apart; a
        // transition frame after them starts the transitions' count afresh.
        #expect(pacing.presented(at: at(1017), animating: false, kenBurns: true) == nil)
        #expect(pacing.presented(at: at(1034), animating: false, kenBurns: true) == FrameGap(motion: .kenBurns, duration: .milliseconds(17)))
        #expect(pacing.presented(at: at(1052), animating: false, kenBurns: true) == FrameGap(motion: .kenBurns, duration: .milliseconds(18)))
        #expect(pacing.presented(at: at(1069), animating: true, kenBurns: true) == nil)
        #expect(pacing.presented(at: at(1086), animating: true) == FrameGap(motion: .transition, duration: .milliseconds(17)))
        #expect(pacing.kenBurnsFrameGaps.count == 2 && pacing.transitionFrameGaps.count == 3)
        // The metrics keep them as cumulative buckets.
        let metrics = KioskMetrics()
        metrics.frameGap(FrameGap(motion: .kenBurns, duration: .milliseconds(17)))
        metrics.frameGap(FrameGap(motion: .kenBurns, duration: .milliseconds(60)))
        let kenBurns = metrics.snapshot.frameGaps[.kenBurns]
        #expect(kenBurns?.bucketCounts == [0, 0, 0, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2])
        #expect(kenBurns?.count == 2 && metrics.snapshot.frameGaps[.transition]?.count == 0)
        // A display at 1000 Hz (or one that says 0): never less than 1 ms.
        #expect(FramePacing(refreshInterval: .milliseconds(1)).minimumFrameGap == .milliseconds(1))
    }

    @Test func slideBoundaryIsRestingAtTheDeadlineNeverMidTransition() {
        let settings = CarouselSettings.uniform(count: 3, rotation: RotationPolicy(interval: .seconds(1)),
                                                transition: TransitionStyle(kind: .slide, duration: .milliseconds(400), easing: .linear))
        var engine = CarouselEngine(settings: settings, start: at(0))
        _ = engine.advance(to: at(500))
        #expect(!PendingConfiguration.isAtSlideBoundary(engine, at: at(500)), "resting before its deadline")
        #expect(PendingConfiguration.isAtSlideBoundary(engine, at: at(1000)), "resting with the deadline come")
        _ = engine.advance(to: at(1000))
        #expect(!PendingConfiguration.isAtSlideBoundary(engine, at: at(1100)), "animating")
        _ = engine.advance(to: at(1400))
        #expect(!PendingConfiguration.isAtSlideBoundary(engine, at: at(1400)))
        // Not rotating at all: every instant is a boundary.
        engine.pause(.remote, at: at(1500))
        #expect(PendingConfiguration.isAtSlideBoundary(engine, at: at(1500)))
    }

    @Test func recentErrorsKeepTheNewest() {
        var errors = RecentErrors(limit: 3)
        for index in 1...5 { errors.append("error \(index)") }
        #expect(errors.messages == ["error 3", "error 4", "error 5"])
        #expect(RecentErrors().limit == KioskStatus.errorLimit)
    }
}
