import Foundation
import Logging
import Testing
import VitrineConfig
import VitrineCore
@testable import VitrineRuntime
import VitrineSystem

/// An emergency override through the real display loop (epoll, both timerfds,
/// the decode queue) on a headless display: it shows at once, not at the
/// 10 s slide boundary, lights a screen switched off, and ends by itself on
/// the wall clock.
@Suite("Kiosk override")
struct KioskOverrideTests {
    @Test func anOverrideWakesADarkScreenAtOnceAndEndsOnTheWallClock() throws {
        let directory = makeTemporaryDirectory()
        defer { removeTemporaryDirectory(directory) }
        let red = RGBAColor(red: 220, green: 30, blue: 30), blue = RGBAColor(red: 30, green: 30, blue: 220)
        _ = try writeJPEG(directory + "/red.jpg", size: PixelSize(width: 160, height: 90), color: red)
        _ = try writeJPEG(directory + "/blue.jpg", size: PixelSize(width: 160, height: 90), color: blue)
        let configuration = try ConfigLoader.parse("""
            slides: [red.jpg, red.jpg]
            interval: 10s
            indicator: { visible: false }
            output: { width: 160, height: 90 }
            """, baseDirectory: directory)
        let display = HeadlessDisplay(size: configuration.outputSize, previewPath: nil, logger: Logger(label: "test"))
        let kiosk = try Kiosk(configuration: configuration, display: display, logger: Logger(label: "test"), decoder: InProcessSlideDecoder())
        let control = kiosk.control, stop = kiosk.stopHandle
        let observed = Locked<String>(), ended = Locked<String>()
        kiosk.onEvent = { if case .overrideEnded(let id) = $0 { ended.append(id) } }

        Thread.detachNewThread {
            defer { stop.stop() }
            func centre() -> UInt32? {
                let frame = Locked<PixelImage>()
                control.requestFrame { frame.append($0) }
                for _ in 0..<100 where frame.all.isEmpty { Thread.sleep(forTimeInterval: 0.01) }
                return frame.all.first.map { $0[80, 45] }
            }
            func waitFor(_ what: String, seconds: Double, _ condition: () -> Bool) -> Bool {
                let deadline = Date().addingTimeInterval(seconds)
                while !condition() {
                    if Date() > deadline { observed.append("timed out waiting for \(what)"); return false }
                    Thread.sleep(forTimeInterval: 0.02)
                }
                return true
            }
            guard waitFor("the first slide", seconds: 3, { control.status.currentSlide == 0 }) else { return }
            control.send(.setScreenPower(.off))
            guard waitFor("the screen off", seconds: 2, { control.status.screen == .off }) else { return }
            let now = WallClock.now()
            control.send(.setOverride(KioskOverride(id: "e1", slides: [SlideConfiguration(path: "blue.jpg")],
                                                    since: now, until: now + 4)))
            let sent = Date()
            guard waitFor("the override on screen", seconds: 5, { control.status.override?.id == "e1" }) else { return }
            // The slide boundary is 10 s away and the override lasts 4 s: under 3 s means it did not
            // wait for the boundary. (A tighter bound flakes on a loaded CI machine.)
            observed.append("shown after \(Date().timeIntervalSince(sent) < 3.0 ? "less than" : "more than") 3 s")
            observed.append("screen \(control.status.screen == .heldByOverride ? "held on" : "\(control.status.screen)")")
            // The status is published each turn, and a turn may skip its frame (too soon after
            // the last one): the override's picture follows within a frame or two (seen once in a
            // full-suite run: still red as the status named the override).
            var shown = centre()
            _ = waitFor("the override's picture", seconds: 1) {
                shown = centre()
                return shown.map { isClose($0, to: blue, tolerance: 12) } ?? false
            }
            if let pixel = shown { observed.append(isClose(pixel, to: blue, tolerance: 12) ? "blue" : "not blue: \(channels(pixel))") }
            guard waitFor("the override's end", seconds: 8, { control.status.override == nil }) else { return }
            _ = waitFor("the screen off again", seconds: 3, { control.status.screen == .off })
            observed.append("after the end: screen \(control.status.screen)")
            // The playlist's picture comes back once its slide is decoded again, which may
            // be a tick or two after the status says the override ended (seen once in a
            // full-suite run: the frame still blue right after the end).
            var pixel = centre()
            _ = waitFor("the playlist's picture", seconds: 3) {
                pixel = centre()
                return pixel.map { isClose($0, to: red, tolerance: 12) } ?? false
            }
            if let pixel { observed.append(isClose(pixel, to: red, tolerance: 12) ? "red" : "not red: \(channels(pixel))") }
        }
        try kiosk.run()
        #expect(observed.all == ["shown after less than 3 s", "screen held on", "blue", "after the end: screen off", "red"])
        #expect(ended.all == ["e1"], "the end is reported once, for the event stream")
    }
}
