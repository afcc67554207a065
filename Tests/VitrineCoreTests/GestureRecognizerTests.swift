import Testing
@testable import VitrineCore

/// A reference wrapper around a `GestureRecognizer`, so feeding it can sit inside `#expect`.
final class Fingers {
    var recognizer: GestureRecognizer
    init(_ settings: GestureSettings = GestureSettings(outputWidth: 1000)) {
        recognizer = GestureRecognizer(settings: settings)
    }

    var state: GestureRecognizer.State { recognizer.state }
    func down(_ x: Double, _ y: Double, at t: Int64) -> [GestureEvent] { recognizer.handle(.down(pt(x, y), at: ms(t))) }
    func move(_ x: Double, _ y: Double, at t: Int64) -> [GestureEvent] { recognizer.handle(.move(pt(x, y), at: ms(t))) }
    func up(_ x: Double, _ y: Double, at t: Int64) -> [GestureEvent] { recognizer.handle(.up(pt(x, y), at: ms(t))) }
    func cancel(at t: Int64) -> [GestureEvent] { recognizer.handle(.cancel(at: ms(t))) }
}

func pt(_ x: Double, _ y: Double) -> TouchPoint { TouchPoint(x: x, y: y) }

/// The velocity of a `dragEnded` among `events`, or nil.
func releaseVelocity(_ events: [GestureEvent]) -> Double? {
    for case .dragEnded(_, let velocity, _) in events { return velocity }
    return nil
}

@Suite("GestureRecognizer")
struct GestureRecognizerTests {
    @Test func settingsDefaults() {
        let settings = GestureSettings(outputWidth: 1280)
        #expect(settings.tapMaxDuration == .milliseconds(250))
        #expect(settings.tapSlop == 20)
        #expect(settings.pageFraction == 0.25)
        #expect(settings.flickVelocity == 1000)
        #expect(settings.outputWidth == 1280)
        #expect(settings.pageDistance == 320)
    }

    // MARK: Taps and presses

    @Test func shortPressInPlaceIsATapAtTheDownPoint() {
        let fingers = Fingers()
        #expect(fingers.down(100, 200, at: 1000) == [.pressed(pt(100, 200), at: ms(1000))])
        #expect(fingers.state == .pressed(origin: pt(100, 200), since: ms(1000)))
        #expect(fingers.move(105, 203, at: 1050).isEmpty)
        #expect(fingers.up(106, 204, at: 1100) == [.tap(pt(100, 200), at: ms(1100)), .released(at: ms(1100))])
        #expect(fingers.state == .idle)
    }

    @Test func tapDurationIsInclusive() {
        let fingers = Fingers()
        _ = fingers.down(10, 10, at: 0)
        #expect(fingers.up(10, 10, at: 250) == [.tap(pt(10, 10), at: ms(250)), .released(at: ms(250))])
        _ = fingers.down(10, 10, at: 1000)
        #expect(fingers.up(10, 10, at: 1251) == [.released(at: ms(1251))])
    }

    @Test func longPressThatNeverMovedIsNoTap() {
        let fingers = Fingers()
        _ = fingers.down(300, 300, at: 0)
        #expect(fingers.move(301, 299, at: 400).isEmpty)
        #expect(fingers.up(301, 299, at: 2000) == [.released(at: ms(2000))])
        #expect(fingers.state == .idle)
    }

    @Test func longPressCanStillBecomeADrag() {
        let fingers = Fingers()
        _ = fingers.down(300, 300, at: 0)
        #expect(fingers.move(270, 300, at: 2000) == [.dragBegan(at: ms(2000)), .dragMoved(offset: -30, at: ms(2000))])
    }

