import Foundation
import Glibc
import PictureTestSupport
import Testing
import VitrineConfig
import VitrineCore
import VitrineRuntime
import VitrineSystem
@testable import VitrineSandbox
import VitrineSandboxHelper

/// Video slides played from `vitrine-video` helpers, on clips `ffmpeg` makes now.
@Suite(.serialized) struct SandboxedVideoTests {
    /// The `vitrine-video` built beside this test runner.
    static var helper: String {
        URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent().appendingPathComponent("vitrine-video").path
    }

    static let opener = SandboxedVideoOpener(executable: helper)

    private func open(_ path: String, length: VideoLength = .wholeVideo, maxPixels: Int = 8_000_000, maxBitsPerSecond: Int? = nil,
                      opener: SandboxedVideoOpener = opener) throws(SlideError) -> SandboxedVideo {
        var request = SlideRequest(file: "clip", resolvedPath: path, fit: .contain, background: RGBAColor(red: 0, green: 0, blue: 0),
                                   output: PixelSize(width: 320, height: 240), maxPixels: maxPixels)
        request.videoLength = length
        request.maxVideoBitsPerSecond = maxBitsPerSecond
        let descriptor = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        defer { close(descriptor) }
        return try opener.open(request, descriptor: descriptor, posterStorage: nil) as! SandboxedVideo
    }

    @Test func framesAtKnownInstantsCarryTheirNumbers() throws {
        let clip = try NumberedClip(codec: .h264, framesPerSecond: 25, seconds: 2)
        defer { clip.remove() }
        let video = try open(clip.path)
        #expect(video.info.codec == "h264")
        #expect(video.length.map { abs(Double($0.nanoseconds) / 1e9 - 2) < 0.05 } == true)
        #expect(NumberedClip.number(in: video.poster) == 0)
        for (seconds, expected) in [(0.5, 12), (0.52, 13), (1.0, 25), (1.97, 49)] {
            let frame = video.frameNow(at: .milliseconds(Int64(seconds * 1000)))
            #expect(NumberedClip.number(in: frame) == expected, "at \(seconds) s")
        }
        #expect(video.failure == nil)
    }

    /// A phone's video filmed held upright is stored on its side: the helper
    /// turns each frame upright, and the poster and frames show it so,
    /// pillarboxed on a landscape screen.
    @Test func aPhonesUprightVideoPlaysUpright() throws {
        let clip = try NumberedClip(codec: .h264, framesPerSecond: 25, seconds: 1)
        defer { clip.remove() }
        let turned = try turnedCopy(ofClip: clip.path, counterClockwise: 270)
        defer { try? FileManager.default.removeItem(atPath: turned) }
        let video = try open(turned)
        #expect(video.info.orientation == .right)
        #expect(video.info.displaySize == PixelSize(width: 240, height: 320))
        // 240x320 upright on 320x240: 180x240 in the middle, its bars now rows,
        // read once the picture is turned back.
        let pillar = PixelRect(x: 70, y: 0, width: 180, height: 240)
        func number(in frame: PixelImage) -> Int {
            let upright = PixelImage(size: pillar.size)
            upright.canvas.copyPixels(from: frame.canvas.cropped(to: pillar))
            return NumberedClip.number(in: ExifOrientation.left.uprighted(upright))
        }
        #expect(number(in: video.poster) == 0)
        #expect(video.poster[10, 120] == 0xFF00_0000 && video.poster[310, 120] == 0xFF00_0000)
        let frame = video.frameNow(at: .milliseconds(500))
        #expect(number(in: frame) == 12)
        #expect(video.failure == nil)
    }

