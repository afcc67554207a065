import Foundation
import Logging
import Testing
import VitrineConfig
import VitrineCore
@testable import VitrineRuntime

/// Ken Burns in the runtime: the finer frame a slide is decoded into, the
/// store's rectangle at each playback, and the real loop drawing at every
/// refresh while the picture moves.
@Suite("Ken Burns in the kiosk")
struct KenBurnsRuntimeTests {
    static let motion = KenBurnsMotion(from: .whole, to: FrameRect(x: 0.2, y: 0.2, width: 0.8, height: 0.8),
                                       duration: .seconds(5), easing: .linear)

    static func request(_ path: String, output: PixelSize, fit: FitMode = .contain, motion: KenBurnsMotion? = Self.motion) -> SlideRequest {
        SlideRequest(file: path, resolvedPath: path, fit: fit, background: RGBAColor(red: 10, green: 20, blue: 30), output: output,
                     maxPixels: 100_000_000, kenBurns: motion)
    }

    @Test func theFrameIsTheZoomFinerButNoFinerThanThePicture() {
        let hd = PixelSize(width: 1920, height: 1080)
        // A 12-megapixel photo has the detail for the whole 1.25x.
        #expect(Self.request("a", output: hd).frameSize(picture: PixelSize(width: 4000, height: 3000)) == PixelSize(width: 2400, height: 1350))
        // A picture with less detail than that: only what it has (2100 / 1920).
        #expect(Self.request("a", output: hd, fit: .cover).frameSize(picture: PixelSize(width: 2100, height: 1181)) == PixelSize(width: 2100, height: 1181))
        // One the screen enlarges anyway, and a still slide: the output's size.
        #expect(Self.request("a", output: hd).frameSize(picture: PixelSize(width: 800, height: 600)) == hd)
        #expect(Self.request("a", output: hd, motion: nil).frameSize(picture: PixelSize(width: 4000, height: 3000)) == hd)
        // At 4K a 2x zoom would take 126 MiB a frame: held to 16 Mi pixels, 1.42x.
        let twice = KenBurnsMotion(from: .whole, to: FrameRect(x: 0, y: 0, width: 0.5, height: 0.5), duration: .seconds(5), easing: .linear)
        let uhd = Self.request("a", output: PixelSize(width: 3840, height: 2160), motion: twice)
        #expect(uhd.isHeadroomLimited && abs(uhd.frameScale - 1.4222) < 0.001)
        let size = uhd.frameSize(picture: PixelSize(width: 8000, height: 4500))
        #expect(size == PixelSize(width: 5461, height: 3072) && size.pixelCount <= SlideRequest.kenBurnsFramePixelLimit)
        #expect(!Self.request("a", output: hd, motion: twice).isHeadroomLimited)
    }

    /// A picture red on its left half and blue on its right, 4:3 on a 16:9
    /// output: the Ken Burns frame is 1.25 times the still one, with the bars
    /// and the picture in the same places as fractions of the frame.
    @Test func aKenBurnsSlideIsFramedLikeAStillOneOnlyFiner() throws {
        let directory = makeTemporaryDirectory()
        defer { removeTemporaryDirectory(directory) }
        let path = try writeJPEG(directory + "/split.jpg", size: PixelSize(width: 1600, height: 1200), splitRedBlue(width: 1600))
        let output = PixelSize(width: 320, height: 180)
        let still = try SlideDecoding.frame(for: Self.request(path, output: output, motion: nil), workspace: SlideDecodingWorkspace())
        let finer = try SlideDecoding.frame(for: Self.request(path, output: output), workspace: SlideDecodingWorkspace())
        #expect(still.size == output)
        #expect(finer.size == PixelSize(width: 400, height: 225))
        for frame in [still, finer] {
            func at(_ fx: Double, _ fy: Double) -> UInt32 { frame[Int(fx * Double(frame.width)), Int(fy * Double(frame.height))] }
            // The 4:3 picture fills the middle 75 % of the width; bars of the background either side.
            #expect(isClose(at(0.05, 0.5), to: RGBAColor(red: 10, green: 20, blue: 30)))
            #expect(isClose(at(0.95, 0.5), to: RGBAColor(red: 10, green: 20, blue: 30)))
            #expect(isClose(at(0.3, 0.5), to: RGBAColor(red: 220, green: 20, blue: 20), tolerance: 8))
            #expect(isClose(at(0.7, 0.5), to: RGBAColor(red: 20, green: 20, blue: 220), tolerance: 8))
        }
    }

