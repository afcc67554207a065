import Glibc
import Testing
import VitrineCore
import VitrineGIF
@testable import VitrineRuntime
import VitrineSystem
import VitrineWebP

/// Animated GIF and WebP slides: every frame composed as the format says,
/// stored within the budget, and played at the slide's playback.
@Suite("Animated slides")
struct AnimatedSlideTests {
    static let fixtures = repositoryRoot + "/Tests/VitrineRuntimeTests/AnimationFixtures"

    private func frames(_ name: String) throws -> (canvases: [[UInt32]], durations: [Duration], plays: Int?) {
        let bytes = try FileIO.read(Self.fixtures + "/" + name)
        var canvases: [[UInt32]] = [], durations: [Duration] = []
        let plays = try bytes.withUnsafeBytes { raw throws -> Int? in
            let keep = { (canvas: PixelImage, duration: Duration) -> Bool in
                canvases.append(Array(canvas.pixels))
                durations.append(duration)
                return true
            }
            if name.hasSuffix(".gif") {
                return try GIFDecoder.decodeAnimation(raw, maxPixels: 1 << 20, decoderByteLimit: 1 << 24, frame: keep).plays
            }
            return try WebPDecoder.decodeAnimation(raw, maxPixels: 1 << 20, decoderByteLimit: 1 << 24, frame: keep).plays
        }
        return (canvases, durations, plays)
    }

    @Test func theGIFsFramesAreComposedAsLibwebpComposesTheSameAnimation() throws {
        let gif = try frames("disposal.gif")
        let webp = try frames("disposal.webp")
        #expect(gif.canvases.count == 5)
        #expect(webp.canvases.count == 5)
        // gif2webp's translation of the same animation, composed by libwebp: pixel for pixel.
        for index in 0..<min(gif.canvases.count, webp.canvases.count) {
            let differing = zip(gif.canvases[index], webp.canvases[index]).filter { $0 != $1 }.count
            #expect(differing == 0, "frame \(index): \(differing) pixels differ")
        }
        #expect(gif.durations == [.milliseconds(120), .milliseconds(80), .zero, .milliseconds(200), .milliseconds(150)])
        // gif2webp writes the 0 ms frame as 100 ms, the duration both are shown for.
        #expect(webp.durations.map(AnimationTimeline.shownDuration) == gif.durations.map(AnimationTimeline.shownDuration))
        // The GIF's loop count 3 repeats after the first play: 4 plays, as gif2webp writes it.
        #expect(gif.plays == 4)
        #expect(webp.plays == 4)
        // Frame 1's disposal clears the whole screen to black before frame 2,
        // which draws only its 17x15 rectangle at (6, 8): a green bar at 15...22.
        let width = 48
        #expect(gif.canvases[2][1 * width + 1] == 0xFF00_0000)
        #expect(gif.canvases[2][10 * width + 16] == 0xFF1E_C81E)
        #expect(gif.canvases[2][22 * width + 7] == 0xFF5A_5A5A)
        // Frame 2's "previous" puts that screen back before frame 3 draws.
        #expect(gif.canvases[3][1 * width + 1] == 0xFF00_0000)
        #expect(gif.canvases[3][10 * width + 25] == 0xFF1E_1EC8)
    }

    @Test func aCutGIFPlaysItsWholeFramesAndAFirstFrameCutIsRefused() throws {
        let bytes = try FileIO.read(Self.fixtures + "/disposal.gif")
        let whole = try bytes.withUnsafeBytes { try GIFDecoder.frameCount($0) }
        #expect(whole == 5)
        var sawFewer = false
        var refused = 0
        for cut in stride(from: bytes.count - 1, to: 20, by: -97) {
            let part = Array(bytes.prefix(cut))
            do {
                var shown = 0
                let info = try part.withUnsafeBytes {
                    try GIFDecoder.decodeAnimation($0, maxPixels: 1 << 20, decoderByteLimit: 1 << 24) { _, _ in shown += 1; return true }
                }
                #expect(info.frameCount == shown)
                #expect(shown >= 1 && shown <= 5)
                if shown < 5 { sawFewer = true }
            } catch {
                // Only a cut before the first frame is whole is refused (inside the
                // 781-byte header and colour table giflib reports it as damage).
                #expect(error is GIFError)
                refused = max(refused, cut)
            }
        }
        #expect(sawFewer)
        // The first frame (the 48x32 picture, about 1.1 KB compressed) is whole by 2 KB.
        #expect(refused < 2000)
    }

    private func request(_ name: String, output: PixelSize = PixelSize(width: 96, height: 64)) -> SlideRequest {
        SlideRequest(file: name, resolvedPath: Self.fixtures + "/" + name, fit: .contain, background: .black, output: output,
                     maxPixels: 1 << 24)
    }

