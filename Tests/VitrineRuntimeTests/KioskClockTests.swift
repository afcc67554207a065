import Foundation
import Logging
import Testing
import VitrineConfig
import VitrineCore
@testable import VitrineRuntime
import VitrineSystem

/// The display loop reads time only through the clock it is given: a kiosk
/// whose wall clock says Wednesday morning shows the day playlist, one whose
/// clock says the same evening shows the night one, on the same machine at the
/// same moment.
@Suite("Kiosk clock: time is injected")
struct KioskClockTests {
    /// The monotonic clock as it runs (the loop's timers are real), and a wall
    /// clock that starts at `wall` and runs with it.
    static func clock(startingAt wall: WallInstant) -> KioskClock {
        let origin = MonotonicClock.now()
        return KioskClock {
            let now = MonotonicClock.now()
            return KioskInstant(monotonic: now, wallNanoseconds: wall.secondsSinceEpoch * 1_000_000_000 + (now - origin).nanoseconds)
        }
    }

    /// What a scheduled kiosk shows when its wall clock reads `wall`: the
    /// schedule's playlist in the status, and the colour at the centre of the screen.
    static func shown(at wall: WallInstant, directory: String) throws -> (playlist: String?, centre: UInt32?) {
        let configuration = try ConfigLoader.parse("""
            schedule:
              timezone: UTC
              playlists: {day: [red.jpg], night: [blue.jpg]}
              entries:
                - {playlist: day, days: weekdays, from: "07:00", until: "19:00"}
                - {playlist: night, days: weekdays, from: "19:00", until: "07:00"}
            indicator: { visible: false }
            output: { width: 160, height: 90 }
            """, baseDirectory: directory)
        let display = HeadlessDisplay(size: configuration.outputSize, previewPath: nil, logger: Logger(label: "test"))
        let kiosk = try Kiosk(configuration: configuration, display: display, logger: Logger(label: "test"), decoder: InProcessSlideDecoder(),
                              clock: clock(startingAt: wall))
        let control = kiosk.control, stop = kiosk.stopHandle
        let playlist = Locked<String>(), centre = Locked<UInt32>()
        Thread.detachNewThread {
            defer { stop.stop() }
            let deadline = Date().addingTimeInterval(5)
            while control.status.currentSlide == nil, Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
            if let name = control.status.schedule?.now.showing.playlistName { playlist.append(name) }
            // The first slide's picture may be a tick behind the status.
            while Date() < deadline {
                let frame = Locked<PixelImage>()
                control.requestFrame { frame.append($0) }
                for _ in 0..<100 where frame.all.isEmpty { Thread.sleep(forTimeInterval: 0.01) }
                if let pixel = frame.all.first?[80, 45], channels(pixel) != (0, 0, 0) {
                    centre.append(pixel)
                    return
                }
                Thread.sleep(forTimeInterval: 0.02)
            }
        }
        try kiosk.run()
        return (playlist.all.first, centre.all.first)
    }

    @Test func theScheduleFollowsTheInjectedWallClock() throws {
        let directory = makeTemporaryDirectory()
        defer { removeTemporaryDirectory(directory) }
        let red = RGBAColor(red: 220, green: 30, blue: 30), blue = RGBAColor(red: 30, green: 30, blue: 220)
        _ = try writeJPEG(directory + "/red.jpg", size: PixelSize(width: 160, height: 90), color: red)
        _ = try writeJPEG(directory + "/blue.jpg", size: PixelSize(width: 160, height: 90), color: blue)
        // Wednesday 2 June 2027, in the future so that the loop's wall timer
        // (a real CLOCK_REALTIME timerfd) cannot fire during the test.
        let morning = WallInstant(secondsSinceEpoch: 1_811_926_800)  // 2027-06-02 09:00 UTC
        let evening = morning + 12 * 3_600  // 21:00 the same day

        let day = try Self.shown(at: morning, directory: directory)
        #expect(day.playlist == "day")
        #expect(day.centre.map { isClose($0, to: red, tolerance: 12) } == true, "\(day.centre.map(channels) as Any)")
        let night = try Self.shown(at: evening, directory: directory)
        #expect(night.playlist == "night")
        #expect(night.centre.map { isClose($0, to: blue, tolerance: 12) } == true, "\(night.centre.map(channels) as Any)")
    }
}
