import Foundation
import Testing
import VitrineConfig
import VitrineCore
import VitrineJPEG
import VitrinePNG
@testable import VitrineRuntime
import VitrineSystem

@Suite("Slide pipeline")
struct PipelineTests {
    func requests(count: Int, file: String, output: PixelSize = PixelSize(width: 320, height: 180)) -> [SlideRequest] {
        (0..<count).map { _ in
            SlideRequest(file: "slide.jpg", resolvedPath: file, fit: .contain, background: .black, output: output, maxPixels: 100_000_000)
        }
    }

    @Test("resident frames stay bounded whatever the playlist length", arguments: [10, 1000])
    func boundedMemory(playlistLength: Int) throws {
        let directory = makeTemporaryDirectory()
        defer { removeTemporaryDirectory(directory) }
        let file = try writeJPEG(directory + "/a.jpg", size: PixelSize(width: 640, height: 480), color: .white)
        let store = SlideFrameStore(slides: requests(count: playlistLength, file: file), placeholder: nil, capacity: 5, decoder: InProcessSlideDecoder(), onChange: {})
        var peak = 0
        for step in 0..<40 {
            let current = step % playlistLength
            let window = [current, (current + 1) % playlistLength, (current + playlistLength - 1) % playlistLength]
            store.request(window)
            store.waitUntilIdle()
            peak = max(peak, store.residentFrameCount)
            for slide in window { #expect(store.isSettled(slide)) }
        }
        #expect(peak == 5)
    }

    /// Decodes in process, noting at each decode's start how many frames the store held and
    /// whether it was handed memory to reuse.
    final class WatchingDecoder: SlideDecoder, @unchecked Sendable {
        let inner = InProcessSlideDecoder()
        weak var store: SlideFrameStore?
        let lock = NSLock()
        var starts: [(held: Int, reused: Bool)] = []
        func picture(for request: SlideRequest, frameStorage: PixelStorage?) throws(SlideError) -> DecodedSlide {
            let held = store?.residentFrameCount ?? -1
            lock.withLock { starts.append((held, frameStorage != nil)) }
            return try inner.picture(for: request, frameStorage: frameStorage)
        }
        func releaseScratch() { inner.releaseScratch() }
        var refusedPictures: [RefusedPicture] { [] }
        func retry(file: String?) -> Int { 0 }
    }

    @Test func aPageChangeMakesRoomBeforeItDecodesSoTheStoreNeverHoldsMoreThanItsCapacity() throws {
        let directory = makeTemporaryDirectory()
        defer { removeTemporaryDirectory(directory) }
        let file = try writeJPEG(directory + "/a.jpg", size: PixelSize(width: 640, height: 480), color: .white)
        let decoder = WatchingDecoder()
        let store = SlideFrameStore(slides: requests(count: 10, file: file), placeholder: nil, capacity: 3, decoder: decoder, onChange: {})
        decoder.store = store
        store.request([0, 1, 9])
        store.waitUntilIdle()
        for step in 1..<8 {
            store.request([step, step + 1, step - 1])
            store.waitUntilIdle()
            #expect(store.residentFrameCount == 3)
        }
        let starts = decoder.lock.withLock { decoder.starts }
        #expect(starts.count == 10)
        // Each page change's one new frame found room made for it: two frames held as it began, never three.
        #expect(starts.dropFirst(3).allSatisfy { $0.held == 2 }, "\(starts)")
        // And it was decoded into the memory the evicted frame left, although the store lets scratch go when idle.
        #expect(starts.dropFirst(3).allSatisfy { $0.reused }, "\(starts)")
    }

    @Test func decodeScratchGoesBackOnceTheQueueIsEmptyUnlessKeptWarm() throws {
        let directory = makeTemporaryDirectory()
        defer { removeTemporaryDirectory(directory) }
        let file = try writeJPEG(directory + "/a.jpg", size: PixelSize(width: 640, height: 480), color: .white)
        let released = SlideFrameStore(slides: requests(count: 10, file: file), placeholder: nil, capacity: 3, decoder: InProcessSlideDecoder(), onChange: {})
        let warm = SlideFrameStore(slides: requests(count: 10, file: file), placeholder: nil, capacity: 3, scratch: .keptWarm,
                                   decoder: InProcessSlideDecoder(), onChange: {})
        #expect(!released.holdsScratch && !warm.holdsScratch)
        for step in 0..<6 {
            // Moving on by one: one new decode, and an eviction that recycles a frame.
            for store in [released, warm] {
                store.request([step, step + 1, max(step - 1, 0)])
                store.waitUntilIdle()
            }
            #expect(!released.holdsScratch)
            #expect(warm.holdsScratch)
            #expect(released.residentFrameCount == warm.residentFrameCount)
            #expect(released.isSettled(step + 1))
        }
    }

    @Test func thePlaceholderIsHeldOnlyWhileAFailedSlideOrAnEmptyCarouselCouldShowIt() throws {
        let directory = makeTemporaryDirectory()
        defer { removeTemporaryDirectory(directory) }
        let good = try writeJPEG(directory + "/a.jpg", size: PixelSize(width: 64, height: 48), color: .white)
        let placeholder = requests(count: 1, file: good)[0]
        var slides = requests(count: 6, file: good)
        slides[3].resolvedPath = directory + "/missing.jpg"
        let store = SlideFrameStore(slides: slides, placeholder: placeholder, capacity: 3, decoder: InProcessSlideDecoder(), onChange: {})
        func held() -> Bool { if case .ready = store.placeholder { return true } else { return false } }

        // Every wanted picture decodes: nothing could show the placeholder.
        store.request([0, 1, 5])
        store.waitUntilIdle()
        #expect(!held())
        #expect(store.frame(for: .slide(0)) != nil)
        // Slide 3 fails as a neighbour: the placeholder is decoded before it is on screen.
        store.request([2, 3, 1])
        store.waitUntilIdle()
        #expect(held())
        #expect(store.frame(for: .slide(3)) === store.placeholderFrame)
        // Paged on past it: let go again.
        store.request([5, 0, 4])
        store.waitUntilIdle()
        #expect(!held())

        let empty = SlideFrameStore(slides: [], placeholder: placeholder, capacity: 3, decoder: InProcessSlideDecoder(), onChange: {})
        empty.request([])
        empty.waitUntilIdle()
        if case .ready = empty.placeholder {} else { Issue.record("an empty carousel shows the placeholder: it must be decoded") }
    }

    /// A URL's download arriving or changing: only the slides that show it decode
    /// again, and what they showed stays until the new frame is ready, so the
    /// picture changes in place. A slide that failed ("not downloaded yet") decodes anew.
    @Test func aReplacedRequestDecodesOnlyItsSlideAndKeepsTheOldFrameMeanwhile() throws {
        let directory = makeTemporaryDirectory()
        defer { removeTemporaryDirectory(directory) }
        let red = try writeJPEG(directory + "/red.jpg", size: PixelSize(width: 320, height: 180), color: RGBAColor(red: 220, green: 20, blue: 20))
        let blue = try writeJPEG(directory + "/blue.jpg", size: PixelSize(width: 320, height: 180), color: RGBAColor(red: 20, green: 20, blue: 220))
        let output = PixelSize(width: 320, height: 180)
        var slides = requests(count: 3, file: red)
        slides[2] = SlideRequest(file: "https://example.com/sea.jpg", resolvedPath: nil, fit: .contain, background: .black,
                                 output: output, maxPixels: 100_000_000)
        let metrics = KioskMetrics()
        let store = SlideFrameStore(slides: slides, placeholder: nil, capacity: 5, metrics: metrics, decoder: InProcessSlideDecoder(), onChange: {})
        store.request([0, 1, 2])
        store.waitUntilIdle()
        let untouched = try #require(store.frame(of: 0))
        guard case .failed = store.state(of: 2) else { Issue.record("a URL not downloaded yet fails"); return }
        #expect(metrics.snapshot.decodeCount == 2)

        // Slide 1 now from blue.jpg: red stays on show until blue is decoded.
        let version = store.version
        store.replace([1: requests(count: 1, file: blue)[0], 2: requests(count: 1, file: blue)[0]])
        #expect(store.version > version, "the display thread looks again")
        if case .ready(let meanwhile) = store.state(of: 1) {
            let pixel = meanwhile[160, 90]
            #expect(isClose(pixel, to: RGBAColor(red: 220, green: 20, blue: 20), tolerance: 12) || isClose(pixel, to: RGBAColor(red: 20, green: 20, blue: 220), tolerance: 12))
        } else {
            Issue.record("slide 1 kept a frame while its new file decodes")
        }
        store.waitUntilIdle()
        #expect(isClose(try #require(store.frame(of: 1))[160, 90], to: RGBAColor(red: 20, green: 20, blue: 220), tolerance: 12))
        #expect(isClose(try #require(store.frame(of: 2))[160, 90], to: RGBAColor(red: 20, green: 20, blue: 220), tolerance: 12))
        #expect(metrics.snapshot.decodeCount == 4, "slides 1 and 2 decoded again, slide 0 not")
        #expect(try #require(store.frame(of: 0)).storage === untouched.storage, "slide 0's frame is the same one")
        #expect(store.takeNewFailures().count == 1, "only the failure from before the download")
    }

    @Test func slidesLeavingTheWindowBeforeDecodingAreNotDecoded() throws {
        let directory = makeTemporaryDirectory()
        defer { removeTemporaryDirectory(directory) }
        let file = try writeJPEG(directory + "/a.jpg", size: PixelSize(width: 64, height: 64), color: .white)
        let store = SlideFrameStore(slides: requests(count: 50, file: file), placeholder: nil, capacity: 5, decoder: InProcessSlideDecoder(), onChange: {})
        store.request(Array(0..<20))
        store.request([30])
        store.waitUntilIdle()
        #expect(store.isSettled(30))
        #expect(store.residentFrameCount <= 5)
    }

    @Test func failuresAreReportedOnceWithFileAndReason() throws {
        let directory = makeTemporaryDirectory()
        defer { removeTemporaryDirectory(directory) }
        #expect(FileManager.default.createFile(atPath: directory + "/notes.jpg", contents: Data("not a picture".utf8)))
        var slides = requests(count: 2, file: directory + "/notes.jpg")
        slides[1].resolvedPath = directory + "/missing.jpg"
        slides[1].file = "missing.jpg"
        let store = SlideFrameStore(slides: slides, placeholder: nil, capacity: 5, decoder: InProcessSlideDecoder(), onChange: {})
        store.request([0, 1])
        store.waitUntilIdle()
        store.request([0, 1])
        store.waitUntilIdle()
        let failures = store.takeNewFailures()
        #expect(failures.count == 2)
        #expect(failures.map(\.error.description).sorted() == [
            "missing.jpg: cannot read: No such file or directory",
            "slide.jpg: not a JPEG file: no JPEG start-of-image marker",
        ])
        #expect(store.takeNewFailures().isEmpty)
    }

    func writeConfig(_ directory: String, policy: String) throws -> KioskConfiguration {
        try writeJPEG(directory + "/red.jpg", size: PixelSize(width: 320, height: 180), color: RGBAColor(red: 220, green: 20, blue: 20))
        try writeJPEG(directory + "/blue.jpg", size: PixelSize(width: 320, height: 180), color: RGBAColor(red: 20, green: 20, blue: 220))
        try writeJPEG(directory + "/placeholder.jpg", size: PixelSize(width: 320, height: 180), color: RGBAColor(red: 128, green: 128, blue: 128))
        #expect(FileManager.default.createFile(atPath: directory + "/broken.jpg", contents: Data([0xFF, 0xD8, 0xFF, 0xE0, 0x00])))
        let yaml = """
            slides: [red.jpg, broken.jpg, blue.jpg]
            interval: 2s
            placeholder: placeholder.jpg
            onImageError: \(policy)
            indicator: { visible: false }
            output: { width: 320, height: 180 }
            """
        #expect(FileManager.default.createFile(atPath: directory + "/vitrine.yaml", contents: Data(yaml.utf8)))
        return try ConfigLoader.load(file: directory + "/vitrine.yaml")
    }

    @Test func brokenSlideShowsThePlaceholder() throws {
        let directory = makeTemporaryDirectory()
        defer { removeTemporaryDirectory(directory) }
        let configuration = try writeConfig(directory, policy: "placeholder")
        let (frame, failures) = FrameRenderer(configuration: configuration).render(at: 3)
        #expect(isClose(frame[160, 90], to: RGBAColor(red: 128, green: 128, blue: 128)))
        #expect(failures.map(\.description) == ["broken.jpg: truncated JPEG data: the data ends inside a marker segment"])
    }

    @Test func brokenSlideIsSkipped() throws {
        let directory = makeTemporaryDirectory()
        defer { removeTemporaryDirectory(directory) }
        let configuration = try writeConfig(directory, policy: "skip")
        // red 0–2 s, then blue (the broken slide is out of the rotation), then red again at 4 s.
        let renderer = FrameRenderer(configuration: configuration)
        #expect(isClose(renderer.render(at: 1).frame[160, 90], to: RGBAColor(red: 220, green: 20, blue: 20)))
        #expect(isClose(renderer.render(at: 3).frame[160, 90], to: RGBAColor(red: 20, green: 20, blue: 220)))
        #expect(isClose(renderer.render(at: 5).frame[160, 90], to: RGBAColor(red: 220, green: 20, blue: 20)))
    }

    @Test func emptyPlaylistShowsPlaceholderOrBackground() throws {
        let directory = makeTemporaryDirectory()
        defer { removeTemporaryDirectory(directory) }
        try writeJPEG(directory + "/placeholder.jpg", size: PixelSize(width: 320, height: 180), color: RGBAColor(red: 90, green: 200, blue: 90))
        var configuration = try ConfigLoader.parse("slides: []\nplaceholder: placeholder.jpg\nbackground: \"#203040\"", baseDirectory: directory)
        let withPlaceholder = FrameRenderer(configuration: configuration, output: PixelSize(width: 320, height: 180)).render(at: 7).frame
        #expect(isClose(withPlaceholder[160, 90], to: RGBAColor(red: 90, green: 200, blue: 90)))
        configuration.placeholder = nil
        let bare = FrameRenderer(configuration: configuration, output: PixelSize(width: 320, height: 180)).render(at: 7).frame
        #expect(bare[160, 90] == RGBAColor(hex: "#203040")!.xrgb)
    }

    @Test func decodeIsStraightToDisplaySize() throws {
        let directory = makeTemporaryDirectory()
        defer { removeTemporaryDirectory(directory) }
        let file = try writeJPEG(directory + "/big.jpg", size: PixelSize(width: 4000, height: 3000), color: .white)
        let bytes = try FileIO.read(file)
        let decoded = try bytes.withUnsafeBytes { try JPEGDecoder().decode($0, covering: PixelSize(width: 1440, height: 1080), maxPixels: 100_000_000) }
        // 3/8 DCT scaling: the full 12-megapixel picture is never allocated.
        #expect(decoded.image.size == PixelSize(width: 1500, height: 1125))
    }
}

