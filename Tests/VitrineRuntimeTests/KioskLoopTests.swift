import Foundation
import Logging
import Testing
import VitrineConfig
import VitrineCore
@testable import VitrineRuntime

/// The real display loop (epoll, timerfd, eventfd, decode queue) on a headless
/// display, on the real monotonic clock with short intervals.
@Suite("Kiosk loop")
struct KioskLoopTests {
    @Test func rotatesPresentsAndStops() throws {
        let directory = makeTemporaryDirectory()
        defer { removeTemporaryDirectory(directory) }
        for (name, red) in [("a", 200), ("b", 100), ("c", 20)] {
            try writeJPEG(directory + "/\(name).jpg", size: PixelSize(width: 320, height: 180), color: RGBAColor(red: UInt8(red), green: 40, blue: 40))
        }
        let yaml = """
            slides: [a.jpg, b.jpg, c.jpg]
            interval: 300ms
            transition: { duration: 100ms }
            output: { width: 160, height: 90 }
            """
        let configuration = try ConfigLoader.parse(yaml, baseDirectory: directory)
        let display = HeadlessDisplay(size: configuration.outputSize, previewPath: nil, logger: Logger(label: "test"))
        let kiosk = try Kiosk(configuration: configuration, display: display, logger: Logger(label: "test"), decoder: InProcessSlideDecoder())
        let events = EventLog()
        kiosk.onEvent = { if case .carousel(let event) = $0 { events.append(event) } }
        let stop = kiosk.stopHandle
        Thread.detachNewThread { Thread.sleep(forTimeInterval: 1.0); stop.stop() }
        try kiosk.run()
        // Deadlines at 0.3, 0.6 and 0.9 s, each change done 100 ms later: at least
        // two changes finish within the second, in order.
        let changes = events.all
        #expect(changes.count >= 2)
        #expect(Array(changes.prefix(2)) == [.pageChanged(from: 0, to: 1, cause: .automatic), .pageChanged(from: 1, to: 2, cause: .automatic)])
        // Frames are drawn during transitions only: ~6 per 100 ms change at 60 Hz,
        // plus the first frame and the one when pictures arrive, never 60 a second.
        #expect(display.framesPresented >= 6)
        #expect(display.framesPresented <= 40, "drew \(display.framesPresented) frames in 1 s")
    }

    /// One animated GIF slide (frames of 120, 80, 100, 200 and 150 ms; no
    /// rotation with one slide): the loop wakes for each frame and presents it,
    /// and only then: about 9 frames in a second, not 60.
    @Test func anAnimatedSlidePresentsEachOfItsFramesAndNoMore() throws {
        let yaml = """
            slides: [\(AnimatedSlideTests.fixtures)/disposal.gif]
            output: { width: 96, height: 64 }
            """
        let configuration = try ConfigLoader.parse(yaml, baseDirectory: "/")
        let display = HeadlessDisplay(size: configuration.outputSize, previewPath: nil, logger: Logger(label: "test"))
        let kiosk = try Kiosk(configuration: configuration, display: display, logger: Logger(label: "test"), decoder: InProcessSlideDecoder())
        let stop = kiosk.stopHandle
        Thread.detachNewThread { Thread.sleep(forTimeInterval: 1.0); stop.stop() }
        try kiosk.run()
        // Frame changes at 120, 200, 300, 500, 650, 770, 850 and 950 ms after the
        // first frame (which comes once the picture is decoded): 9 at most.
        #expect(display.framesPresented >= 6, "presented \(display.framesPresented) frames in 1 s")
        #expect(display.framesPresented <= 12, "presented \(display.framesPresented) frames in 1 s")
    }
}

final class EventLog: @unchecked Sendable {
    private let lock = NSLock()
    private var events: [CarouselEvent] = []
    let appliedVersions = Locked<String>()
    /// `screenChanged` events: the display lit (true) or dark (false).
    let screens = Locked<Bool>()
    func append(_ event: CarouselEvent) { lock.lock(); events.append(event); lock.unlock() }
    var all: [CarouselEvent] { lock.lock(); defer { lock.unlock() }; return events }
}

@Suite("Display rotation")
struct DisplayRotationTests {
    /// A picture red on its left half and blue on its right, laid out upright
    /// at 90x160 and shown on a 160x90 panel turned a quarter: the panel's top
    /// half must be red, its bottom half blue.
    @Test func aQuarterTurnTurnsThePicture() throws {
        let directory = makeTemporaryDirectory()
        defer { removeTemporaryDirectory(directory) }
        try writeJPEG(directory + "/split.jpg", size: PixelSize(width: 90, height: 160), splitRedBlue(width: 90))
        let configuration = try ConfigLoader.parse("""
            slides: [split.jpg]
            indicator: { visible: false }
            output: { rotation: 90, width: 160, height: 90 }
            """, baseDirectory: directory)
        let display = HeadlessDisplay(size: configuration.outputSize, previewPath: nil, logger: Logger(label: "test"))
        let kiosk = try Kiosk(configuration: configuration, display: display, logger: Logger(label: "test"), decoder: InProcessSlideDecoder())
        let stop = kiosk.stopHandle
        Thread.detachNewThread { Thread.sleep(forTimeInterval: 0.5); stop.stop() }
        try kiosk.run()
        let frame = display.currentFrame
        #expect(frame.size == PixelSize(width: 160, height: 90))
        #expect(isClose(frame[80, 10], to: RGBAColor(red: 220, green: 20, blue: 20), tolerance: 12))
        #expect(isClose(frame[80, 80], to: RGBAColor(red: 20, green: 20, blue: 220), tolerance: 12))
        // And the touch mapper agrees: the panel's top edge is the picture's left edge.
        let mapper = TouchCoordinateMapper(xAxis: AxisRange(minimum: 0, maximum: 1000), yAxis: AxisRange(minimum: 0, maximum: 1000),
                                           output: PixelSize(width: 90, height: 160), rotation: .quarter)
        let top = mapper.map(x: 500, y: 0)
        #expect(top.x == 0 && top.y == 80)
    }
}

final class Locked<Element>: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [Element] = []
    func append(_ value: Element) { lock.lock(); values.append(value); lock.unlock() }
    var all: [Element] { lock.lock(); defer { lock.unlock() }; return values }
}