    @Test func theStoreShowsTheRectangleAtTheLayersPlayback() throws {
        let directory = makeTemporaryDirectory()
        defer { removeTemporaryDirectory(directory) }
        for name in ["a", "b"] { _ = try writeJPEG(directory + "/\(name).jpg", size: PixelSize(width: 640, height: 360), color: .white) }
        let configuration = try ConfigLoader.parse("""
            slides:
              - {path: a.jpg, kenBurns: {from: [0, 0, 1, 1], to: [0.2, 0.2, 0.8, 0.8], easing: linear}}
              - {path: b.jpg}
              - {path: missing.jpg, kenBurns: true}
            placeholder: b.jpg
            output: {width: 160, height: 90}
            """, baseDirectory: directory)
        let output = configuration.outputSize
        let store = SlideFrameStore(slides: configuration.slideRequests(output: output), placeholder: configuration.placeholderRequest(output: output),
                                    capacity: 4, scratch: .keptWarm, decoder: InProcessSlideDecoder(), onChange: {})
        store.request([0, 1, 2])
        store.waitUntilIdle()
        // Slide 0 moves over its 5 s dwell; its frame is 1.25 times the output.
        let halfway = Scene.Layer(content: .slide(0), playback: LayerPlayback(elapsed: .milliseconds(2500)))
        let picture = try #require(store.picture(for: halfway))
        #expect(picture.frame.size == PixelSize(width: 200, height: 112))
        #expect(picture.region == Self.motion.rect(at: halfway.playback))
        #expect(store.kenBurnsMoves(in: Scene(layers: [halfway], indicator: nil)))
        // A still slide, and a failed Ken Burns one (which shows the placeholder), are whole frames that do not move.
        #expect(store.picture(for: Scene.Layer(content: .slide(1)))?.region == nil)
        let failed = Scene.Layer(content: .slide(2), playback: LayerPlayback(elapsed: .seconds(1)))
        #expect(store.picture(for: failed)?.region == nil && store.picture(for: failed)?.frame.size == output)
        #expect(store.drawnScene(Scene(layers: [failed], indicator: nil)).layers[0].playback == .start)
        // Past its end, or held by a finger, the drawn scene is the same one: nothing is drawn again.
        let ended = Scene(layers: [Scene.Layer(content: .slide(0), playback: LayerPlayback(elapsed: .seconds(7)))], indicator: nil)
        let later = Scene(layers: [Scene.Layer(content: .slide(0), playback: LayerPlayback(elapsed: .seconds(70)))], indicator: nil)
        #expect(store.drawnScene(ended) == store.drawnScene(later))
        #expect(!store.kenBurnsMoves(in: ended))
        let held = Scene(layers: [Scene.Layer(content: .slide(0), playback: LayerPlayback(elapsed: .seconds(2), isHeld: true))], indicator: nil)
        #expect(!store.kenBurnsMoves(in: held))
        #expect(store.drawnScene(held) != store.drawnScene(Scene(layers: [halfway], indicator: nil)))
    }