    /// `decode.maxVideoBitrate`: a video over it fails to open, naming the
    /// setting and both figures; the push check and an upload say the same.
    @Test func aVideoOverTheBitrateLimitIsRefusedNamingTheSetting() throws {
        let clip = try NumberedClip(codec: .h264, framesPerSecond: 25, seconds: 1)
        defer { clip.remove() }
        let bitRate = try #require(try open(clip.path).info.bitRate)
        let error = #expect(throws: SlideError.self) { try open(clip.path, maxBitsPerSecond: bitRate - 1) }
        let reason = error?.reasonDescription ?? ""
        #expect(reason.contains("over decode.maxVideoBitrate") && reason.contains("Mbit/s"), "\(reason)")
        #expect(try open(clip.path, maxBitsPerSecond: bitRate).failure == nil)
        let inspector = SandboxedPictureInspector(pool: SandboxFixtures.pool(), videos: Self.opener)
        let problem = inspector.videoProblem(file: clip.path, maxPixels: 8_000_000, maxVideoBitsPerSecond: bitRate - 1)
        #expect(problem?.contains("over decode.maxVideoBitrate") == true, "\(problem ?? "none")")
        #expect(inspector.videoProblem(file: clip.path, maxPixels: 8_000_000, maxVideoBitsPerSecond: bitRate) == nil)
        #expect(throws: ImageInspection.Failure.overBitrateLimit(reason)) {
            try inspector.inspectVideo(file: clip.path, maxPixels: 8_000_000, maxVideoBitsPerSecond: bitRate - 1)
        }
    }

    @Test func theDisplayNeverWaitsAndFramesFollowTheClock() throws {
        let clip = try NumberedClip(codec: .vp9, framesPerSecond: 30, seconds: 1)
        defer { clip.remove() }
        let video = try open(clip.path)
        // A 60 Hz loop for 1.2 s of real time: each refresh takes what is on hand.
        let start = ContinuousClock.now
        var numbers: [Int] = []
        for refresh in 0..<72 {
            let time = Duration.nanoseconds(Int64(refresh) * 16_666_667)
            let asked = ContinuousClock.now
            let frame = video.frame(at: time)
            // Never waits for the decoder: well under a refresh even on a busy machine.
            #expect(ContinuousClock.now - asked < .milliseconds(50))
            numbers.append(NumberedClip.number(in: frame))
            let next = start + time + .nanoseconds(16_666_667)
            if next > ContinuousClock.now { Thread.sleep(forTimeInterval: Double((next - ContinuousClock.now).components.attoseconds) / 1e18) }
        }
        // The numbers never go back, reach the last frame, and the summary accounts for every frame.
        #expect(numbers == numbers.sorted())
        #expect(numbers.last == 29)
        let pacing = video.pacing
        #expect(pacing.shown + pacing.droppedLate + pacing.droppedByDesign == 30)
        #expect(pacing.droppedByDesign == 0)
    }

    @Test func aLoopPlaysPassAfterPassAndAReplayStartsAgain() throws {
        let clip = try NumberedClip(codec: .h264, framesPerSecond: 25, seconds: 1)
        defer { clip.remove() }
        let video = try open(clip.path, length: .loop(for: .seconds(3)))
        #expect(video.length == .seconds(3))
        #expect(NumberedClip.number(in: video.frameNow(at: .milliseconds(980))) == 24)
        // The second pass starts where the first one's last frame ended, at 1 s.
        #expect(NumberedClip.number(in: video.frameNow(at: .milliseconds(1010))) == 0)
        #expect(NumberedClip.number(in: video.frameNow(at: .milliseconds(2500))) == 12)
        // The slide shown again: from the first frame.
        #expect(NumberedClip.number(in: video.frameNow(at: .milliseconds(90))) == 2)
    }

    /// One video alone in a playlist loops without end, as its requests say (`SlideFrames.slideRequests`).
    @Test func anEndlessVideoLoopsAndHasNoLength() throws {
        let clip = try NumberedClip(codec: .h264, framesPerSecond: 25, seconds: 1)
        defer { clip.remove() }
        let video = try open(clip.path, length: .endless)
        #expect(video.length == nil)
        #expect(NumberedClip.number(in: video.frameNow(at: .milliseconds(3500))) == 12)
        #expect(NumberedClip.number(in: video.frameNow(at: .milliseconds(9980))) == 24)
        #expect(video.length == nil && video.failure == nil)
        var configuration = KioskConfiguration()
        configuration.slides = [SlideConfiguration(path: "clip.mp4")]
        #expect(configuration.slideRequests(output: PixelSize(width: 320, height: 240)).map(\.videoLength) == [.endless])
        configuration.slides = [SlideConfiguration(path: "a.mp4"), SlideConfiguration(path: "b.mp4", duration: .seconds(4))]
        #expect(configuration.slideRequests(output: PixelSize(width: 320, height: 240)).map(\.videoLength) == [.wholeVideo, .stop(after: .seconds(4))])
    }

    /// A video downloaded from a URL is inspected in a video helper from the file it was staged in, as an upload is.
    @Test func aDownloadedVideoIsInspectedFromItsStagedFileInAHelper() throws {
        let clip = try NumberedClip(codec: .vp9, framesPerSecond: 25, seconds: 0.4)
        defer { clip.remove() }
        let inspector = SandboxedPictureInspector(pool: SandboxFixtures.pool(), videos: Self.opener)
        let bytes = try FileIO.read(clip.path)
        let inspected = try SandboxFixtures.inspectDownload(bytes, named: "http://example.test/promo.webm", maxPixels: 8_000_000, with: inspector)
        #expect(inspected.kind == .webm && inspected.size == PixelSize(width: 320, height: 240))
        let over = #expect(throws: ImageInspection.Failure.self) {
            try SandboxFixtures.inspectDownload(bytes, named: "http://example.test/promo.webm", maxPixels: 320 * 240 - 1, with: inspector)
        }
        guard case .overPixelLimit = over else { Issue.record("\(String(describing: over))"); return }
        // Cut short before its first frame: refused, naming why.
        #expect(throws: ImageInspection.Failure.self) {
            try SandboxFixtures.inspectDownload(Array(bytes.prefix(200)), named: "http://example.test/cut.webm", maxPixels: 8_000_000, with: inspector)
        }
    }

    @Test func aStoppedHelperEndsTheVideoOnItsLastFrame() throws {
        let clip = try NumberedClip(codec: .h264, framesPerSecond: 25, seconds: 2)
        defer { clip.remove() }
        let video = try open(clip.path)
        let before = NumberedClip.number(in: video.frameNow(at: .milliseconds(200)))
        kill(video.helperID, SIGKILL)
        // Whatever was decoded plays out; then the video stands on its last frame and says why.
        let after = video.frameNow(at: .milliseconds(1900))
        #expect(NumberedClip.number(in: after) >= before)
        #expect(video.failure?.contains("stopped") == true, "\(video.failure ?? "no failure")")
    }

    /// A failure ends one playback, not the slide: shown again, it plays from a fresh helper.
    @Test func aFailedVideoPlaysAgainInAFreshHelperOnItsNextPlayback() throws {
        let clip = try NumberedClip(codec: .h264, framesPerSecond: 25, seconds: 2)
        defer { clip.remove() }
        let video = try open(clip.path)
        _ = video.frameNow(at: .milliseconds(1000))
        let first = video.helperID
        kill(first, SIGKILL)
        _ = video.frameNow(at: .milliseconds(1900))
        #expect(video.failure != nil)
        // The slide comes round again: from its first frames, in another process, with no failure.
        #expect(NumberedClip.number(in: video.frameNow(at: .milliseconds(90))) == 2)
        #expect(NumberedClip.number(in: video.frameNow(at: .milliseconds(1500))) == 37)
        #expect(video.failure == nil, "\(video.failure ?? "")")
        #expect(video.helperID != first)
        #expect(kill(first, 0) != 0, "the killed helper is reaped")
    }

    /// A looping video may be the only slide, never paged away from: a failure
    /// pauses it (5 s the first time), then it goes on from there in a fresh helper.
    @Test func aLoopingVideoGoesOnInAFreshHelperAfterAFailure() throws {
        let clip = try NumberedClip(codec: .h264, framesPerSecond: 25, seconds: 1)
        defer { clip.remove() }
        let video = try open(clip.path, length: .loop(for: .seconds(60)))
        #expect(NumberedClip.number(in: video.frameNow(at: .milliseconds(500))) == 12)
        let first = video.helperID
        kill(first, SIGKILL)
        _ = video.frameNow(at: .milliseconds(1900))
        #expect(video.failure != nil)
        // Before the pause is over it stands still, saying why.
        _ = video.frameNow(at: .milliseconds(6000))
        #expect(video.failure != nil)
        // 5 s after the failure was seen (at 1.9 s), a new pass begins where the slide is.
        #expect(NumberedClip.number(in: video.frameNow(at: .milliseconds(7000))) == 0)
        #expect(NumberedClip.number(in: video.frameNow(at: .milliseconds(7500))) == 12)
        #expect(video.failure == nil, "\(video.failure ?? "")")
        #expect(video.helperID != first)
    }

    /// RLIMIT_CPU counts over a helper's whole life: a video that loops for
    /// hours would reach it. Here the backstop is 1 s, and the helper is
    /// replaced at a rewind once it has used half, before the kernel ends it.
    @Test func aHelperNearItsCPUBackstopIsReplacedAtARewind() throws {
        let clip = try NumberedClip(codec: .h264, framesPerSecond: 25, seconds: 1)
        defer { clip.remove() }
        let thrifty = SandboxedVideoOpener(executable: Self.helper, limits: HelperLimits(addressSpaceMiB: 1024, cpuSeconds: 1, deadline: .seconds(10)))
        let video = try open(clip.path, length: .loop(for: .seconds(3600)), opener: thrifty)
        let first = video.helperID
        var time = Duration.zero
        while video.helperID == first, video.failure == nil, time < .seconds(1800) {
            time += .milliseconds(200)
            _ = video.frameNow(at: time)
        }
        #expect(video.helperID != first, "no new helper in \(time)")
        #expect(video.failure == nil, "\(video.failure ?? "")")
        // The loop goes on in the new helper, on time.
        let later = time + .seconds(2) + .milliseconds(500)
        let expected = Int((Double(later.nanoseconds) / 1e9).truncatingRemainder(dividingBy: 1) * 25)
        #expect(NumberedClip.number(in: video.frameNow(at: later)) == expected)
        #expect(video.failure == nil)
    }

    /// Once the last frame is decoded, the slide's length is where that frame ends.
    @Test func theLengthIsTheLastFramesEndOnceItIsKnown() throws {
        let clip = try NumberedClip(codec: .h264, framesPerSecond: 25, seconds: 2)
        defer { clip.remove() }
        let video = try open(clip.path)
        #expect(video.played == .zero)
        _ = video.frameNow(at: .milliseconds(1000))
        #expect(video.played == .milliseconds(1040), "frame 25 is on screen until 1.04 s")
        _ = video.frameNow(at: .milliseconds(2500))
        #expect(video.length == .seconds(2))
        #expect(video.played == .seconds(2), "all of it played, though the slide stayed longer")
    }

    @Test func badFilesAreRefusedWithTheirReason() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-video-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        // An MP4's signature, then nothing a demuxer can read.
        let garbage = directory.appendingPathComponent("garbage.mp4").path
        try Data([0, 0, 0, 24] + Array("ftypisom".utf8) + [UInt8](repeating: 0xAB, count: 4000)).write(to: URL(fileURLWithPath: garbage))
        #expect(throws: SlideError.self) { try open(garbage) }

        let clip = try NumberedClip(codec: .h264, framesPerSecond: 25, seconds: 0.2)
        defer { clip.remove() }
        do {
            _ = try open(clip.path, maxPixels: 10_000)
            Issue.record("a picture over the limit was opened")
        } catch {
            #expect(error.description.contains("decode.maxPixels"), "\(error)")
            #expect(error.file == "clip")
        }
        let missing = SandboxedVideoOpener(executable: nil)
        do {
            _ = try open(clip.path, opener: missing)
            Issue.record("a video opened with no helper")
        } catch {
            #expect(error.description.contains("vitrine-video"))
        }
    }

    @Test func renderShowsTheVideoFrameOfItsInstant() throws {
        let clip = try NumberedClip(codec: .h264, framesPerSecond: 25, seconds: 2)
        defer { clip.remove() }
        let yaml = """
            interval: 1s
            output: {width: 320, height: 240}
            transition: {type: slide, duration: 500ms}
            slides:
              - \(SandboxFixtures.path("deploy/demo/images/01-welcome.jpg"))
              - \(clip.path)
            """
        let configuration = try ConfigLoader.parse(yaml)
        let renderer = FrameRenderer(configuration: configuration, decoder: InProcessSlideDecoder(videos: Self.opener))
        // Slide 0 rests until 1 s, the video comes in until 1.5 s, then plays 2 s (it stays as long as it lasts).
        for (seconds, expected) in [(1.5, 0), (2.0, 12), (3.2, 42), (3.45, 48)] {
            let (frame, failures) = renderer.render(at: seconds)
            #expect(failures.isEmpty)
            #expect(NumberedClip.number(in: frame) == expected, "at \(seconds) s")
        }
        // After the video, the first slide again (loop), sliding in from 3.5 s: at 4.0 s it is at rest, no bars.
        let (after, _) = renderer.render(at: 4.1)
        let welcome = renderer.render(at: 0.5).frame
        #expect(difference(after, welcome).pixels == 0)
    }
}

