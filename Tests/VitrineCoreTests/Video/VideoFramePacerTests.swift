import Testing
@testable import VitrineCore

/// The cadence of video frames on a screen's refreshes, on virtual time.
@Suite struct VideoFramePacerTests {
    /// Plays `seconds` of `fps` video on a `hertz` screen with every frame
    /// decoded in time; returns how many refreshes each frame was shown for.
    private func play(fps: Int, hertz: Int, seconds: Int = 2, decodedAhead: Int = 4,
                      decodeDelay: (Int) -> Duration = { _ in .zero }) -> (runs: [Int: Int], pacer: VideoFramePacer) {
        var pacer = VideoFramePacer(refreshPeriod: .nanoseconds(1_000_000_000 / Int64(hertz)))
        let timestamps = (0..<(fps * seconds)).map { Duration.nanoseconds(Int64($0) * 1_000_000_000 / Int64(fps)) }
        var next = 0 // the oldest frame not let go
        var runs: [Int: Int] = [:]
        var shown: Int?
        for refresh in 0..<(hertz * seconds) {
            let time = Duration.nanoseconds(Int64(refresh) * 1_000_000_000 / Int64(hertz))
            // Frames on hand: those the decoder has finished by now, a few ahead.
            let waiting = timestamps.indices.filter { $0 >= next && $0 < next + decodedAhead && timestamps[$0] + decodeDelay($0) - .milliseconds(100) <= time }
            if let index = pacer.choose(from: waiting.map { timestamps[$0] }, at: time) {
                shown = waiting[index]
                next = waiting[index]
            }
            if let shown { runs[shown, default: 0] += 1 }
        }
        return (runs, pacer)
    }

    @Test func filmAtTwentyFourOnSixtyHertzIsThreeTwoPulldown() {
        let (runs, pacer) = play(fps: 24, hertz: 60)
        #expect(Set(runs.values) == [2, 3])
        // Alternating: 3, 2, 3, 2...
        for frame in 0..<46 { #expect(runs[frame]! + runs[frame + 1]! == 5, "frames \(frame) and \(frame + 1)") }
        #expect(pacer.summary.late == 0 && pacer.summary.droppedLate == 0 && pacer.summary.droppedByDesign == 0)
        #expect(pacer.summary.shown == 48)
    }

    @Test(arguments: [(25, 50), (30, 60), (50, 50), (60, 60)])
    func evenRatesShowEveryFrameEvenly(fps: Int, hertz: Int) {
        let (runs, pacer) = play(fps: fps, hertz: hertz)
        #expect(Set(runs.values) == [hertz / fps])
        #expect(pacer.summary.shown == fps * 2)
        #expect(pacer.summary.late == 0 && pacer.summary.droppedLate == 0 && pacer.summary.droppedByDesign == 0)
    }

    @Test func twentyFiveOnSixtyHertzAlternatesTwoAndThree() {
        let (runs, pacer) = play(fps: 25, hertz: 60)
        #expect(Set(runs.values) == [2, 3])
        #expect(pacer.summary.shown == 50 && pacer.summary.late == 0 && pacer.summary.droppedByDesign == 0)
    }

    @Test func sixtyOnFiftyHertzDropsOneInSixByDesign() {
        let (runs, pacer) = play(fps: 60, hertz: 50)
        #expect(Set(runs.values) == [1])
        #expect(pacer.summary.droppedByDesign == 20)
        #expect(pacer.summary.shown == 100)
        #expect(pacer.summary.late == 0 && pacer.summary.droppedLate == 0)
    }

    @Test func thirtyOnFiftyHertzNeitherDropsNorComesLate() {
        let (_, pacer) = play(fps: 30, hertz: 50)
        #expect(pacer.summary.shown == 60 && pacer.summary.late == 0 && pacer.summary.droppedByDesign == 0 && pacer.summary.droppedLate == 0)
    }

    @Test func aSlowDecoderIsCountedLateNotByDesign() {
        // Frames 10 to 14 finish 150 ms after they are due (50 ms after the 100 ms head start).
        let (_, pacer) = play(fps: 30, hertz: 60) { frame in (10...14).contains(frame) ? .milliseconds(150) : .zero }
        #expect(pacer.summary.droppedByDesign == 0)
        #expect(pacer.summary.late + pacer.summary.droppedLate >= 4)
        #expect(pacer.summary.late >= 1)
    }

    @Test func nothingDueKeepsTheFrameOnScreen() {
        var pacer = VideoFramePacer(refreshPeriod: .milliseconds(20))
        let notYet = pacer.choose(from: [.milliseconds(100)], at: .milliseconds(50))
        #expect(notYet == nil)
        let due = pacer.choose(from: [.milliseconds(100)], at: .milliseconds(95))
        #expect(due == 0)
        #expect(pacer.summary.shown == 1)
        // The same frame again is not counted twice.
        let again = pacer.choose(from: [.milliseconds(100)], at: .milliseconds(115))
        #expect(again == 0)
        #expect(pacer.summary.shown == 1)
    }
}

/// Loops and cuts of a video slide, in slide time.
@Suite struct VideoLoopTimelineTests {
    @Test func aLoopStartsEachPassWhereTheLastFrameEnded() {
        var timeline = VideoLoopTimeline(length: .loop(for: .seconds(5)), frameRate: 25)
        // A 2 s clip: frames at 0, 40 ms ... 1.96 s; the next pass begins at 2.0 s, with no seam.
        for frame in 0..<50 {
            let time = timeline.slideTime(ofFrameAt: .milliseconds(40 * frame))
            #expect(time == .milliseconds(40 * frame))
        }
        let looped = timeline.passEnded()
        #expect(looped)
        let secondPassStart = timeline.slideTime(ofFrameAt: .zero)
        #expect(secondPassStart == .seconds(2))
        let secondFrame = timeline.slideTime(ofFrameAt: .milliseconds(40))
        #expect(secondFrame == .milliseconds(2040))
        for frame in 2..<50 { _ = timeline.slideTime(ofFrameAt: .milliseconds(40 * frame)) }
        let loopedAgain = timeline.passEnded()
        #expect(loopedAgain)
        #expect(timeline.pass == 3)
        let lastFrame = timeline.slideTime(ofFrameAt: .milliseconds(960))
        #expect(lastFrame == .milliseconds(4960))
        // Past the loop's length, no frame is wanted.
        let pastTheLoop = timeline.slideTime(ofFrameAt: .milliseconds(1000))
        #expect(pastTheLoop == nil)
        #expect(timeline.end(afterFinalPass: false) == .seconds(5))
    }

