import Testing
import VitrineCore
@testable import VitrineRuntime

/// When the members of a composite display (a canvas, a mirror group) take a
/// frame: each flips on its own vblank, only members of the fastest refresh
/// wait for each other, and a slower one catches up with what it skipped.
@Suite("Composite display timing")
struct CompositeTimingTests {
    static let opaque: UInt32 = 0xFF00_0000
    /// An animation: a new picture every millisecond.
    static func animation(_ instant: MonotonicInstant) -> UInt32 { opaque | UInt32(instant.nanoseconds / 1_000_000) }
    static let second = MonotonicInstant.seconds(1)

    @Test func aThirtyHertzScreenDoesNotHoldBackASixtyHertzOneOfTheSameCanvas() throws {
        let fast = VblankRig.screen("60", period: VblankRig.sixtyHertz), slow = VblankRig.screen("30", period: VblankRig.thirtyHertz)
        var rig = VblankRig.canvas(fast, slow)
        try rig.run(from: .zero, to: Self.second, animating: true, picture: Self.animation)
        // One frame at each of the fast screen's vblanks, every one on it; the
        // slow screen's flip is done at every other one, and it takes those.
        #expect(rig.frames.count == 60)
        #expect(fast.display.presented == rig.frames.map(\.at))
        #expect(slow.display.presented == rig.frames.indices.filter { $0.isMultiple(of: 2) }.map { rig.frames[$0].at })
        let counts = (rig.display as! SpannedDisplay).memberFrameCounts
        #expect(counts == [MemberFrameCount(member: "member 1 (fake 60 30x24)", presented: 60),
                           MemberFrameCount(member: "member 2 (fake 30 30x24)", presented: 30, skipped: 30)])
    }

    @Test(arguments: [Duration.zero, .milliseconds(5), .milliseconds(20)])
    func aSlowerScreenGetsANewPictureAtEachOfItsVblanksWhateverItsPhase(phase: Duration) throws {
        let fast = VblankRig.screen("60", period: VblankRig.sixtyHertz), slow = VblankRig.screen("30", period: VblankRig.thirtyHertz, phase: phase)
        var rig = VblankRig.canvas(fast, slow)
        try rig.run(from: .zero, to: Self.second, animating: true, picture: Self.animation)
        // Every vblank of each screen in (0, 1 s) after its first frame shows a
        // new picture: 59 for the fast screen, 29 or 30 for the slow one.
        let slowVblanks = (0..<40).map { slow.phase + slow.period * $0 }.filter { $0 > .zero && $0 < .seconds(1) }
        #expect(fast.display.scanouts.count == 59)
        #expect(slow.display.scanouts.map(\.at) == slowVblanks.map { MonotonicInstant.zero + $0 })
        #expect(Set(slow.display.scanouts.map(\.pixel)).count == slow.display.scanouts.count, "a new picture each time")
        #expect(rig.frames.count == 60)
    }

    /// A slide changes at 101 ms, then again at 118 ms: the 30 Hz screen's flip
    /// of the first change is pending then, so it skips the second and catches up.
    @Test(arguments: [Duration.zero, .milliseconds(20)])
    func bothScreensShowANewSlideWithinOneSlowFrameOfEachOther(phase: Duration) throws {
        let fast = VblankRig.screen("60", period: VblankRig.sixtyHertz), slow = VblankRig.screen("30", period: VblankRig.thirtyHertz, phase: phase)
        var rig = VblankRig.canvas(fast, slow)
        let first = Self.opaque | 1, second = Self.opaque | 2, third = Self.opaque | 3
        let changes: [MonotonicInstant] = [.zero, .seconds(0.101), .seconds(0.118)]
        try rig.run(from: .zero, to: .seconds(0.3), changes: changes) { $0 < changes[1] ? first : $0 < changes[2] ? second : third }
        #expect(rig.frames.map(\.picture) == [first, second, third], "one frame per change")
        let onFast = try #require(rig.firstShown(third, on: fast)), onSlow = try #require(rig.firstShown(third, on: slow))
        #expect(onFast == VblankRig.vblank(of: fast, after: changes[2]), "the fast screen shows it at its next vblank")
        #expect(onSlow >= onFast && onSlow - onFast <= slow.period, "the slow one within one of its frames")
        #expect(slow.display.scanouts.last?.pixel == third, "and keeps it")
        #expect((rig.display as! SpannedDisplay).memberFrameCounts[1] == MemberFrameCount(member: "member 2 (fake 30 30x24)", presented: 3, skipped: 1, caughtUp: 1))
    }

    @Test func twoSixtyHertzScreensStillTakeEveryFrameTogetherBesideAThirtyHertzOne() throws {
        // The second 60 Hz screen's vblank comes 15 ms after the first's: the
        // frame waits for both, and each shows it at its next vblank.
        let first = VblankRig.screen("60a", period: VblankRig.sixtyHertz), late = VblankRig.screen("60b", period: VblankRig.sixtyHertz, phase: .milliseconds(15))
        let slow = VblankRig.screen("30", period: VblankRig.thirtyHertz)
        var rig = VblankRig.canvas(first, late, slow)
        try rig.run(from: .zero, to: Self.second, animating: true, picture: Self.animation)
        #expect(rig.frames.count == 60, "one draw per 60 Hz frame")
        #expect(first.display.presented == rig.frames.map(\.at))
        #expect(late.display.presented == rig.frames.map(\.at), "the two 60 Hz screens take the same frames")
        for frame in rig.frames.dropLast() {
            let onFirst = try #require(rig.firstShown(frame.picture, on: first)), onLate = try #require(rig.firstShown(frame.picture, on: late))
            #expect(abs((onFirst - onLate).nanoseconds) < first.period.nanoseconds, "within one frame: \(onFirst) \(onLate)")
        }
        #expect(slow.display.presented.count == 30)
    }

    @Test func anUnpluggedScreenNeverHoldsTheOthersAndTheFastestPresentOnePaces() throws {
        let fast = VblankRig.screen("60a", period: VblankRig.sixtyHertz), away = VblankRig.screen("60b", period: VblankRig.sixtyHertz)
        let slow = VblankRig.screen("30", period: VblankRig.thirtyHertz)
        var rig = VblankRig.canvas(fast, away, slow)
        away.display.isShowing = false
        away.display.isFlipPending = true
        try rig.run(from: .zero, to: Self.second, animating: true, picture: Self.animation)
        #expect(rig.frames.count == 60)
        #expect(fast.display.presented.count == 60 && slow.display.presented.count == 30 && away.display.presented.isEmpty)

        // The 60 Hz screens both away: the 30 Hz one paces alone, taking every frame.
        fast.display.isShowing = false
        try rig.run(from: Self.second, to: .seconds(2), animating: true, picture: Self.animation)
        let later = rig.frames.filter { $0.at >= Self.second }
        #expect(later.count == 30)
        #expect(slow.display.presented.filter { $0 >= Self.second } == later.map(\.at))
    }

    @Test func aSlowMirrorDoesNotHoldBackItsSource() throws {
        let source = VblankRig.screen("source", period: VblankRig.sixtyHertz), mirror = VblankRig.screen("mirror", period: VblankRig.thirtyHertz)
        var rig = VblankRig.mirror(source, mirror)
        try rig.run(from: .zero, to: Self.second, animating: true, picture: Self.animation)
        #expect(source.display.presented == rig.frames.map(\.at) && rig.frames.count == 60)
        #expect(mirror.display.presented.count == 30)
    }

    /// Which pending flips hold the frame back: those of the fastest rate's
    /// members, within half a millisecond of refresh period.
    @Test(arguments: [(60.0, 59.94, true), (60, 60, true), (60, 50, false), (165, 144, false), (60, 30, false), (24, 23.976, true)])
    func aPendingFlipHoldsTheFrameOnlyAtTheFastestRate(fastest: Double, other: Double, holds: Bool) {
        let first = FakeDisplay("a", size: PixelSize(width: 30, height: 24)), second = FakeDisplay("b", size: PixelSize(width: 30, height: 24))
        first.refreshInterval = .nanoseconds(Int64(1e9 / fastest))
        second.refreshInterval = .nanoseconds(Int64(1e9 / other))
        let span = SpannedDisplay(canvasSize: PixelSize(width: 65, height: 24), members: [
            SpannedDisplay.Member(display: first, region: PixelRect(x: 0, y: 0, width: 30, height: 24)),
            SpannedDisplay.Member(display: second, region: PixelRect(x: 35, y: 0, width: 30, height: 24))])
        second.isFlipPending = true
        #expect(span.isReadyForFrame == !holds, "\(other) Hz pending beside \(fastest) Hz")
        second.isFlipPending = false
        first.isFlipPending = true
        #expect(!span.isReadyForFrame, "the fastest always holds it")
    }

    @Test func aSkippedScreenCatchesUpWithTheFrameInMemoryAndIsCounted() throws {
        let tag: (Int, Int) -> UInt32 = { x, y in Self.opaque | UInt32(x) << 12 | UInt32(y) }
        let fast = FakeDisplay("60", size: PixelSize(width: 30, height: 24), connector: "HDMI-A-1")
        let slow = FakeDisplay("30", size: PixelSize(width: 30, height: 24), connector: "HDMI-A-2")
        fast.flipsOnPresent = true
        slow.flipsOnPresent = true
        slow.refreshInterval = .microseconds(33_333)
        let span = SpannedDisplay(canvasSize: PixelSize(width: 70, height: 24), members: [
            SpannedDisplay.Member(display: fast, region: PixelRect(x: 0, y: 0, width: 30, height: 24)),
            SpannedDisplay.Member(display: slow, region: PixelRect(x: 40, y: 0, width: 30, height: 24))])
        func draw(_ value: @escaping (Int, Int) -> UInt32) {
            let canvas = span.acquireCanvas()!
            for y in 0..<canvas.size.height { for x in 0..<canvas.size.width { canvas.row(y)[x] = value(x, y) } }
        }
        draw { _, _ in Self.opaque }
        try span.present(at: .seconds(1))
        #expect(!span.canCatchUp)
        fast.completeFlip(at: .seconds(1.017))
        #expect(span.isReadyForFrame && !span.canCatchUp, "the slow screen's flip is pending, and it is not behind")
        draw(tag)
        try span.present(at: .seconds(1.017))
        #expect(fast.presented.count == 2 && slow.presented.count == 1)
        #expect(!span.canCatchUp, "behind, but its flip is still pending")
        fast.completeFlip(at: .seconds(1.033))
        slow.completeFlip(at: .seconds(1.033))
        #expect(span.canCatchUp)
        try span.catchUp(at: .seconds(1.033))
        #expect(fast.presented.count == 2 && slow.presented == [.seconds(1), .seconds(1.033)], "only the screen behind")
        #expect(slow[0, 0] == tag(40, 0) && slow[29, 23] == tag(69, 23))
        #expect(!span.canCatchUp)
        #expect(span.memberFrameCounts.map(\.summary) == ["HDMI-A-1 presented 2, skipped 0", "HDMI-A-2 presented 2 (1 catching up), skipped 1"])
    }

    @Test func aScreenAwayWhenAFrameWentIsNotCaughtUpUntilItIsBackAndReady() throws {
        let fast = FakeDisplay("a", size: PixelSize(width: 30, height: 24)), other = FakeDisplay("b", size: PixelSize(width: 30, height: 24))
        let span = SpannedDisplay(canvasSize: PixelSize(width: 65, height: 24), members: [
            SpannedDisplay.Member(display: fast, region: PixelRect(x: 0, y: 0, width: 30, height: 24)),
            SpannedDisplay.Member(display: other, region: PixelRect(x: 35, y: 0, width: 30, height: 24))])
        other.isShowing = false
        _ = span.acquireCanvas()
        try span.present(at: .seconds(1))
        #expect(!span.canCatchUp)
        #expect(span.memberFrameCounts[1].skipped == 0, "frames while away are not skips")
        other.isShowing = true
        #expect(span.canCatchUp)
    }
}