/// A video slide through the frame store, as the display loop draws it.
@Suite struct VideoSlideStoreTests {
    /// The loop chooses the frame once a turn (`drawnScene`, at the turn's time) and
    /// draws the drawn scene, whose time is the frame's; drawing must not choose again
    /// with that earlier time, which once restarted a video that had ended.
    @Test func drawingTheDrawnSceneNeverRestartsTheVideo() throws {
        let clip = try NumberedClip(codec: .h264, framesPerSecond: 25, seconds: 2)
        defer { clip.remove() }
        let request = SlideRequest(file: "clip", resolvedPath: clip.path, fit: .contain, background: RGBAColor(red: 0, green: 0, blue: 0),
                                   output: PixelSize(width: 320, height: 240), maxPixels: 8_000_000)
        let store = SlideFrameStore(slides: [request], placeholder: nil, capacity: 2,
                                    decoder: InProcessSlideDecoder(videos: SandboxedVideoTests.opener), onChange: {})
        store.request([0])
        store.waitUntilIdle()
        let video = try #require(store.video(of: 0))
        var numbers: [Int] = []
        for step in 0...175 {
            let time = Duration.milliseconds(20 * step)
            _ = video.frameNow(at: time) // decoded ahead, so that the turn below has its frame on hand
            let drawn = store.drawnScene(Scene(layers: [Scene.Layer(content: .slide(0), playback: LayerPlayback(elapsed: time))], indicator: nil))
            let picture = try #require(store.picture(for: drawn.layers[0]))
            numbers.append(NumberedClip.number(in: picture.frame))
        }
        // Every frame in order, then the last one stays after the video's end at 2 s.
        #expect(numbers == numbers.sorted())
        #expect(Set(numbers) == Set(0..<50))
        #expect(numbers.suffix(70).allSatisfy { $0 == 49 })
        #expect(video.pacing.shown == 50)
    }