@Suite("System pieces")
struct SystemTests {
    @Test func eventLoopTimerFiresAtTheAbsoluteDeadline() throws {
        let loop = try EventLoop(signals: [])
        let start = MonotonicClock.now()
        loop.setTimer(start + .milliseconds(40))
        var sources: [EventLoop.Source] = []
        while sources.isEmpty { sources = try loop.wait(timeoutMilliseconds: 2000) }
        #expect(sources == [.timer])
        #expect(MonotonicClock.now() - start >= .milliseconds(40))
    }

    @Test func wakeupFromAnotherThread() throws {
        let loop = try EventLoop(signals: [])
        let wakeup = loop.wakeup
        let thread = Thread { Thread.sleep(forTimeInterval: 0.02); wakeup.signal() }
        thread.start()
        var sources: [EventLoop.Source] = []
        while sources.isEmpty { sources = try loop.wait(timeoutMilliseconds: 2000) }
        #expect(sources == [.wakeup])
        // Drained: nothing is pending any more.
        #expect(try loop.wait(timeoutMilliseconds: 0).isEmpty)
    }

    @Test func atomicWriteReplacesWholeFiles() throws {
        let directory = makeTemporaryDirectory()
        defer { removeTemporaryDirectory(directory) }
        let path = directory + "/state.json"
        try FileIO.writeAtomically(Array("first".utf8), to: path)
        try FileIO.writeAtomically(Array("second version".utf8), to: path)
        #expect(try FileIO.read(path) == Array("second version".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["state.json"])
        #expect(throws: SystemError.self) { try FileIO.writeAtomically([1], to: directory + "/no/such/dir/file") }
    }

    @Test func pngRoundTrip() throws {
        let image = PixelImage(size: PixelSize(width: 7, height: 5))
        for i in 0..<35 { image.pixels[i] = 0xFF00_0000 | UInt32(i * 7) << 16 | UInt32(255 - i) << 8 | UInt32(i) }
        let decoded = try PNGCodec.decode(try PNGCodec.encode(image))
        #expect(decoded.size == image.size)
        #expect(Array(decoded.pixels) == Array(image.pixels))
        #expect(throws: PNGError.self) { try PNGCodec.decode([1, 2, 3]) }
    }
}