    @Test(arguments: ["disposal.gif", "disposal.webp"])
    func theStorePlaysTheFrameOfThePlayback(name: String) throws {
        let store = SlideFrameStore(slides: [request(name)], placeholder: nil, capacity: 2, decoder: InProcessSlideDecoder(), onChange: {})
        store.request([0])
        store.waitUntilIdle()
        let animation = try #require(store.animation(of: 0))
        #expect(animation.timeline.frameDurations == [.milliseconds(120), .milliseconds(80), .milliseconds(100), .milliseconds(200), .milliseconds(150)])
        let first = try #require(store.frame(of: 0))

        // What each frame looks like framed, made here the way the store frames it.
        let reference = try FileIO.read(Self.fixtures + "/" + name)
        let expected = try #require(try SlideDecoding.animation(reference, request: request(name)))
        func framed(_ index: Int) -> [UInt32] {
            let image = PixelImage(size: PixelSize(width: 96, height: 64))
            SlideFramer.frame(decoded: expected.frames[index], orientation: .up, fit: .contain, background: .black, into: image.canvas)
            return Array(image.pixels)
        }

        func layer(_ ms: Int64, held: Bool = false) -> Scene.Layer {
            Scene.Layer(content: .slide(0), playback: LayerPlayback(elapsed: .milliseconds(ms), isHeld: held))
        }
        // The first frame is the still; a finger holds it whatever the playback.
        #expect(store.frame(for: layer(50)) === first)
        #expect(store.frame(for: layer(250, held: true)) === first)
        // 250 ms is frame 2: framed on the animation queue, shown once ready.
        _ = store.frame(for: layer(250))
        var shown: PixelImage?
        for _ in 0..<200 {
            shown = store.frame(for: layer(250))
            if shown !== first { break }
            usleep(5_000)
        }
        #expect(shown.map { Array($0.pixels) } == framed(2))
        #expect(Array(first.pixels) == framed(0))
        #expect(animation.framedCount <= SlideAnimation.keptFramed)

        // The drawn scene changes only when the frame does, and the loop wakes for the next one.
        let scene = Scene(layers: [layer(130)], indicator: nil)
        #expect(store.drawnScene(scene) == store.drawnScene(Scene(layers: [layer(190)], indicator: nil)))
        #expect(store.drawnScene(scene) != store.drawnScene(Scene(layers: [layer(210)], indicator: nil)))
        #expect(store.nextMotionChange(in: scene, at: .zero) == MonotonicInstant.zero + .milliseconds(70))
        #expect(store.nextMotionChange(in: Scene(layers: [layer(130, held: true)], indicator: nil), at: .zero) == nil)
    }

    /// An animated slide with Ken Burns pans and zooms over its playing frames:
    /// the rectangle moves with the playback and the frame under it changes
    /// with the animation's timing.
    @Test func aKenBurnsSlidePansOverItsPlayingFrames() throws {
        var kenBurns = request("disposal.gif")
        kenBurns = SlideRequest(file: kenBurns.file, resolvedPath: kenBurns.resolvedPath, fit: kenBurns.fit, background: kenBurns.background,
                                output: kenBurns.output, maxPixels: kenBurns.maxPixels, kenBurns: KenBurnsRuntimeTests.motion)
        let store = SlideFrameStore(slides: [kenBurns], placeholder: nil, capacity: 2, decoder: InProcessSlideDecoder(), onChange: {})
        store.request([0])
        store.waitUntilIdle()
        let still = try #require(store.frame(of: 0))
        #expect(store.animation(of: 0) != nil)
        let playback = LayerPlayback(elapsed: .milliseconds(250))
        let layer = Scene.Layer(content: .slide(0), playback: playback)
        var picture = store.picture(for: layer)
        for _ in 0..<200 where picture?.frame === still {
            usleep(5_000)
            picture = store.picture(for: layer)
        }
        let shown = try #require(picture)
        #expect(shown.frame !== still)
        #expect(shown.frame.size == still.size)
        #expect(shown.region == KenBurnsRuntimeTests.motion.rect(at: playback))
        // The frame under the rectangle is frame 2 of the animation (250 ms), as `vitrine render` frames it.
        let now = try #require(store.pictureNow(for: layer))
        #expect(Array(now.frame.pixels) == Array(shown.frame.pixels))
        #expect(Array(shown.frame.pixels) != Array(still.pixels))
        // Held by a finger: the first frame, and the rectangle where the finger stopped it.
        let held = LayerPlayback(elapsed: .milliseconds(250), isHeld: true)
        #expect(store.picture(for: Scene.Layer(content: .slide(0), playback: held))?.frame === still)
    }

    @Test func aLongAnimationIsStoredSmallerToFitItsBudgetOrPlaysAsAStill() {
        let output = PixelSize(width: 1920, height: 1080)
        let request = SlideRequest(file: "a.gif", resolvedPath: nil, fit: .contain, background: .black, output: output, maxPixels: 1 << 26)
        let canvas = PixelSize(width: 1920, height: 1080)
        // Seven 1080p frames fit in 64 MiB as they are.
        #expect(SlideDecoding.storedFrameSize(canvas: canvas, orientation: .up, frameCount: 7, request: request) == canvas)
        // Thirty are stored at about half the size (64 MiB / 30 frames).
        let thirty = SlideDecoding.storedFrameSize(canvas: canvas, orientation: .up, frameCount: 30, request: request)
        #expect(thirty.map { $0.pixelCount * 4 * 30 <= SlideDecoding.animationByteLimit } == true)
        #expect(thirty.map { $0.width > 900 && $0.width < 1000 } == true)
        // A thousand would need less than a quarter of the size: the slide stays a still.
        #expect(SlideDecoding.storedFrameSize(canvas: canvas, orientation: .up, frameCount: 1000, request: request) == nil)
        // A small canvas is kept at its own size.
        #expect(SlideDecoding.storedFrameSize(canvas: PixelSize(width: 320, height: 240), orientation: .up, frameCount: 100,
                                              request: request) == PixelSize(width: 320, height: 240))
    }
}
