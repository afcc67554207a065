import Testing
import VitrineCore
import VitrineEvdev
import VitrineRuntime

/// Every recording through `TouchReplay` (device model → gesture recognizer →
/// carousel engine) on a 1920x1080 output with five looping slides.
///
/// The expected positions are computed from the raw values in the recordings
/// (see `Panel`); the comments in each recording give the same numbers.
@Suite("evemu recordings: replay")
struct ReplayTests {
    // MARK: Taps

    @Test func protocolBTap() throws {
        let lines = try Recordings.replay("b-tap.evemu")
        try #require(lines.map(\.event) == ["tap"], "\(lines)")
        // The tap is where the finger landed, not where it rocked to (2050: +0.9 px).
        let centre = Panel.b(2048, 1152)
        expectTap(lines[0], slide: 0, x: centre.x, y: centre.y)
        #expect(lines[0].description == #"{"event":"tap","slide":0,"x":960.2,"y":540.2,"t":0.096}"#)
    }

    @Test func protocolATap() throws {
        let lines = try Recordings.replay("a-tap.evemu")
        try #require(lines.map(\.event) == ["tap"], "\(lines)")
        expectTap(lines[0], slide: 0, x: 500, y: 300)
        #expect(lines[0]["t"] == "0.108")
    }

    @Test func singleTouchTap() throws {
        let lines = try Recordings.replay("st-tap.evemu")
        try #require(lines.map(\.event) == ["tap"], "\(lines)")
        expectTap(lines[0], slide: 0, x: 600, y: 400)
        #expect(lines[0].description == #"{"event":"tap","slide":0,"x":600,"y":400,"t":0.08}"#)
    }

    @Test func longPressIsNoTap() throws {
        // 400 ms still is too long for a tap; the control tap after it still counts.
        let lines = try Recordings.replay("st-long-press.evemu")
        try #require(lines.map(\.event) == ["tap"], "\(lines)")
        expectTap(lines[0], slide: 0, x: 240, y: 120)
        #expect(lines[0]["t"] == "0.76")
    }

    // MARK: Swipes