extension CompositeTimingTests {
    @Test func aCanvasInsideAMirrorGroupHasItsScreensCountedToo() throws {
        let size = PixelSize(width: 30, height: 24)
        let left = FakeDisplay("left", size: size, connector: "HDMI-A-1"), right = FakeDisplay("right", size: size, connector: "HDMI-A-2")
        let mirror = FakeDisplay("mirror", size: PixelSize(width: 65, height: 24), connector: "DP-1")
        let span = SpannedDisplay(canvasSize: PixelSize(width: 65, height: 24), members: [
            SpannedDisplay.Member(display: left, region: PixelRect(x: 0, y: 0, width: 30, height: 24)),
            SpannedDisplay.Member(display: right, region: PixelRect(x: 35, y: 0, width: 30, height: 24))])
        let group = MirroredDisplay(source: MirroredDisplay.Member(display: span), mirrors: [MirroredDisplay.Member(display: mirror)])
        // The right-hand screen refreshes at 30 Hz and its flip is pending: it alone skips.
        right.refreshInterval = VblankRig.thirtyHertz
        right.isFlipPending = true
        _ = group.acquireCanvas()
        try group.present(at: .seconds(1))
        #expect(group.memberFrameCounts.map(\.summary) == [
            "HDMI-A-1+HDMI-A-2 presented 1, skipped 0", "DP-1 presented 1, skipped 0",
            "HDMI-A-1 presented 1, skipped 0", "HDMI-A-2 presented 0, skipped 1"])
        // Its flip done, the right-hand screen catches up through the mirror group, with the canvas's frame.
        right.isFlipPending = false
        #expect(group.canCatchUp, "the canvas inside the mirror group has a screen behind")
        try group.catchUp(at: .seconds(1) + .milliseconds(33))
        #expect(!group.canCatchUp)
        #expect(group.memberFrameCounts.last?.summary == "HDMI-A-2 presented 1 (1 catching up), skipped 1")
    }
}