    @Test func aHeadroomHeldBelowTheZoomIsNotedOnlyWhereItIs() throws {
        let configuration = try ConfigLoader.parse("kenBurns: {zoom: 2}\nslides: [a.jpg, {path: b.jpg, kenBurns: false}]")
        #expect(configuration.kenBurnsHeadroomNote(output: PixelSize(width: 1920, height: 1080)) == nil)
        #expect(configuration.kenBurnsHeadroomNote(output: PixelSize(width: 3840, height: 2160))
            == "Ken Burns frames at 3840x2160 are held to 16 Mi pixels (64 MiB) each: 1.42x the output instead of up to 2.00x, so the closest views of 1 slide are enlarged from it")
    }

    /// The real loop on a headless display at 60 Hz: a Ken Burns slide at rest
    /// is drawn at every refresh, paced as a transition is, and its gaps are
    /// counted; the same slide still is drawn a few times at most.
    @Test func aMovingPictureIsDrawnAtEveryRefresh() throws {
        let directory = makeTemporaryDirectory()
        defer { removeTemporaryDirectory(directory) }
        _ = try writeJPEG(directory + "/a.jpg", size: PixelSize(width: 640, height: 360), color: RGBAColor(red: 200, green: 40, blue: 40))
        func run(_ kenBurns: String) throws -> (frames: Int, gaps: KioskMetrics.GapHistogram) {
            let configuration = try ConfigLoader.parse("""
                slides: [a.jpg]
                interval: 10s
                kenBurns: \(kenBurns)
                output: { width: 160, height: 90 }
                """, baseDirectory: directory)
            let display = HeadlessDisplay(size: configuration.outputSize, previewPath: nil, logger: Logger(label: "test"))
            let kiosk = try Kiosk(configuration: configuration, display: display, logger: Logger(label: "test"), decoder: InProcessSlideDecoder())
            let stop = kiosk.stopHandle
            Thread.detachNewThread { Thread.sleep(forTimeInterval: 1.0); stop.stop() }
            try kiosk.run()
            return (display.framesPresented, kiosk.metrics.snapshot.frameGaps[.kenBurns] ?? KioskMetrics.GapHistogram())
        }
        let moving = try run("{zoom: 1.5}")
        // 60 Hz for about a second: well over 30 frames even on a loaded machine (the floor is 14.7 ms apart).
        #expect(moving.frames >= 30 && moving.frames <= 70, "\(moving.frames) frames")
        #expect(moving.gaps.count >= moving.frames - 3 && moving.gaps.count >= 25)
        // Every gap at least the pacing floor (14.7 ms): none in the first bucket.
        #expect(moving.gaps.bucketCounts[1] == 0, "\(moving.gaps.bucketCounts)")
        let still = try run("false")
        #expect(still.frames <= 5, "\(still.frames) frames")
        #expect(still.gaps.count == 0)
    }

    /// `vitrine render` of a Ken Burns slide differs from one instant to the next.
    @Test func theRenderFollowsTheMotion() throws {
        let directory = makeTemporaryDirectory()
        defer { removeTemporaryDirectory(directory) }
        try writeJPEG(directory + "/ramp.jpg", size: PixelSize(width: 640, height: 360)) { x, y in
            RGBAColor(red: UInt8(x * 255 / 639), green: UInt8(y * 255 / 359), blue: 90)
        }
        let configuration = try ConfigLoader.parse("""
            slides: [{path: ramp.jpg, kenBurns: {from: [0, 0, 1, 1], to: [0.5, 0.5, 0.5, 0.5], easing: linear}}]
            interval: 4s
            indicator: { visible: false }
            output: { width: 160, height: 90 }
            """, baseDirectory: directory)
        let renderer = FrameRenderer(configuration: configuration)
        let start = renderer.render(at: 0).frame, middle = renderer.render(at: 2).frame, end = renderer.render(at: 4).frame
        // At the start the whole ramp: its top-left corner is dark; at the end the
        // lower right quarter fills the screen, so the top-left is mid-ramp.
        #expect(channels(start[0, 0]).r < 10 && channels(end[0, 0]).r > 110 && channels(end[0, 0]).r < 145)
        #expect(channels(middle[0, 0]).r > channels(start[0, 0]).r && channels(middle[0, 0]).r < channels(end[0, 0]).r)
        #expect(Array(start.pixels) != Array(middle.pixels))
    }
}
