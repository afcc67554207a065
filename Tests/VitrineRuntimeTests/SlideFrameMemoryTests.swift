import Foundation
import Synchronization
import Testing
import VitrineCore
@testable import VitrineRuntime

/// A slide store with a display's frame memory (`SlideFrameMemorySource`),
/// as an output on planes has: each slide decoded into memory the source
/// hands out, which is never reused for another slide once evicted (a plane
/// may still show it), and ordinary recycled memory when the source has none.
@Suite("Slides decoded into the display's frame memory")
struct SlideFrameMemoryTests {
    /// Stands in for a scan-out buffer: heap memory, counted while it lives.
    final class TestMemory: SharedFrameMemory, @unchecked Sendable {
        let descriptor: Int32 = -1
        let byteCount: Int
        let base: UnsafeMutableRawPointer
        let source: TestSource
        init(byteCount: Int, source: TestSource) {
            self.byteCount = byteCount
            self.source = source
            base = UnsafeMutableRawPointer.allocate(byteCount: byteCount, alignment: 64)
            source.live.withLock { $0 += 1 }
        }
        deinit {
            base.deallocate()
            source.live.withLock { $0 -= 1 }
        }
        var reusableAfterEviction: Bool { false }
    }

    final class TestSource: SlideFrameMemorySource, @unchecked Sendable {
        let live = Synchronization.Mutex(0)
        let asked = Synchronization.Mutex(0)
        let handsOut: Bool
        init(handsOut: Bool = true) { self.handsOut = handsOut }
        func storage(for request: SlideRequest) -> PixelStorage? {
            asked.withLock { $0 += 1 }
            guard handsOut else { return nil }
            let memory = TestMemory(byteCount: request.output.pixelCount * 4, source: self)
            return PixelStorage(borrowing: memory.base, byteCount: memory.byteCount, owner: memory)
        }
    }

    static let output = PixelSize(width: 320, height: 180)

    static func requests(_ file: String, count: Int) -> [SlideRequest] {
        (0..<count).map { _ in
            SlideRequest(file: "slide.jpg", resolvedPath: file, fit: .contain, background: .black, output: output, maxPixels: 100_000_000)
        }
    }

    @Test func eachSlideIsDecodedIntoTheSourcesMemoryWhichIsNotReusedOnceEvicted() throws {
        let directory = makeTemporaryDirectory()
        defer { removeTemporaryDirectory(directory) }
        let file = try writeJPEG(directory + "/a.jpg", size: PixelSize(width: 640, height: 480), color: .white)
        let source = TestSource()
        // Kept warm: memory kept for reuse would stay after each step, and be counted live below.
        let store = SlideFrameStore(slides: Self.requests(file, count: 10), placeholder: nil, capacity: 3, scratch: .keptWarm,
                                    decoder: InProcessSlideDecoder(), frameMemory: source, onChange: {})
        let reference = try InProcessSlideDecoder().picture(for: Self.requests(file, count: 1)[0], frameStorage: nil).frame
        for step in 0..<6 {
            let window = step == 0 ? [0, 1] : [step, step + 1, step - 1]
            store.request(window)
            store.waitUntilIdle()
            for slide in window {
                let frame = try #require(store.frame(for: .slide(slide)))
                #expect(frame.storage.memoryOwner is TestMemory, "slide \(slide) is not in the display's memory")
                #expect(Array(frame.pixels) == Array(reference.pixels))
            }
            // What the store evicted went back rather than being kept for reuse: only what it holds lives.
            #expect(source.live.withLock { $0 } == store.residentFrameCount)
        }
        #expect(source.asked.withLock { $0 } == 7)
    }

    /// A video never takes the display's memory, and a URL's picture not
    /// downloaded yet cannot: neither is asked for it, so no buffer of the
    /// card's is made and given back for nothing. A picture beside them is.
    @Test func aVideoOrAFileNotDownloadedIsNeverGivenTheDisplaysMemory() throws {
        let directory = makeTemporaryDirectory()
        defer { removeTemporaryDirectory(directory) }
        let picture = try writeJPEG(directory + "/a.jpg", size: PixelSize(width: 640, height: 480), color: .white)
        // An MP4's first box, which is all VideoFile reads: the decoder is not reached for it below.
        let video = directory + "/promo.mp4"
        try Data([0, 0, 0, 24] + Array("ftypisom".utf8) + [0, 0, 2, 0] + Array("isomiso2".utf8)).write(to: URL(fileURLWithPath: video))
        var requests = Self.requests(picture, count: 3)
        requests[1].resolvedPath = video
        requests[2].resolvedPath = nil
        let source = TestSource()
        let store = SlideFrameStore(slides: requests, placeholder: nil, capacity: 3, scratch: .keptWarm,
                                    decoder: InProcessSlideDecoder(), frameMemory: source, onChange: {})
        store.request([0, 1, 2])
        store.waitUntilIdle()
        #expect(source.asked.withLock { $0 } == 1)
        #expect(store.frame(for: .slide(0))?.storage.memoryOwner is TestMemory)
    }

    @Test func withoutTheSourcesMemoryAnEvictedFrameIsRecycledAsBefore() throws {
        let directory = makeTemporaryDirectory()
        defer { removeTemporaryDirectory(directory) }
        let file = try writeJPEG(directory + "/a.jpg", size: PixelSize(width: 640, height: 480), color: .white)
        let source = TestSource(handsOut: false)
        let store = SlideFrameStore(slides: Self.requests(file, count: 10), placeholder: nil, capacity: 3, scratch: .keptWarm,
                                    decoder: InProcessSlideDecoder(), frameMemory: source, onChange: {})
        store.request([0, 1])
        store.waitUntilIdle()
        // Held here as memory only: the frame itself must be the store's alone to be recycled.
        let slideZeroMemory = try #require(store.frame(for: .slide(0))).storage
        for step in 1..<4 {
            store.request([step, step + 1, step - 1])
            store.waitUntilIdle()
        }
        // Slide 0 was evicted as slide 3 was asked for, and slide 3 was decoded into its memory.
        #expect(store.frame(for: .slide(0)) == nil)
        #expect(store.frame(for: .slide(3))?.storage === slideZeroMemory)
        #expect(source.asked.withLock { $0 } == 5)
    }
}