    @Test func aStopCutsTheVideoAndAWholeVideoEndsAfterItsLastFrame() {
        var cut = VideoLoopTimeline(length: .stop(after: .seconds(1)), frameRate: 30)
        let beforeCut = cut.slideTime(ofFrameAt: .milliseconds(990))
        #expect(beforeCut != nil)
        let afterCut = cut.slideTime(ofFrameAt: .milliseconds(1001))
        #expect(afterCut == nil)
        let cutLoops = cut.passEnded()
        #expect(!cutLoops)

        var whole = VideoLoopTimeline(length: .wholeVideo, frameRate: 25)
        for frame in 0..<25 { _ = whole.slideTime(ofFrameAt: .milliseconds(40 * frame)) }
        let wholeLoops = whole.passEnded()
        #expect(!wholeLoops)
        #expect(whole.end(afterFinalPass: true) == .seconds(1))
        #expect(whole.end(afterFinalPass: false) == nil)
    }

    @Test func slideDurationsFollowTheLength() {
        #expect(VideoLength.wholeVideo.slideDuration(videoDuration: .seconds(12)) == .seconds(12))
        #expect(VideoLength.wholeVideo.slideDuration(videoDuration: nil) == nil)
        #expect(VideoLength.loop(for: .seconds(30)).slideDuration(videoDuration: .seconds(12)) == .seconds(30))
        #expect(VideoLength.stop(after: .seconds(5)).slideDuration(videoDuration: .seconds(12)) == .seconds(5))
        #expect(VideoLength.stop(after: .seconds(20)).slideDuration(videoDuration: .seconds(12)) == .seconds(12))
        // One video alone in a playlist: no length of its own, and it loops without end.
        #expect(VideoLength.endless.slideDuration(videoDuration: .seconds(12)) == nil)
        #expect(VideoLength.endless.loops && VideoLength.endless.cutoff == nil)
    }

    @Test func anEndlessTimelineLoopsForeverAndAFailedPassResumesWhereTheSlideIs() {
        var timeline = VideoLoopTimeline(length: .endless, frameRate: 25)
        for pass in 0..<1000 {
            for frame in 0..<25 {
                let time = timeline.slideTime(ofFrameAt: .milliseconds(40 * frame))
                #expect(time == .seconds(pass) + .milliseconds(40 * frame))
            }
            let another = timeline.passEnded()
            #expect(another)
        }
        #expect(timeline.end(afterFinalPass: false) == nil)
        // A pass cut short at 1000.2 s (its decoder failed), resumed at 1007 s: its frames count from there.
        _ = timeline.slideTime(ofFrameAt: .milliseconds(200))
        timeline.resume(at: .seconds(1007))
        let resumed = timeline.slideTime(ofFrameAt: .zero)
        #expect(resumed == .seconds(1007))
        #expect(timeline.pass == 1002)
    }
}

@Suite struct VideoSignatureTests {
    private func box(_ brand: String) -> [UInt8] { [0, 0, 0, 24] + Array("ftyp".utf8) + Array(brand.utf8) }

    @Test func videosAreToldFromPicturesByTheirFirstBytes() {
        #expect(VideoSignature.isVideo([0x1A, 0x45, 0xDF, 0xA3, 0x01, 0, 0, 0, 0, 0, 0, 0x1F]))
        for brand in ["isom", "mp42", "avc1", "qt  ", "M4V ", "iso5", "dash"] { #expect(VideoSignature.isVideo(box(brand)), "\(brand)") }
        for brand in ["heic", "mif1", "avif", "avis", "msf1"] { #expect(!VideoSignature.isVideo(box(brand)), "\(brand)") }
        #expect(!VideoSignature.isVideo([0xFF, 0xD8, 0xFF, 0xE0]))
        #expect(!VideoSignature.isVideo([UInt8]()))
        #expect(!VideoSignature.isVideo(Array("GIF89a".utf8)))
    }
}