    @Test func swipeLeftPagesToTheNext() throws {
        let lines = try Recordings.replay("b-swipe-left.evemu")
        expectSwipe(lines[...], from: 0, to: 1, direction: "next")
        #expect(lines.map(\.description) == [
            #"{"event":"dragStart","slide":0,"t":0.016}"#,
            #"{"event":"dragEnd","slide":1,"paged":true,"t":0.176}"#,
            #"{"event":"swipe","direction":"next","from":0,"t":0.176}"#,
            // The 400 ms slide transition from the lift, within the replay's 5 ms step.
            #"{"event":"pageChanged","from":0,"to":1,"cause":"swipe","t":0.576}"#,
        ])
    }

    /// evemu 1.2 and older wrote each event's absolute kernel time
    /// (`E: 1357751027.090934 …`); `vitrine touch replay` refused them as out of
    /// range. The same swipe with such times replays exactly as with times from zero.
    @Test func aRecordingWithAbsoluteEpochTimesReplaysAsOneFromZero() throws {
        let epoch = try Recordings.replay("b-swipe-left.epoch-times.evemu")
        #expect(epoch.map(\.description) == (try Recordings.replay("b-swipe-left.evemu")).map(\.description))
        #expect(epoch.count == 4)
    }

    @Test func swipeRightPagesToThePrevious() throws {
        // From slide 0 the previous slide is the last: the playlist loops.
        let lines = try Recordings.replay("b-swipe-right.evemu")
        expectSwipe(lines[...], from: 0, to: 4, direction: "previous")
        #expect(lines.first?["t"] == "0.016")
        #expect(lines.last?["t"] == "0.576")
    }

    @Test func singleTouchSwipeRight() throws {
        let lines = try Recordings.replay("st-swipe-right.evemu")
        expectSwipe(lines[...], from: 0, to: 4, direction: "previous")
        #expect(lines.first?["t"] == "0.016")
        #expect(lines.dropFirst().first?["t"] == "0.208")
    }

    @Test func slowShortDragSnapsBack() throws {
        // -304.8 px (15.9% of the width) at ~98 mm/s: neither far nor fast enough.
        let lines = try Recordings.replay("b-slow-drag.evemu")
        try #require(lines.map(\.event) == ["dragStart", "dragEnd"], "\(lines)")
        #expect(lines[0]["slide"] == "0")
        // The drag starts once the finger is beyond the 37.5 px slop: the fourth move (-46.9 px).
        #expect(lines[0]["t"] == "0.064")
        #expect(lines[1]["slide"] == "0")
        #expect(lines[1]["paged"] == "false")
        #expect(lines[1]["t"] == "0.432")
        #expect(!lines.contains { $0.event == "pageChanged" || $0.event == "swipe" })
    }

    @Test func fastShortFlickPages() throws {
        // -150 px only (7.8% of the width) but ~2500 px/s, over the 1125 px/s flick speed.
        let lines = try Recordings.replay("b-flick.evemu")
        expectSwipe(lines[...], from: 0, to: 1, direction: "next")
        // -18.8 px after 12 ms is within the slop; -65.6 px after 24 ms is not.
        #expect(lines.first?["t"] == "0.024")
        #expect(lines.dropFirst().first?["t"] == "0.06")
    }

    @Test func verticalDragNeitherPagesNorTaps() throws {
        // 394 px down at 2050 px/s, 2.8 px across: nothing; then the control tap, still on slide 0.
        let lines = try Recordings.replay("b-vertical-drag.evemu")
        try #require(lines.map(\.event) == ["tap"], "\(lines)")
        let tap = Panel.b(1024, 576)
        expectTap(lines[0], slide: 0, x: tap.x, y: tap.y)
        #expect(lines[0]["t"] == "0.68")
    }

    // MARK: Two fingers

    @Test func protocolBSecondFingerComesAndGoes() throws {
        // The second finger sweeps right while the first swipes left: only the first counts.
        let lines = try Recordings.replay("b-second-finger.evemu")
        expectSwipe(lines[...], from: 0, to: 1, direction: "next")
        #expect(lines.first?["t"] == "0.016")
        #expect(lines.dropFirst().first?["t"] == "0.24")
    }

    @Test func protocolASecondFingerComesAndGoes() throws {
        // The second finger is listed first in its frames; the first still drives.
        let lines = try Recordings.replay("a-second-finger.evemu")
        expectSwipe(lines[...], from: 0, to: 4, direction: "previous")
        #expect(lines.first?["t"] == "0.012")
        #expect(lines.dropFirst().first?["t"] == "0.192")
    }

    @Test func protocolBFirstFingerLiftsFirst() throws {
        // The first finger's touch ends when it lifts (a tap: 100 ms, unmoved); the
        // second finger's 750 px swipe does nothing; a fresh touch taps normally.
        let lines = try Recordings.replay("b-first-finger-lifts-first.evemu")
        try #require(lines.map(\.event) == ["tap", "tap"], "\(lines)")
        let first = Panel.b(1200, 900), fresh = Panel.b(2400, 1600)
        expectTap(lines[0], slide: 0, x: first.x, y: first.y)
        #expect(lines[0]["t"] == "0.1")
        expectTap(lines[1], slide: 0, x: fresh.x, y: fresh.y)
        #expect(lines[1]["t"] == "0.79")
    }

    /// Protocol A has no identities, but when one of two contacts goes and the one
    /// left is 800 px from where the driving finger was 12 ms before, the driving
    /// finger is the one that lifted: the same outcome as protocol B.
    @Test func protocolAFirstFingerLiftsFirst() throws {
        let lines = try Recordings.replay("a-first-finger-lifts-first.evemu")
        #expect(lines.map(\.event) == ["tap", "tap"], "\(lines)")
        guard lines.map(\.event) == ["tap", "tap"] else { return }
        expectTap(lines[0], slide: 0, x: 800, y: 600)
        #expect(lines[0]["t"] == "0.096")
        expectTap(lines[1], slide: 0, x: 960, y: 540)
    }

    // MARK: SYN_DROPPED

    @Test func synDroppedCancelsTheTouch() throws {
        // Dropped mid-drag: the drag ends unpaged at the drop, the finger's later
        // 1125 px of travel and its lift decide nothing, and a fresh touch taps.
        let lines = try Recordings.replay("b-syn-dropped.evemu")
        try #require(lines.map(\.event) == ["dragStart", "dragEnd", "tap"], "\(lines)")
        #expect(lines[0]["slide"] == "0")
        #expect(lines[1]["slide"] == "0")
        #expect(lines[1]["paged"] == "false")
        #expect(lines[1]["t"] == "0.072")
        let tap = Panel.b(2048, 1152)
        expectTap(lines[2], slide: 0, x: tap.x, y: tap.y)
        #expect(lines[2]["t"] == "0.68")
    }

    /// After a SYN_DROPPED whose gap swallowed the lift, the next touch is an
    /// ordinary one and taps, whether libevdev's sync reported the lift
    /// (`lift-synced`: slot 0's tracking ID -1, BTN_TOUCH 0, SYN_REPORT) or the
    /// raw recording lost it (`lift-lost`: the next touch arrives with a new
    /// tracking ID in the slot, which says the old contact is gone).
    @Test(arguments: ["b-syn-dropped-lift-synced.evemu", "b-syn-dropped-lift-lost.evemu"])
    func synDroppedWithTheLiftInTheGap(recording: String) throws {
        let lines = try Recordings.replay(recording)
        #expect(lines.map(\.event) == ["dragStart", "dragEnd", "tap", "tap"], "\(lines)")
        guard lines.map(\.event) == ["dragStart", "dragEnd", "tap", "tap"] else { return }
        #expect(lines[1]["paged"] == "false")
        let first = Panel.b(2048, 1152), second = Panel.b(1024, 576)
        expectTap(lines[2], slide: 0, x: first.x, y: first.y)
        expectTap(lines[3], slide: 0, x: second.x, y: second.y)
    }

    // MARK: Absolute pointer

    @Test func qemuTabletClickAndDrag() throws {
        // Hovering does nothing; a click taps; a drag with the button down swipes.
        let lines = try Recordings.replay("qemu-tablet.evemu")
        try #require(lines.map(\.event) == ["tap", "dragStart", "dragEnd", "swipe", "pageChanged"], "\(lines)")
        let click = Panel.tablet(16384, 16384)
        expectTap(lines[0], slide: 0, x: click.x, y: click.y)
        #expect(lines[0]["t"] == "0.29")
        expectSwipe(lines[1...], from: 0, to: 1, direction: "next")
        #expect(lines[1]["t"] == "0.816")
        #expect(lines[2]["t"] == "0.976")
    }

    // MARK: The replay itself

    @Test func replayIsDeterministic() throws {
        let recording = try Recordings.load("b-second-finger.evemu")
        #expect(try TouchReplay().run(recording) == TouchReplay().run(recording))
    }

    @Test func slideCountAndLoopFollowTheReplaySettings() throws {
        // With three slides, the previous of slide 0 is slide 2.
        let lines = try TouchReplay(slideCount: 3).run(Recordings.load("st-swipe-right.evemu"))
        expectSwipe(lines[...], from: 0, to: 2, direction: "previous")
    }
}
