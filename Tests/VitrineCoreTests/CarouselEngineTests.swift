import Testing
@testable import VitrineCore

@Suite("CarouselEngine")
struct CarouselEngineTests {
    typealias Layer = Scene.Layer

    // MARK: Start-up

    @Test func initialStateShowsFirstSlideAndArmsFirstDeadline() {
        let engine = makeEngine(count: 3)
        #expect(engine.pageCount == 3)
        #expect(engine.currentSlide == 0)
        #expect(engine.phase == .resting)
        #expect(engine.isPlaying)
        #expect(engine.scheduler.deadline == ms(5000))
        #expect(engine.nextWakeup() == .at(ms(5000)))
        #expect(engine.position(at: ms(1234)) == 0)
        #expect(engine.scene(at: ms(1000)).withoutPlayback == Scene(
            layers: [Layer(content: .slide(0))], indicator: IndicatorState(count: 3, position: 0)))
    }

    @Test func startOffsetIsHonoured() {
        let engine = makeEngine(count: 3, start: ms(1_000_000))
        #expect(engine.scheduler.deadline == ms(1_005_000))
    }

    // MARK: Wrap-around and looping

    @Test func automaticRotationCyclesAndWrapsFromLastToFirst() {
        let engine = makeEngine(count: 3)
        #expect(engine.advance(to: ms(4999)).isEmpty)
        #expect(engine.phase == .resting)
        #expect(engine.advance(to: ms(5000)).isEmpty)
        guard case .animating(let first) = engine.phase else { Issue.record("not animating at deadline"); return }
        #expect(first.start == ms(5000))
        #expect(first.cause == .automatic)
        #expect(engine.advance(to: ms(5399)).isEmpty)
        #expect(engine.advance(to: ms(5400)) == [.pageChanged(from: 0, to: 1, cause: .automatic)])
        #expect(engine.advance(to: ms(10400)) == [.pageChanged(from: 1, to: 2, cause: .automatic)])
        #expect(engine.advance(to: ms(15400)) == [.pageChanged(from: 2, to: 0, cause: .automatic)])
        #expect(engine.currentSlide == 0)
        #expect(engine.scheduler.deadline == ms(20000))
        #expect(engine.scene(at: ms(15400)).withoutPlayback == Scene(
            layers: [Layer(content: .slide(0))], indicator: IndicatorState(count: 3, position: 0)))
    }

    @Test func nextFromLastGoesToFirstWithLoop() {
        let engine = makeEngine(count: 3)
        #expect(engine.perform(.previous, at: ms(0)))
        #expect(engine.advance(to: ms(400)) == [.pageChanged(from: 0, to: 2, cause: .command)])
        #expect(engine.currentSlide == 2)

        #expect(engine.perform(.next, at: ms(1000)))
        // Half-way in time; ease-out gives 0.875 of the way.
        #expect(engine.scene(at: ms(1200)).withoutPlayback == Scene(
            layers: [Layer(content: .slide(2), offset: -0.875), Layer(content: .slide(0), offset: 0.125)],
            indicator: IndicatorState(count: 3, position: 2.875)))
        #expect(engine.advance(to: ms(1399)).isEmpty)
        #expect(engine.advance(to: ms(1400)) == [.pageChanged(from: 2, to: 0, cause: .command)])
        #expect(engine.currentSlide == 0)
        #expect(engine.scene(at: ms(1400)).withoutPlayback == Scene(
            layers: [Layer(content: .slide(0))], indicator: IndicatorState(count: 3, position: 0)))
    }

    @Test func previousFromFirstGoesToLastWithLoop() {
        let engine = makeEngine(count: 3)
        #expect(engine.perform(.previous, at: ms(0)))
        // The current slide moves right while the last slide comes in from the left.
        #expect(engine.position(at: ms(200)) == -0.875)
        #expect(engine.scene(at: ms(200)).withoutPlayback == Scene(
            layers: [Layer(content: .slide(2), offset: -0.125), Layer(content: .slide(0), offset: 0.875)],
            indicator: IndicatorState(count: 3, position: 2.125)))
        #expect(engine.advance(to: ms(400)) == [.pageChanged(from: 0, to: 2, cause: .command)])
        #expect(engine.currentSlide == 2)
        #expect(engine.scene(at: ms(500)).withoutPlayback == Scene(
            layers: [Layer(content: .slide(2))], indicator: IndicatorState(count: 3, position: 2)))
    }

    @Test func withoutLoopCommandsStopAtTheEndsButRotationWraps() {
        let engine = makeEngine(count: 3, loop: false)
        // At the first slide: previous is refused and changes nothing.
        #expect(!engine.perform(.previous, at: ms(0)))
        #expect(engine.phase == .resting)
        #expect(engine.nextWakeup() == .at(ms(5000)))
        #expect(engine.takeEvents().isEmpty)

        #expect(engine.perform(.next, at: ms(0)))
        #expect(engine.advance(to: ms(400)) == [.pageChanged(from: 0, to: 1, cause: .command)])
        #expect(engine.perform(.next, at: ms(1000)))
        #expect(engine.advance(to: ms(1400)) == [.pageChanged(from: 1, to: 2, cause: .command)])
        #expect(engine.scheduler.deadline == ms(6000))

        // At the last slide: next is refused and changes nothing.
        #expect(!engine.perform(.next, at: ms(2000)))
        #expect(engine.phase == .resting)
        #expect(engine.currentSlide == 2)
        #expect(engine.scheduler.deadline == ms(6000))
        #expect(engine.advance(to: ms(5999)).isEmpty)

        // Auto-rotation still goes on from the last slide to the first.
        #expect(engine.advance(to: ms(6400)) == [.pageChanged(from: 2, to: 0, cause: .automatic)])
        #expect(engine.currentSlide == 0)
        #expect(!engine.perform(.previous, at: ms(7000)))
        #expect(engine.perform(.next, at: ms(7000)))
        #expect(engine.advance(to: ms(7400)) == [.pageChanged(from: 0, to: 1, cause: .command)])
        // Previous from the middle and from the last slide is fine.
        #expect(engine.perform(.previous, at: ms(8000)))
        #expect(engine.advance(to: ms(8400)) == [.pageChanged(from: 1, to: 0, cause: .command)])
    }

    @Test func withoutLoopCommandsDuringAnAutomaticWrapCountFromItsTarget() {
        // Auto-rotation wraps from the last slide to the first; a command during that
        // animation counts from the first slide (the animation's target).
        let engine = makeEngine(count: 3, loop: false)
        #expect(engine.perform(.next, at: ms(0)))
        #expect(engine.perform(.next, at: ms(500)))
        #expect(engine.advance(to: ms(900)).count == 2)
        #expect(engine.currentSlide == 2)
        #expect(engine.advance(to: ms(5700)).isEmpty)  // the automatic wrap began at 5500
        #expect(engine.currentSlide == 0)
        #expect(!engine.perform(.previous, at: ms(5700)), "previous from the first slide without loop")
        #expect(engine.perform(.next, at: ms(5700)), "next from the first slide is allowed")
        #expect(engine.advance(to: ms(6100)) == [.pageChanged(from: 2, to: 1, cause: .command)])
        #expect(engine.currentSlide == 1)
    }

    // MARK: Pause and resume

    @Test func touchPauseHoldsRotationAndResumesAfterDelayPlusFullDwell() {
        let engine = makeEngine(count: 3)
        engine.pause(.touch, at: ms(1000))
        #expect(!engine.isPlaying)
        #expect(engine.scheduler.pauseReasons == [.touch])
        #expect(engine.scheduler.deadline == nil)
        #expect(engine.nextWakeup() == .idle)
        #expect(engine.advance(to: ms(60000)).isEmpty)
        #expect(engine.currentSlide == 0)

        engine.resume(.touch, at: ms(60000))  // the finger lifted at 60 s
        #expect(engine.isPlaying)
        #expect(engine.scheduler.deadline == ms(60000 + 3000 + 5000))
        #expect(engine.nextWakeup() == .at(ms(68000)))
        #expect(engine.advance(to: ms(67999)).isEmpty)
        #expect(engine.phase == .resting)
        #expect(engine.advance(to: ms(68000)).isEmpty)
        guard case .animating(let animation) = engine.phase else { Issue.record("no change at 68 s"); return }
        #expect(animation.start == ms(68000))
        #expect(engine.advance(to: ms(68400)) == [.pageChanged(from: 0, to: 1, cause: .automatic)])
    }

    @Test func remoteResumeSchedulesFullDwellFromResume() {
        let engine = makeEngine(count: 3)
        engine.pause(.remote, at: ms(1000))
        #expect(engine.advance(to: ms(20000)).isEmpty)
        engine.resume(.remote, at: ms(20000))
        #expect(engine.scheduler.deadline == ms(25000))
        #expect(engine.advance(to: ms(24999)).isEmpty)
        #expect(engine.advance(to: ms(25400)) == [.pageChanged(from: 0, to: 1, cause: .automatic)])
    }

    @Test func twoReasonsReleasingOneStaysPaused() {
        let engine = makeEngine(count: 3)
        engine.pause(.touch, at: ms(1000))
        engine.pause(.remote, at: ms(2000))
        engine.resume(.touch, at: ms(3000))
        #expect(!engine.isPlaying)
        #expect(engine.scheduler.pauseReasons == [.remote])
        #expect(engine.scheduler.deadline == nil)
        #expect(engine.nextWakeup() == .idle)
        #expect(engine.advance(to: ms(30000)).isEmpty)
        engine.resume(.remote, at: ms(30000))
        #expect(engine.isPlaying)
        #expect(engine.scheduler.deadline == ms(35000))

        // The other order: remote lifted first, then the finger.
        engine.pause(.remote, at: ms(31000))
        engine.pause(.touch, at: ms(32000))
        engine.resume(.remote, at: ms(33000))
        #expect(!engine.isPlaying)
        #expect(engine.scheduler.deadline == nil)
        engine.resume(.touch, at: ms(40000))
        #expect(engine.scheduler.deadline == ms(48000))
    }

    @Test func resumingAReasonNotHeldChangesNothing() {
        let engine = makeEngine(count: 3)
        engine.resume(.remote, at: ms(2000))
        engine.resume(.touch, at: ms(2000))
        #expect(engine.scheduler.deadline == ms(5000))
        #expect(engine.isPlaying)
    }

    @Test func pausingTwiceForTheSameReasonNeedsOneResume() {
        let engine = makeEngine(count: 3)
        engine.pause(.remote, at: ms(1000))
        engine.pause(.remote, at: ms(2000))
        engine.resume(.remote, at: ms(3000))
        #expect(engine.isPlaying)
        #expect(engine.scheduler.deadline == ms(8000))
    }

    @Test func commandsWhilePausedNavigateButDoNotArmRotation() {
        let engine = makeEngine(count: 3)
        engine.pause(.remote, at: ms(500))
        #expect(engine.perform(.next, at: ms(1000)))
        #expect(engine.advance(to: ms(1400)) == [.pageChanged(from: 0, to: 1, cause: .command)])
        #expect(engine.scheduler.deadline == nil)
        #expect(engine.nextWakeup() == .idle)
        #expect(engine.advance(to: ms(100000)).isEmpty)
        engine.resume(.remote, at: ms(100000))
        #expect(engine.scheduler.deadline == ms(105000))
    }

    @Test func manualChangeRestartsTheNewSlidesFullDwell() {
        let engine = makeEngine(count: 3, dwells: [.seconds(5), .seconds(7), .seconds(2)])
        #expect(engine.perform(.next, at: ms(2000)))
        #expect(engine.scheduler.deadline == ms(9000))
        #expect(engine.advance(to: ms(8999)) == [.pageChanged(from: 0, to: 1, cause: .command)])
        #expect(engine.advance(to: ms(9400)) == [.pageChanged(from: 1, to: 2, cause: .automatic)])
        #expect(engine.scheduler.deadline == ms(11000))
    }

    @Test func pauseWhileAwaitingPictureThenResume() {
        let engine = makeEngine(count: 3)
        #expect(engine.advance(to: ms(5000), isReady: { $0 != 1 }).isEmpty)
        #expect(engine.phase == .awaitingNext(scheduledAt: ms(5000), stalled: true))
        engine.pause(.remote, at: ms(6000))
        #expect(engine.phase == .resting)
        #expect(engine.advance(to: ms(7000)).isEmpty)
        #expect(engine.currentSlide == 0)
        engine.resume(.remote, at: ms(8000))
        #expect(engine.scheduler.deadline == ms(13000))
        #expect(engine.advance(to: ms(13400)) == [.pageChanged(from: 0, to: 1, cause: .automatic)])
    }

    // MARK: Per-slide durations and drift

    @Test func perSlideDwellsChangePagesAtCumulativeSums() {
        let dwells: [Int64] = [2000, 3500, 1250]
        let engine = makeEngine(count: 3, dwells: dwells.map { .milliseconds($0) }, kind: .cut)
        var changes: [(at: Int64, event: CarouselEvent)] = []
        for now in Int64(1)...20000 {
            for event in engine.advance(to: ms(now)) { changes.append((now, event)) }
        }
        var expected: [(at: Int64, event: CarouselEvent)] = []
        var sum: Int64 = 0
        var slide = 0
        while true {
            sum += dwells[slide]
            guard sum <= 20000 else { break }
            expected.append((sum, .pageChanged(from: slide, to: (slide + 1) % 3, cause: .automatic)))
            slide = (slide + 1) % 3
        }
        #expect(expected.map(\.at) == [2000, 5500, 6750, 8750, 12250, 13500, 15500, 19000])
        #expect(changes.map(\.at) == expected.map(\.at))
        #expect(changes.map(\.event) == expected.map(\.event))
        #expect(engine.currentSlide == slide)
        #expect(engine.scheduler.deadline == ms(sum))  // 20250
        #expect(engine.nextWakeup() == .at(ms(20250)))
    }

    @Test func perSlideDwellsWithAnimatedTransitionsStartAtCumulativeSums() {
        let dwells: [Int64] = [2000, 3500, 1250]
        let engine = makeEngine(count: 3, dwells: dwells.map { .milliseconds($0) }, kind: .slide)
        var starts: [MonotonicInstant] = []
        var eventTimes: [Int64] = []
        for now in Int64(1)...20000 {
            if !engine.advance(to: ms(now)).isEmpty { eventTimes.append(now) }
            if case .animating(let animation) = engine.phase, starts.last != animation.start {
                starts.append(animation.start)
                // Each new slide's deadline is its start plus its own dwell.
                let target = engine.currentSlide!
                #expect(engine.scheduler.deadline == animation.start + .milliseconds(dwells[target]))
            }
        }
        let expected: [Int64] = [2000, 5500, 6750, 8750, 12250, 13500, 15500, 19000]
        #expect(starts == expected.map(ms))
        #expect(eventTimes == expected.map { $0 + 400 })
    }

    /// Dwells that are not round numbers, so any accumulated error would show.
    static let oddDwells: [Int64] = [
        1_234_567_891, 987_654_321, 3_000_000_007, 500_000_001, 2_718_281_828, 1_414_213_562, 4_669_201_609,
    ]

    @Test func noDriftOverTenThousandRotationsWithJitteredWakeups() {
        let dwells = Self.oddDwells
        let count = dwells.count
        let engine = makeEngine(count: count, dwells: dwells.map { .nanoseconds($0) }, kind: .slide)
        // S[k]: when the k-th page change begins (the sum of the first k dwells).
        var starts: [Int64] = [0]
        for k in 0...10_001 { starts.append(starts[k] + dwells[k % count]) }
        let target = starts[10_000]

        var rng = SplitMix64(seed: 0x5EED_1234)
        var now: Int64 = 0
        var events: [CarouselEvent] = []
        var calls = 0
        while now < target - 1 {
            // Wake-ups late by anything from a nanosecond to several dwells.
            let step: Int64 = switch rng.next() % 4 {
            case 0: Int64(rng.next() % 1_000) + 1
            case 1: Int64(rng.next() % 16_666_667) + 1
            default: Int64(rng.next() % 5_000_000_000) + 1
            }
            now = min(now + step, target - 1)
            events += engine.advance(to: ns(now))
            calls += 1
        }
        #expect(calls > 5_000)
        #expect(events.count == 9_999)
        let expectedEvents = (1...9_999).map {
            CarouselEvent.pageChanged(from: ($0 - 1) % count, to: $0 % count, cause: .automatic)
        }
        #expect(events == expectedEvents)
        #expect(engine.phase == .resting)
        #expect(engine.currentSlide == 9_999 % count)
        #expect(engine.scheduler.deadline == ns(target))
        #expect(engine.nextWakeup() == .at(ns(target)))

        // The 10,000th change starts exactly at the sum of the dwells.
        #expect(engine.advance(to: ns(target)).isEmpty)
        guard case .animating(let animation) = engine.phase else { Issue.record("10,000th change did not start"); return }
        #expect(animation.start == ns(target))
        #expect(engine.currentSlide == 10_000 % count)
        #expect(engine.scheduler.deadline == ns(starts[10_001]))
        #expect(engine.advance(to: ns(target) + .milliseconds(400))
            == [.pageChanged(from: 9_999 % count, to: 10_000 % count, cause: .automatic)])
    }

    @Test func noDriftWhenWakeupsOvershootSeveralChanges() {
        let dwells = Self.oddDwells
        let count = dwells.count
        let engine = makeEngine(count: count, dwells: dwells.map { .nanoseconds($0) }, kind: .cut)
        var rng = SplitMix64(seed: 42)
        var now: Int64 = 0
        var events: [CarouselEvent] = []
        while events.count < 10_000 {
            now += Int64(rng.next() % 12_000_000_000) + 1  // up to 12 s: often several changes at once
            events += engine.advance(to: ns(now))
        }
        // With cuts, a change completes at its start, so every change whose start
        // is at or before `now` has been reported, and the next is armed exactly.
        var sum: Int64 = 0
        var completed = 0
        while sum + dwells[completed % count] <= now {
            sum += dwells[completed % count]
            completed += 1
        }
        #expect(events.count == completed)
        for (index, event) in events.enumerated() {
            #expect(event == .pageChanged(from: index % count, to: (index + 1) % count, cause: .automatic))
            if event != .pageChanged(from: index % count, to: (index + 1) % count, cause: .automatic) { break }
        }
        #expect(engine.currentSlide == completed % count)
        #expect(engine.scheduler.deadline == ns(sum + dwells[completed % count]))
    }

    @Test func stateAtTimeDoesNotDependOnHowOftenAdvanceIsCalled() {
        let dwells: [Duration] = [.milliseconds(1500), .milliseconds(2250), .milliseconds(900), .milliseconds(3100)]
        let end = ms(35_850)  // 4 cycles of 7.75 s, then mid-way through the change from slide 2 to 3
        let once = makeEngine(count: 4, dwells: dwells)
        let onceEvents = once.advance(to: end)

        let often = makeEngine(count: 4, dwells: dwells)
        var oftenEvents: [CarouselEvent] = []
        var rng = SplitMix64(seed: 7)
        var now: Int64 = 0
        while now < end.nanoseconds {
            now = min(now + Int64(rng.next() % 700_000_000) + 1, end.nanoseconds)
            oftenEvents += often.advance(to: ns(now))
        }

        let everyMillisecond = makeEngine(count: 4, dwells: dwells)
        var msEvents: [CarouselEvent] = []
        for t in Int64(1)...35_850 { msEvents += everyMillisecond.advance(to: ms(t)) }

        guard case .animating(let animation) = once.phase else { Issue.record("expected mid-animation"); return }
        #expect(animation.start == ms(35_650))
        #expect(onceEvents.count == 4 * 4 + 2)
        for other in [often, everyMillisecond] {
            #expect(other.phase == once.phase)
            #expect(other.scheduler == once.scheduler)
            #expect(other.currentSlide == once.currentSlide)
            #expect(other.position(at: end) == once.position(at: end))
            #expect(other.scene(at: end).withoutPlayback == once.scene(at: end).withoutPlayback)
            #expect(other.nextWakeup() == once.nextWakeup())
        }
        #expect(oftenEvents == onceEvents)
        #expect(msEvents == onceEvents)
    }

    // MARK: Degenerate playlists

    @Test func emptyPlaylistShowsPlaceholderAndIgnoresCommands() {
        let engine = makeEngine(count: 0)
        #expect(engine.pageCount == 0)
        #expect(engine.currentSlide == nil)
        let placeholder = Scene(layers: [Layer(content: .placeholder)], indicator: nil)
        #expect(engine.scene(at: ms(0)).withoutPlayback == placeholder)
        #expect(engine.nextWakeup() == .idle)
        #expect(!engine.perform(.next, at: ms(10)))
        #expect(!engine.perform(.previous, at: ms(10)))
        #expect(!engine.perform(.goTo(0), at: ms(10)))
        #expect(engine.advance(to: ms(100_000)).isEmpty)
        engine.pause(.remote, at: ms(100_000))
        engine.resume(.remote, at: ms(100_001))
        #expect(engine.advance(to: ms(200_000)).isEmpty)
        #expect(engine.phase == .resting)
        #expect(engine.scene(at: ms(200_000)).withoutPlayback == placeholder)
        #expect(engine.slidesToPrefetch() == [])
    }

    @Test func singleSlideShowsItWithoutPagingIndicatorOrDeadline() {
        let engine = makeEngine(count: 1)
        #expect(engine.currentSlide == 0)
        #expect(engine.scheduler.deadline == nil)
        #expect(engine.nextWakeup() == .idle)
        let scene = Scene(layers: [Layer(content: .slide(0))], indicator: nil)
        #expect(engine.scene(at: ms(0)).withoutPlayback == scene)
        #expect(!engine.perform(.next, at: ms(10)))
        #expect(!engine.perform(.previous, at: ms(10)))
        #expect(!engine.perform(.goTo(0), at: ms(10)))
        #expect(engine.advance(to: ms(100_000)).isEmpty)
        engine.pause(.touch, at: ms(100_000))
        engine.resume(.touch, at: ms(100_001))
        #expect(engine.scheduler.deadline == nil)
        #expect(engine.nextWakeup() == .idle)
        #expect(engine.advance(to: ms(1_000_000)).isEmpty)
        #expect(engine.scene(at: ms(1_000_000)).withoutPlayback == scene)
        #expect(engine.slidesToPrefetch() == [0])
    }

    // MARK: Events

    @Test func commandInterruptingACommandReportsOneChangeFromTheOriginalSlide() {
        let engine = makeEngine(count: 4)
        #expect(engine.perform(.next, at: ms(0)))
        #expect(engine.position(at: ms(200)) == 0.875)
        #expect(engine.perform(.next, at: ms(200)))
        // The picture continues from where it was.
        #expect(engine.position(at: ms(200)) == 0.875)
        #expect(engine.currentSlide == 2)
        // Half-way through the new animation: 0.875 + (2 - 0.875) × 0.875.
        #expect(engine.position(at: ms(400)) == 1.859375)
        #expect(engine.scene(at: ms(400)).withoutPlayback.layers == [
            Layer(content: .slide(1), offset: -0.859375), Layer(content: .slide(2), offset: 0.140625),
        ])
        #expect(engine.advance(to: ms(599)).isEmpty)
        #expect(engine.advance(to: ms(600)) == [.pageChanged(from: 0, to: 2, cause: .command)])
        #expect(engine.scheduler.deadline == ms(5200))
    }

    @Test func commandInterruptingAnAutomaticChangeIsReportedAsCommand() {
        let engine = makeEngine(count: 4)
        #expect(engine.advance(to: ms(5200)).isEmpty)
        #expect(engine.perform(.next, at: ms(5200)))
        #expect(engine.advance(to: ms(5600)) == [.pageChanged(from: 0, to: 2, cause: .command)])
    }

    @Test func commandReturningToTheOriginalSlideReportsNoChange() {
        let engine = makeEngine(count: 4)
        #expect(engine.perform(.next, at: ms(0)))
        #expect(engine.perform(.previous, at: ms(200)))
        #expect(engine.advance(to: ms(600)).isEmpty)
        #expect(engine.currentSlide == 0)
        #expect(engine.position(at: ms(600)) == 0)
    }

    @Test func commandAfterAnUnadvancedWrapAnimationStartsFromTheWrappedSlide() {
        // The caller did not advance after the first animation ended; the second
        // command must still animate between the right two slides.
        let engine = makeEngine(count: 3)
        #expect(engine.perform(.previous, at: ms(0)))  // to slide 2, over by 400 ms
        #expect(engine.perform(.previous, at: ms(1000)))  // to slide 1
        #expect(engine.scene(at: ms(1200)).withoutPlayback.layers == [
            Layer(content: .slide(1), offset: -0.125), Layer(content: .slide(2), offset: 0.875),
        ])
        #expect(engine.advance(to: ms(1400)) == [
            .pageChanged(from: 0, to: 2, cause: .command), .pageChanged(from: 2, to: 1, cause: .command),
        ])
        #expect(engine.currentSlide == 1)
    }

    @Test func commandAfterAnUnadvancedWrapForwardAnimation() {
        let engine = makeEngine(count: 3)
        #expect(engine.perform(.previous, at: ms(0)))
        #expect(engine.advance(to: ms(400)).count == 1)
        #expect(engine.perform(.next, at: ms(1000)))  // 2 -> 0 across the wrap
        #expect(engine.perform(.next, at: ms(2000)))  // 0 -> 1, first animation not advanced
        for t in stride(from: Int64(2000), through: 2400, by: 50) {
            let shown = Set(contents(engine.scene(at: ms(t)).withoutPlayback))
            #expect(shown.isSubset(of: [.slide(0), .slide(1)]), "at \(t) ms: \(shown)")
        }
        #expect(engine.advance(to: ms(2400)) == [
            .pageChanged(from: 2, to: 0, cause: .command), .pageChanged(from: 0, to: 1, cause: .command),
        ])
    }

    // MARK: Go-to

    @Test func goToAcrossSeveralPagesAnimatesAsIfAdjacent() {
        let dwells: [Duration] = (5...9).map { .seconds($0) }
        let engine = makeEngine(count: 5, dwells: dwells)
        #expect(engine.perform(.goTo(3), at: ms(0)))
        #expect(engine.currentSlide == 3)
        #expect(engine.scheduler.deadline == ms(8000))  // slide 3's own dwell
        for t: Int64 in [1, 100, 200, 300, 399] {
            #expect(contents(engine.scene(at: ms(t)).withoutPlayback) == [.slide(0), .slide(3)], "at \(t) ms")
        }
        #expect(engine.scene(at: ms(200)).withoutPlayback.layers == [
            Layer(content: .slide(0), offset: -0.875), Layer(content: .slide(3), offset: 0.125),
        ])
        #expect(engine.advance(to: ms(400)) == [.pageChanged(from: 0, to: 3, cause: .command)])
        #expect(engine.currentSlide == 3)
        #expect(engine.scene(at: ms(400)).withoutPlayback == Scene(
            layers: [Layer(content: .slide(3))], indicator: IndicatorState(count: 5, position: 3)))

        // Backwards across two pages.
        #expect(engine.perform(.goTo(1), at: ms(1000)))
        #expect(engine.scene(at: ms(1200)).withoutPlayback.layers == [
            Layer(content: .slide(1), offset: -0.125), Layer(content: .slide(3), offset: 0.875),
        ])
        #expect(engine.advance(to: ms(1400)) == [.pageChanged(from: 3, to: 1, cause: .command)])
        #expect(engine.scheduler.deadline == ms(7000))
        #expect(engine.scene(at: ms(1400)).withoutPlayback == Scene(
            layers: [Layer(content: .slide(1))], indicator: IndicatorState(count: 5, position: 1)))

        // From the last slide back to the first, and the following automatic change.
        #expect(engine.perform(.goTo(4), at: ms(2000)))
        #expect(engine.advance(to: ms(2400)) == [.pageChanged(from: 1, to: 4, cause: .command)])
        #expect(engine.perform(.goTo(0), at: ms(3000)))
        for t: Int64 in [3001, 3200, 3399] {
            #expect(Set(contents(engine.scene(at: ms(t)).withoutPlayback)) == [.slide(0), .slide(4)], "at \(t) ms")
        }
        #expect(engine.advance(to: ms(3400)) == [.pageChanged(from: 4, to: 0, cause: .command)])
        #expect(engine.advance(to: ms(8400)) == [.pageChanged(from: 0, to: 1, cause: .automatic)])
    }

    @Test func goToIndicatorNeverLightsTheSkippedDots() {
        // Going from slide 0 to slide 3, dots 1 and 2 must not light up: the
        // indicator stays on dot 0 until slide 3 covers most of the screen, then moves to dot 3.
        let engine = makeEngine(count: 5, easing: .linear)
        #expect(engine.perform(.goTo(3), at: ms(0)))
        for t in stride(from: Int64(0), through: 400, by: 10) {
            let indicator = engine.scene(at: ms(t)).withoutPlayback.indicator!
            #expect(indicator.position == (t < 200 ? 0 : 3), "at \(t) ms: \(indicator.position)")
        }
        #expect(engine.advance(to: ms(400)) == [.pageChanged(from: 0, to: 3, cause: .command)])
        #expect(engine.scene(at: ms(400)).withoutPlayback.indicator == IndicatorState(count: 5, position: 3))
        // Backwards, from 3 to 1.
        #expect(engine.perform(.goTo(1), at: ms(1000)))
        #expect(engine.scene(at: ms(1100)).withoutPlayback.indicator == IndicatorState(count: 5, position: 3))
        #expect(engine.scene(at: ms(1300)).withoutPlayback.indicator == IndicatorState(count: 5, position: 1))
        // A plain adjacent go-to still moves the indicator continuously.
        #expect(engine.advance(to: ms(1400)).count == 1)
        #expect(engine.perform(.goTo(2), at: ms(2000)))
        #expect(engine.scene(at: ms(2100)).withoutPlayback.indicator == IndicatorState(count: 5, position: 1.25))
    }

    @Test func goToRefusesTheCurrentSlideAndUnknownSlides() {
        let engine = makeEngine(count: 5)
        #expect(!engine.perform(.goTo(0), at: ms(0)))
        #expect(!engine.perform(.goTo(5), at: ms(0)))
        #expect(!engine.perform(.goTo(-1), at: ms(0)))
        #expect(engine.phase == .resting)
        #expect(engine.perform(.goTo(1), at: ms(0)))
        guard case .animating(let animation) = engine.phase else { Issue.record("not animating"); return }
        #expect(animation.substitute == nil)  // adjacent: a plain next
        #expect(engine.advance(to: ms(400)) == [.pageChanged(from: 0, to: 1, cause: .command)])
    }

    // MARK: Readiness

    @Test func automaticChangeWaitsForItsPictureAndStartsWhenReady() {
        let engine = makeEngine(count: 3)
        var asked: Set<Int> = []
        let notReady: (Int) -> Bool = { asked.insert($0); return $0 != 1 }
        #expect(engine.advance(to: ms(5000), isReady: notReady).isEmpty)
        #expect(asked == [1])
        #expect(engine.phase == .awaitingNext(scheduledAt: ms(5000), stalled: true))
        #expect(engine.nextWakeup() == .idle)
        #expect(engine.scene(at: ms(5000)).withoutPlayback.layers == [Layer(content: .slide(0))])
        #expect(engine.advance(to: ms(6000), isReady: notReady).isEmpty)
        #expect(engine.currentSlide == 0)
        #expect(engine.position(at: ms(6000)) == 0)

        // The picture is there at 7.25 s: the change starts then, not back at 5 s.
        #expect(engine.advance(to: ms(7250)).isEmpty)
        guard case .animating(let animation) = engine.phase else { Issue.record("did not start"); return }
        #expect(animation.start == ms(7250))
        #expect(animation.cause == .automatic)
        #expect(engine.scheduler.deadline == ms(12250))
        #expect(engine.advance(to: ms(7649)).isEmpty)
        #expect(engine.advance(to: ms(7650)) == [.pageChanged(from: 0, to: 1, cause: .automatic)])
    }

    @Test func automaticChangeReadyInTimeStartsExactlyAtTheDeadline() {
        let engine = makeEngine(count: 3)
        #expect(engine.advance(to: ms(4999), isReady: { _ in false }).isEmpty)
        #expect(engine.phase == .resting)  // not due yet: readiness does not matter
        // The display thread wakes 300 ms late; the picture was ready.
        #expect(engine.advance(to: ms(5300), isReady: { _ in true }).isEmpty)
        guard case .animating(let animation) = engine.phase else { Issue.record("did not start"); return }
        #expect(animation.start == ms(5000))
        #expect(engine.position(at: ms(5200)) == 0.875)
        #expect(engine.scheduler.deadline == ms(10000))
        #expect(engine.advance(to: ms(5400)) == [.pageChanged(from: 0, to: 1, cause: .automatic)])
    }

    @Test func commandWhileAwaitingPictureTakesOver() {
        let engine = makeEngine(count: 3)
        #expect(engine.advance(to: ms(5000), isReady: { _ in false }).isEmpty)
        #expect(engine.perform(.previous, at: ms(5500)))
        #expect(engine.advance(to: ms(5900), isReady: { _ in false }) == [.pageChanged(from: 0, to: 2, cause: .command)])
        #expect(engine.scheduler.deadline == ms(10500))
    }

    // MARK: Unavailable slides

    @Test func markUnavailableSkipsASlide() {
        let engine = makeEngine(count: 4)
        engine.markUnavailable(1, at: ms(1000))
        #expect(engine.pages == [0, 2, 3])
        #expect(engine.pageCount == 3)
        #expect(engine.currentSlide == 0)
        #expect(engine.scene(at: ms(1000)).withoutPlayback == Scene(
            layers: [Layer(content: .slide(0))], indicator: IndicatorState(count: 3, position: 0)))
        var asked: Set<Int> = []
        #expect(engine.advance(to: ms(5400), isReady: { asked.insert($0); return true })
            == [.pageChanged(from: 0, to: 2, cause: .automatic)])
        #expect(!asked.contains(1))
        #expect(engine.perform(.goTo(1), at: ms(6000)) == false)
        #expect(engine.perform(.previous, at: ms(6000)))
        #expect(engine.advance(to: ms(6400)) == [.pageChanged(from: 2, to: 0, cause: .command)])
        engine.markUnavailable(1, at: ms(7000))  // already gone: no effect
        #expect(engine.pages == [0, 2, 3])
    }

    // MARK: Hidden slides (attract-only, while a visitor is engaged)

    @Test func hiddenSlidesLeavePagingAndComeBackInOrder() {
        let engine = makeEngine(count: 5)
        engine.hide([1, 3], at: ms(1000))
        #expect(engine.pages == [0, 2, 4] && engine.hidden == [1, 3])
        #expect(engine.advance(to: ms(5400)) == [.pageChanged(from: 0, to: 2, cause: .automatic)])
        // A slide that fails while hidden stays out when the others come back.
        engine.markUnavailable(3, at: ms(6000))
        engine.showHidden(at: ms(6000))
        #expect(engine.pages == [0, 1, 2, 4] && engine.hidden.isEmpty)
        #expect(engine.currentSlide == 2)
        #expect(engine.advance(to: ms(10_400)) == [.pageChanged(from: 2, to: 4, cause: .automatic)])
    }

    @Test func hidingTheSlideOnScreenShowsTheNextPageAndNeverLeavesNone() {
        let engine = makeEngine(count: 3)
        engine.hide([0], at: ms(100))
        #expect(engine.currentSlide == 1 && engine.pages == [1, 2])
        // Hiding what is left would leave nothing to show: nothing more is hidden.
        engine.hide([1, 2], at: ms(200))
        #expect(engine.pages == [1, 2] && engine.hidden == [0])
    }

    @Test func showingHiddenSlidesMidAnimationFinishesItAndRotationRunsAgainFromOnePage() {
        let engine = makeEngine(count: 3)
        engine.hide([1, 2], at: ms(100))
        #expect(engine.pageCount == 1)
        #expect(engine.nextWakeup() == .idle)
        engine.showHidden(at: ms(2000))
        #expect(engine.pageCount == 3 && engine.currentSlide == 0)
        #expect(engine.advance(to: ms(7400)) == [.pageChanged(from: 0, to: 1, cause: .automatic)])
        // An animation in flight finishes where it was heading.
        engine.hide([2], at: ms(8000))
        #expect(engine.perform(.next, at: ms(8000)))
        engine.showHidden(at: ms(8100))
        #expect(engine.phase == .resting && engine.currentSlide == 0)
        #expect(engine.takeEvents() == [.pageChanged(from: 1, to: 0, cause: .command)])
    }

    @Test func markUnavailableOnScreenShowsTheNextPage() {
        let engine = makeEngine(count: 4)
        #expect(engine.perform(.next, at: ms(0)))
        #expect(engine.advance(to: ms(400)).count == 1)
        engine.markUnavailable(1, at: ms(1000))
        #expect(engine.currentSlide == 2)
        #expect(engine.scene(at: ms(1000)).withoutPlayback == Scene(
            layers: [Layer(content: .slide(2))], indicator: IndicatorState(count: 3, position: 1)))
        #expect(engine.perform(.next, at: ms(2000)))
        #expect(engine.advance(to: ms(2400)) == [.pageChanged(from: 2, to: 3, cause: .command)])
    }

    @Test func markUnavailableDuringAnAnimationFinishesIt() {
        let engine = makeEngine(count: 4)
        #expect(engine.perform(.next, at: ms(0)))
        engine.markUnavailable(3, at: ms(200))
        #expect(engine.phase == .resting)
        #expect(engine.currentSlide == 1)
        #expect(engine.takeEvents() == [.pageChanged(from: 0, to: 1, cause: .command)])
        #expect(engine.scene(at: ms(200)).withoutPlayback.layers == [Layer(content: .slide(1))])
    }

    @Test func markUnavailableOfTheAwaitedSlideLetsRotationContinue() {
        // The next slide's picture is still decoding when its deadline comes; then
        // decoding fails and the slide is skipped: rotation must go on to the one after.
        let engine = makeEngine(count: 3)
        #expect(engine.advance(to: ms(5000), isReady: { $0 != 1 }).isEmpty)
        #expect(engine.phase == .awaitingNext(scheduledAt: ms(5000), stalled: true))
        engine.markUnavailable(1, at: ms(5500))
        #expect(engine.currentSlide == 0)
        #expect(!(engine.phase == .resting && engine.nextWakeup() == .idle),
                "rotation is stuck: resting with nothing scheduled")
        // Slide 2's picture is ready at the next wake-up: the change starts then.
        #expect(engine.advance(to: ms(6000)).isEmpty)
        guard case .animating(let animation) = engine.phase else { Issue.record("rotation did not go on"); return }
        #expect(animation.start == ms(6000))
        #expect(engine.scheduler.deadline == ms(11000))
        #expect(engine.advance(to: ms(6400)) == [.pageChanged(from: 0, to: 2, cause: .automatic)])
    }

    @Test func markUnavailableOfTheSlideOnScreenWhileAwaitingReArmsRotation() {
        let engine = makeEngine(count: 3)
        #expect(engine.advance(to: ms(5000), isReady: { _ in false }).isEmpty)
        engine.markUnavailable(0, at: ms(5500))
        #expect(engine.currentSlide == 1)
        #expect(engine.phase == .resting)
        #expect(engine.scheduler.deadline == ms(10500))  // a full dwell for the replacement
        #expect(engine.advance(to: ms(10900)) == [.pageChanged(from: 1, to: 2, cause: .automatic)])
    }

    @Test func markUnavailableDownToOneSlideStopsPaging() {
        let engine = makeEngine(count: 2)
        engine.markUnavailable(1, at: ms(1000))
        #expect(engine.pageCount == 1)
        #expect(engine.scene(at: ms(1000)).withoutPlayback == Scene(layers: [Layer(content: .slide(0))], indicator: nil))
        #expect(engine.scheduler.deadline == nil)
        #expect(engine.nextWakeup() == .idle)
        #expect(!engine.perform(.next, at: ms(2000)))
        #expect(engine.advance(to: ms(60000)).isEmpty)
        engine.markUnavailable(0, at: ms(61000))
        #expect(engine.pageCount == 0)
        #expect(engine.currentSlide == nil)
        #expect(engine.scene(at: ms(61000)).withoutPlayback == Scene(layers: [Layer(content: .placeholder)], indicator: nil))
    }

    // MARK: Scenes mid-transition

    @Test func slideSceneMidTransitionUsesEasedOffsets() {
        let engine = makeEngine(count: 3, kind: .slide, easing: .easeOut)
        #expect(engine.advance(to: ms(5000)).isEmpty)
        #expect(engine.scene(at: ms(5000)).withoutPlayback.layers == [Layer(content: .slide(0))])
        #expect(engine.scene(at: ms(5200)).withoutPlayback == Scene(
            layers: [Layer(content: .slide(0), offset: -0.875), Layer(content: .slide(1), offset: 0.125)],
            indicator: IndicatorState(count: 3, position: 0.875)))
        #expect(engine.scene(at: ms(5400)).withoutPlayback.layers == [Layer(content: .slide(1))])

        let linear = makeEngine(count: 3, kind: .slide, easing: .linear)
        #expect(linear.perform(.next, at: ms(0)))
        #expect(linear.scene(at: ms(100)).withoutPlayback.layers == [
            Layer(content: .slide(0), offset: -0.25), Layer(content: .slide(1), offset: 0.75),
        ])
        #expect(linear.scene(at: ms(100)).withoutPlayback.indicator == IndicatorState(count: 3, position: 0.25))
    }

    @Test func crossfadeSceneMidTransitionUsesEasedOpacity() {
        let engine = makeEngine(count: 3, kind: .crossfade, easing: .easeOut)
        #expect(engine.perform(.next, at: ms(0)))
        #expect(engine.scene(at: ms(200)).withoutPlayback == Scene(
            layers: [Layer(content: .slide(0)), Layer(content: .slide(1), opacity: 0.875)],
            indicator: IndicatorState(count: 3, position: 0.875)))

        let linear = makeEngine(count: 3, kind: .crossfade, easing: .linear)
        #expect(linear.advance(to: ms(5100)).isEmpty)
        #expect(linear.scene(at: ms(5100)).withoutPlayback.layers == [
            Layer(content: .slide(0)), Layer(content: .slide(1), opacity: 0.25),
        ])
    }

    @Test func cutHasNoIntermediateFrame() {
        let engine = makeEngine(count: 3, kind: .cut)
        var changes = 0
        for t in Int64(0)...11_000 {
            changes += engine.advance(to: ms(t)).count
            let scene = engine.scene(at: ms(t)).withoutPlayback
            #expect(scene.layers.count == 1)
            if scene.layers.count != 1 { break }
            let expected = t < 5000 ? 0 : t < 10000 ? 1 : 2
            #expect(scene.layers == [Layer(content: .slide(expected))])
            #expect(scene.indicator == IndicatorState(count: 3, position: Double(expected)))
        }
        #expect(changes == 2)
        // A command cuts at once.
        #expect(engine.perform(.next, at: ms(11_000)))
        #expect(engine.scene(at: ms(11_000)).withoutPlayback.layers == [Layer(content: .slide(0))])
        #expect(engine.advance(to: ms(11_000)) == [.pageChanged(from: 2, to: 0, cause: .command)])
    }

    @Test func indicatorPositionIsFractionalAndWrapsDuringTransitions() {
        let engine = makeEngine(count: 3, easing: .linear)
        #expect(engine.perform(.previous, at: ms(0)))
        #expect(engine.advance(to: ms(400)).count == 1)
        #expect(engine.perform(.next, at: ms(1000)))  // last to first
        let samples: [(Int64, Double)] = [(1000, 2), (1100, 2.25), (1200, 2.5), (1300, 2.75)]
        for (t, position) in samples {
            #expect(engine.scene(at: ms(t)).withoutPlayback.indicator == IndicatorState(count: 3, position: position))
        }
        let mid = engine.scene(at: ms(1300)).withoutPlayback.indicator!
        #expect(mid.emphasis(ofDot: 2) == 0.25)
        #expect(mid.emphasis(ofDot: 0) == 0.75)
        #expect(mid.emphasis(ofDot: 1) == 0)
        #expect(engine.advance(to: ms(1400)).count == 1)
        #expect(engine.scene(at: ms(1400)).withoutPlayback.indicator == IndicatorState(count: 3, position: 0))
    }

    // MARK: Wake-ups

    @Test func nextWakeupFollowsThePhase() {
        let engine = makeEngine(count: 3)
        #expect(engine.nextWakeup() == .at(ms(5000)))
        #expect(engine.perform(.next, at: ms(1000)))
        #expect(engine.nextWakeup() == .everyFrame)
        #expect(engine.advance(to: ms(1399)).isEmpty)
        #expect(engine.nextWakeup() == .everyFrame)
        #expect(engine.advance(to: ms(1400)).count == 1)
        #expect(engine.nextWakeup() == .at(ms(6000)))
        #expect(engine.advance(to: ms(6000)).isEmpty)
        #expect(engine.nextWakeup() == .everyFrame)
        #expect(engine.advance(to: ms(6400)).count == 1)
        #expect(engine.nextWakeup() == .at(ms(11000)))
        engine.pause(.touch, at: ms(7000))
        #expect(engine.nextWakeup() == .idle)
        engine.resume(.touch, at: ms(8000))
        #expect(engine.nextWakeup() == .at(ms(16000)))
        #expect(engine.advance(to: ms(16000), isReady: { _ in false }).isEmpty)
        #expect(engine.nextWakeup() == .idle)
    }

    @Test func withoutAutoplayNothingIsScheduled() {
        let engine = makeEngine(count: 3, autoplay: false)
        #expect(!engine.isPlaying)
        #expect(engine.nextWakeup() == .idle)
        #expect(engine.advance(to: ms(100_000)).isEmpty)
        #expect(engine.perform(.next, at: ms(100_000)))
        #expect(engine.nextWakeup() == .everyFrame)
        #expect(engine.advance(to: ms(100_400)) == [.pageChanged(from: 0, to: 1, cause: .command)])
        #expect(engine.nextWakeup() == .idle)
        engine.pause(.remote, at: ms(100_500))
        engine.resume(.remote, at: ms(100_600))
        #expect(engine.nextWakeup() == .idle)
    }

    // MARK: Prefetch and animation maths

    @Test func prefetchListsCurrentThenNeighbours() {
        let engine = makeEngine(count: 5)
        #expect(engine.slidesToPrefetch() == [0, 1, 4])
        #expect(engine.slidesToPrefetch(radius: 2) == [0, 1, 4, 2, 3])
        #expect(makeEngine(count: 2).slidesToPrefetch() == [0, 1])
    }

    @Test func pageAnimationPosition() {
        let animation = CarouselEngine.PageAnimation(
            fromPosition: 2, toPage: 3, start: ms(1000),
            style: TransitionStyle(kind: .slide, duration: .milliseconds(400), easing: .easeOut),
            cause: .command, fromSlide: 2, substitute: nil)
        #expect(animation.end == ms(1400))
        #expect(animation.position(at: ms(1000)) == 2)
        #expect(animation.position(at: ms(1200)) == 2.875)
        #expect(animation.position(at: ms(1400)) == 3)
        #expect(animation.position(at: ms(9999)) == 3)
        #expect(animation.position(at: ms(900)) == 2)  // before its start: where it starts
        var cut = animation
        cut.style.kind = .cut
        #expect(cut.end == ms(1000))
        #expect(cut.position(at: ms(1000)) == 3)
    }
}

@Suite("CarouselEngine: removing the slide on screen")
struct RemovingTheCurrentSlideTests {
    @Test func theNextPageTakesItsPlaceWrappingWhenLooping() {
        var engine = CarouselEngine(settings: .uniform(count: 4), start: .zero)
        engine.perform(.goTo(3), at: .zero)
        engine.advance(to: .seconds(1))
        #expect(engine.currentSlide == 3)
        engine.markUnavailable(3, at: .seconds(1))
        #expect(engine.currentSlide == 0)
        #expect(engine.pages == [0, 1, 2])
    }

    @Test func withoutLoopingTheNewLastPageTakesItsPlace() {
        var engine = CarouselEngine(settings: .uniform(count: 4, loop: false), start: .zero)
        engine.perform(.goTo(3), at: .zero)
        engine.advance(to: .seconds(1))
        engine.markUnavailable(3, at: .seconds(1))
        #expect(engine.currentSlide == 2)
    }
}