    @Test func slopBoundaryIsInclusive() {
        // Exactly 20 px away (12, 16) is still a tap.
        let fingers = Fingers()
        _ = fingers.down(100, 100, at: 0)
        #expect(fingers.move(112, 116, at: 50).isEmpty)
        #expect(fingers.move(120, 100, at: 60).isEmpty)
        #expect(fingers.state == .pressed(origin: pt(100, 100), since: ms(0)))
        #expect(fingers.up(120, 100, at: 100) == [.tap(pt(100, 100), at: ms(100)), .released(at: ms(100))])

        // A hair beyond it is a drag.
        _ = fingers.down(100, 100, at: 1000)
        #expect(fingers.move(120.5, 100, at: 1010) == [
            .dragBegan(at: ms(1010)), .dragMoved(offset: 20.5, at: ms(1010)),
        ])

        // A custom slop.
        let wide = Fingers(GestureSettings(outputWidth: 1000, tapSlop: 40))
        _ = wide.down(0, 0, at: 0)
        #expect(wide.move(-40, 0, at: 10).isEmpty)
        #expect(wide.move(-41, 0, at: 20) == [.dragBegan(at: ms(20)), .dragMoved(offset: -41, at: ms(20))])
    }

    @Test func movingBeyondTheSlopAndBackIsNoTap() {
        let fingers = Fingers()
        _ = fingers.down(100, 100, at: 0)
        #expect(fingers.move(100, 150, at: 30).isEmpty)  // vertical
        #expect(fingers.move(100, 100, at: 60).isEmpty)
        #expect(fingers.up(100, 100, at: 90) == [.released(at: ms(90))])
    }

    // MARK: Drags

    @Test func horizontalDragOffsetsAreFromTheDownPoint() {
        let fingers = Fingers()
        _ = fingers.down(500, 300, at: 0)
        #expect(fingers.move(490, 302, at: 10).isEmpty)  // within the slop
        // Recognised at -30: the first offset is -30, not -10, so the picture does not jump.
        #expect(fingers.move(470, 305, at: 20) == [.dragBegan(at: ms(20)), .dragMoved(offset: -30, at: ms(20))])
        #expect(fingers.move(400, 340, at: 30) == [.dragMoved(offset: -100, at: ms(30))])
        // Vertical movement during a horizontal drag changes nothing but the offset.
        #expect(fingers.move(400, 500, at: 40) == [.dragMoved(offset: -100, at: ms(40))])
        #expect(fingers.move(650.5, 500, at: 50) == [.dragMoved(offset: 150.5, at: ms(50))])
        let end = fingers.up(640, 500, at: 60)
        #expect(end.count == 2)
        guard case .dragEnded(let offset, _, let at) = end.first else { Issue.record("no dragEnded: \(end)"); return }
        #expect(offset == 140)
        #expect(at == ms(60))
        #expect(end.last == .released(at: ms(60)))
        #expect(fingers.state == .idle)
    }

    @Test func equalHorizontalAndVerticalMovementIsHorizontal() {
        let fingers = Fingers()
        _ = fingers.down(0, 0, at: 0)
        #expect(fingers.move(-30, 30, at: 10) == [.dragBegan(at: ms(10)), .dragMoved(offset: -30, at: ms(10))])
        let slightlyVertical = Fingers()
        _ = slightlyVertical.down(0, 0, at: 0)
        #expect(slightlyVertical.move(-30, 30.5, at: 10).isEmpty)
        #expect(slightlyVertical.state == .vertical)
    }

    @Test func verticalGestureNeverDragsOrTaps() {
        let fingers = Fingers()
        _ = fingers.down(500, 500, at: 0)
        #expect(fingers.move(505, 530, at: 20).isEmpty)
        #expect(fingers.state == .vertical)
        // Even a large horizontal movement afterwards stays vertical.
        #expect(fingers.move(900, 530, at: 40).isEmpty)
        #expect(fingers.move(0, 100, at: 60).isEmpty)
        #expect(fingers.up(0, 100, at: 80) == [.released(at: ms(80))])
        #expect(fingers.state == .idle)
    }

    @Test func upBeyondTheSlopWithoutAMoveCountsAsTheMovement() {
        let fingers = Fingers()
        _ = fingers.down(500, 0, at: 0)
        let events = fingers.up(400, 10, at: 50)
        #expect(events.count == 4)
        #expect(Array(events.prefix(2)) == [.dragBegan(at: ms(50)), .dragMoved(offset: -100, at: ms(50))])
        guard case .dragEnded(let offset, let velocity, _) = events[2] else { Issue.record("\(events)"); return }
        #expect(offset == -100)
        #expect(abs(velocity - -2000) < 1e-9)  // 100 px in 50 ms
        #expect(events[3] == .released(at: ms(50)))

        _ = fingers.down(500, 0, at: 1000)
        #expect(fingers.up(500, 100, at: 1050) == [.released(at: ms(1050))])
    }

    // MARK: Cancel and stray events

    @Test func cancelNeverTaps() {
        let fingers = Fingers()
        _ = fingers.down(10, 10, at: 0)
        #expect(fingers.cancel(at: 50) == [.released(at: ms(50))])
        #expect(fingers.state == .idle)

        _ = fingers.down(500, 10, at: 100)
        _ = fingers.move(400, 10, at: 120)
        #expect(fingers.cancel(at: 130) == [.dragCancelled(at: ms(130)), .released(at: ms(130))])
        #expect(fingers.state == .idle)

        _ = fingers.down(500, 10, at: 200)
        _ = fingers.move(500, 100, at: 220)
        #expect(fingers.cancel(at: 230) == [.released(at: ms(230))])
        #expect(fingers.cancel(at: 240).isEmpty)
    }

    @Test func strayEventsAreIgnored() {
        let fingers = Fingers()
        #expect(fingers.move(1, 1, at: 0).isEmpty)
        #expect(fingers.up(1, 1, at: 1).isEmpty)
        #expect(fingers.cancel(at: 2).isEmpty)
        #expect(fingers.state == .idle)
        _ = fingers.down(100, 100, at: 10)
        // A second down while pressed (or dragging) is ignored.
        #expect(fingers.down(300, 300, at: 20).isEmpty)
        #expect(fingers.state == .pressed(origin: pt(100, 100), since: ms(10)))
        _ = fingers.move(50, 100, at: 30)
        #expect(fingers.down(300, 300, at: 40).isEmpty)
        #expect(fingers.move(40, 100, at: 50) == [.dragMoved(offset: -60, at: ms(50))])
        _ = fingers.up(40, 100, at: 60)
        #expect(fingers.down(700, 100, at: 70) == [.pressed(pt(700, 100), at: ms(70))])
    }

    @Test func everyTouchEndsWithReleasedAtItsTime() {
        let fingers = Fingers()
        for (index, ending) in ["tap", "long", "drag", "vertical", "cancel"].enumerated() {
            let t = Int64(index) * 10_000
            var events = fingers.down(500, 500, at: t)
            let end: Int64
            switch ending {
            case "drag":
                end = t + 200
                events += fingers.move(300, 500, at: t + 100) + fingers.up(300, 500, at: end)
            case "vertical":
                end = t + 200
                events += fingers.move(500, 300, at: t + 100) + fingers.up(500, 300, at: end)
            case "long":
                end = t + 1000
                events += fingers.up(500, 500, at: end)
            case "cancel":
                end = t + 100
                events += fingers.cancel(at: end)
            default:
                end = t + 100
                events += fingers.up(500, 500, at: end)
            }
            #expect(events.first == .pressed(pt(500, 500), at: ms(t)), "\(ending)")
            #expect(events.last == .released(at: ms(end)), "\(ending)")
            #expect(events.filter { if case .released = $0 { true } else { false } }.count == 1, "\(ending)")
            #expect(events.map(\.time) == events.map(\.time).sorted(), "\(ending)")
        }
    }

    // MARK: Release velocity

    @Test func velocityOfSteadyMotion() {
        // 1000 px/s to the left, a sample every 8 ms.
        let fingers = Fingers()
        _ = fingers.down(800, 0, at: 0)
        var x = 800.0
        for t in stride(from: Int64(8), through: 200, by: 8) {
            x -= 8
            _ = fingers.move(x, 0, at: t)
        }
        let events = fingers.up(x, 0, at: 200)
        let velocity = releaseVelocity(events)
        #expect(velocity.map { abs($0 - -1000) < 1e-6 } == true, "\(String(describing: velocity))")
        guard case .dragEnded(let offset, _, _) = events.first else { Issue.record("\(events)"); return }
        #expect(offset == -200)
    }

    @Test func velocityUsesOnlyTheLastHundredMilliseconds() {
        // Slow for half a second, then 2000 px/s to the right for the last 100 ms.
        let fingers = Fingers()
        _ = fingers.down(100, 0, at: 0)
        var x = 100.0
        for t in stride(from: Int64(10), through: 500, by: 10) {
            x += 1
            _ = fingers.move(x, 0, at: t)
        }
        for t in stride(from: Int64(510), through: 600, by: 10) {
            x += 20
            _ = fingers.move(x, 0, at: t)
        }
        let velocity = releaseVelocity(fingers.up(x, 0, at: 600))!
        #expect(abs(velocity - 2000) < 1e-6, "\(velocity)")
    }

    @Test func fingerThatStoppedBeforeLiftingHasNoVelocity() {
        let fingers = Fingers()
        _ = fingers.down(500, 0, at: 0)
        _ = fingers.move(450, 0, at: 10)
        _ = fingers.move(300, 0, at: 50)
        // Still for 200 ms (no moves reported), then lifted.
        #expect(releaseVelocity(fingers.up(300, 0, at: 250)) == 0)
    }

    @Test func velocityIsRobustToASingleSampleInTheWindow() {
        // Sparse reports: the last move is 150 ms before the lift, far from the up point.
        let fingers = Fingers()
        _ = fingers.down(500, 0, at: 0)
        _ = fingers.move(400, 0, at: 50)
        let velocity = releaseVelocity(fingers.up(250, 0, at: 200))!
        // Only the up sample is in the window: the newest one before it joins: 150 px in 150 ms.
        #expect(abs(velocity - -1000) < 1e-9, "\(velocity)")

        // The least-squares fit directly.
        typealias S = GestureRecognizer.Sample
        #expect(GestureRecognizer.velocity(of: [], at: ms(0)) == 0)
        #expect(GestureRecognizer.velocity(of: [S(x: 5, time: ms(10))], at: ms(10)) == 0)
        #expect(GestureRecognizer.velocity(of: [S(x: 5, time: ms(10)), S(x: 9, time: ms(10))], at: ms(10)) == 0)
        let jittered = [S(x: 0, time: ms(0)), S(x: 12, time: ms(10)), S(x: 18, time: ms(20)), S(x: 30, time: ms(30))]
        // Least squares: slope 0.96 px/ms.
        #expect(abs(GestureRecognizer.velocity(of: jittered, at: ms(30)) - 960) < 1e-9)
    }

    // MARK: Paging decision

    @Test func swipeDirectionFromDistanceAndSpeed() {
        let settings = GestureSettings(outputWidth: 1000)
        // Further than a quarter of the width pages, towards the finger's side.
        #expect(settings.swipeDirection(offset: -251, velocity: 0) == .next)
        #expect(settings.swipeDirection(offset: 251, velocity: 0) == .previous)
        #expect(settings.swipeDirection(offset: -250, velocity: 0) == nil)
        #expect(settings.swipeDirection(offset: 250, velocity: -1000) == nil)
        // A flick pages even when short.
        #expect(settings.swipeDirection(offset: -30, velocity: -1001) == .next)
        #expect(settings.swipeDirection(offset: 30, velocity: 1001) == .previous)
        #expect(settings.swipeDirection(offset: -30, velocity: -1000) == nil)
        // A flick back against the drag snaps back, even from far.
        #expect(settings.swipeDirection(offset: -400, velocity: 1500) == nil)
        #expect(settings.swipeDirection(offset: 400, velocity: -1500) == nil)
        // A slow movement back does not.
        #expect(settings.swipeDirection(offset: -400, velocity: 500) == .next)
        // No offset at all: the flick decides.
        #expect(settings.swipeDirection(offset: 0, velocity: -1500) == .next)
        #expect(settings.swipeDirection(offset: 0, velocity: 1500) == .previous)
        #expect(settings.swipeDirection(offset: 0, velocity: 0) == nil)
    }
}