    /// However many pictures the cache keeps, only the videos in the wanted
    /// window hold a helper: one paged past is let go, and opened again when wanted.
    @Test func onlyTheWantedVideosHoldAHelper() throws {
        let clips = try (0..<4).map { _ in try NumberedClip(codec: .h264, framesPerSecond: 25, seconds: 0.4) }
        defer { clips.forEach { $0.remove() } }
        let requests = clips.map {
            SlideRequest(file: "clip", resolvedPath: $0.path, fit: .contain, background: RGBAColor(red: 0, green: 0, blue: 0),
                         output: PixelSize(width: 320, height: 240), maxPixels: 8_000_000)
        }
        let store = SlideFrameStore(slides: requests, placeholder: nil, capacity: 64,
                                    decoder: InProcessSlideDecoder(videos: SandboxedVideoTests.opener), onChange: {})
        store.request([0, 1, 3])
        store.waitUntilIdle()
        #expect(Set(store.residentVideos.keys) == [0, 1, 3])
        let helper = try #require(store.video(of: 0) as? SandboxedVideo).helperID
        // On screen (a transition from it that spans pages), it stays though no longer wanted.
        _ = store.drawnScene(Scene(layers: [Scene.Layer(content: .slide(3)), Scene.Layer(content: .slide(1))], indicator: nil))
        store.request([1, 2, 0])
        store.waitUntilIdle()
        #expect(Set(store.residentVideos.keys) == [0, 1, 2, 3])
        _ = store.drawnScene(Scene(layers: [Scene.Layer(content: .slide(1))], indicator: nil))
        store.request([1, 2, 0])
        store.waitUntilIdle()
        #expect(Set(store.residentVideos.keys) == [0, 1, 2])
        guard case .absent = store.state(of: 3) else { Issue.record("slide 3's poster stayed without its helper"); return }
        store.request([2, 3, 1])
        store.waitUntilIdle()
        #expect(Set(store.residentVideos.keys) == [1, 2, 3])
        guard case .ready = store.state(of: 3) else { Issue.record("slide 3 was not opened again"); return }
        // The helper of a video let go is killed and reaped (on the reaper thread).
        var reaped = false
        for _ in 0..<100 where !reaped {
            reaped = kill(helper, 0) != 0
            if !reaped { usleep(10_000) }
        }
        #expect(reaped)
    }
}
