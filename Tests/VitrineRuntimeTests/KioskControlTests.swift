import Foundation
import Logging
import Testing
import VitrineConfig
import VitrineCore
@testable import VitrineRuntime

/// Commands into a running kiosk from another thread, and its status out, on
/// the real loop with a headless display.
@Suite("Kiosk control")
struct KioskControlTests {
    static let colors: [(String, RGBAColor)] = [
        ("red", RGBAColor(red: 220, green: 20, blue: 20)), ("green", RGBAColor(red: 20, green: 200, blue: 20)),
        ("blue", RGBAColor(red: 20, green: 20, blue: 220)), ("yellow", RGBAColor(red: 230, green: 220, blue: 20)),
    ]

    func makeKiosk(_ directory: String, yaml: String) throws -> (Kiosk, HeadlessDisplay, EventLog) {
        for (name, color) in Self.colors { try writeJPEG(directory + "/\(name).jpg", size: PixelSize(width: 160, height: 90), color: color) }
        let configuration = try ConfigLoader.parse(yaml, baseDirectory: directory)
        let display = HeadlessDisplay(size: configuration.outputSize, previewPath: nil, logger: Logger(label: "test"))
        let kiosk = try Kiosk(configuration: configuration, version: "v1", display: display, logger: Logger(label: "test"), decoder: InProcessSlideDecoder())
        let events = EventLog()
        kiosk.onEvent = { event in
            switch event {
            case .carousel(let carousel): events.append(carousel)
            case .configurationApplied(let version): events.appendApplied(version)
            case .screenChanged(let lit, _): events.screens.append(lit)
            case .error, .overrideEnded, .slideShown, .videoPlayed, .attract: break
            }
        }
        return (kiosk, display, events)
    }

    /// Runs `script` on another thread against the kiosk, then stops it.
    func run(_ kiosk: Kiosk, _ script: @escaping @Sendable (KioskControl) -> Void) throws {
        let control = kiosk.control, stop = kiosk.stopHandle
        Thread.detachNewThread {
            script(control)
            stop.stop()
        }
        try kiosk.run()
    }

    /// Runs the kiosk, sends it `next` as version v2 `applyAt` seconds after it
    /// starts, and returns its status at each of `readAt` (seconds from the
    /// start; a read at the instant of the apply comes before it).
    func readStatuses(of kiosk: Kiosk, applying next: KioskConfiguration, at applyAt: Double, readAt: [Double]) throws -> [KioskStatus] {
        precondition(readAt.contains { $0 > applyAt }, "a read after the apply")
        let statuses = StatusLog()
        let scheduled = ScheduledConfiguration(next)
        try run(kiosk) { control in
            var elapsed = 0.0, applied = false
            for time in readAt.sorted() {
                if !applied, applyAt < time {
                    Thread.sleep(forTimeInterval: applyAt - elapsed)
                    control.send(.apply(scheduled, version: "v2"))
                    (elapsed, applied) = (applyAt, true)
                }
                Thread.sleep(forTimeInterval: time - elapsed)
                elapsed = time
                statuses.append(control.status)
            }
        }
        return statuses.all
    }

    /// What a TV on HDMI-CEC follows: the display's state at start, then each change, once.
    @Test func theScreensStateIsReportedAtStartAndAtEachChange() throws {
        let directory = makeTemporaryDirectory()
        defer { removeTemporaryDirectory(directory) }
        let (kiosk, _, events) = try makeKiosk(directory, yaml: """
            slides: [red.jpg, green.jpg]
            output: { width: 160, height: 90 }
            """)
        let lit = Locked<Bool>()
        try run(kiosk) { control in
            Thread.sleep(forTimeInterval: 0.2)
            control.send(.setScreenPower(.off))
            Thread.sleep(forTimeInterval: 0.2)
            lit.append(control.status.screen.isLit)
            control.send(.setScreenPower(.off))
            Thread.sleep(forTimeInterval: 0.1)
            control.send(.setScreenPower(.on))
            Thread.sleep(forTimeInterval: 0.2)
        }
        #expect(lit.all == [false])
        #expect(events.screens.all == [true, false, true], "a second off request changes nothing, and is not reported")
    }

    @Test func navigationAndRemotePause() throws {
        let directory = makeTemporaryDirectory()
        defer { removeTemporaryDirectory(directory) }
        let (kiosk, _, events) = try makeKiosk(directory, yaml: """
            slides: [red.jpg, green.jpg, blue.jpg]
            interval: 250ms
            transition: { type: cut }
            output: { width: 160, height: 90 }
            """)
        let statuses = StatusLog()
        try run(kiosk) { control in
            Thread.sleep(forTimeInterval: 0.1)
            control.send(.pause)
            Thread.sleep(forTimeInterval: 0.1)
            statuses.append(control.status)
            control.send(.navigate(.goTo(2)))
            Thread.sleep(forTimeInterval: 0.7)  // paused: no automatic change despite the 250 ms interval
            statuses.append(control.status)
            control.send(.resume)
            Thread.sleep(forTimeInterval: 0.45)
            statuses.append(control.status)
        }
        let changes = events.all
        #expect(changes.first == .pageChanged(from: 0, to: 2, cause: .command))
        // While paused, only the command changed the page.
        #expect(statuses.all[0].pausedBecause == ["remote"] && !statuses.all[0].playing)
        #expect(statuses.all[1].currentSlide == 2 && statuses.all[1].pausedBecause == ["remote"])
        // The next change after the command is the first automatic one after the
        // resume: nothing rotated during the 0.7 s pause (the status above still
        // showed slide 2 at its end).
        #expect(changes.count >= 2)
        #expect(changes.dropFirst().first == .pageChanged(from: 2, to: 0, cause: .automatic))
        #expect(statuses.all[2].playing)
        #expect(statuses.all[2].configurationVersion == "v1" && statuses.all[2].slideCount == 3)
    }

    @Test func aNewConfigurationAppliesAtTheSlideBoundaryWithItsPictureReady() throws {
        let directory = makeTemporaryDirectory()
        defer { removeTemporaryDirectory(directory) }
        let (kiosk, display, events) = try makeKiosk(directory, yaml: """
            slides: [red.jpg, green.jpg]
            interval: 400ms
            transition: { type: cut }
            indicator: { visible: false }
            output: { width: 160, height: 90 }
            """)
        let next = try ConfigLoader.parse("""
            slides: [yellow.jpg, blue.jpg]
            interval: 5s
            indicator: { visible: false }
            output: { width: 160, height: 90 }
            """, baseDirectory: directory)
        // Read at 250 ms, before the boundary at 400 ms (still v1), and at 650 ms.
        let statuses = try readStatuses(of: kiosk, applying: next, at: 0.1, readAt: [0.25, 0.65])
        #expect(statuses[0].configurationVersion == "v1")
        #expect(statuses[1].configurationVersion == "v2")
        #expect(statuses[1].slideCount == 2 && statuses[1].currentSlide == 0)
        #expect(events.applied == ["v2"])
        // The old playlist never reached its second slide: the switch took its boundary.
        #expect(!events.all.contains(.pageChanged(from: 0, to: 1, cause: .automatic)))
        #expect(isClose(display.currentFrame[80, 45], to: RGBAColor(red: 230, green: 220, blue: 20), tolerance: 6))
    }

    /// On the second of three slides when a configuration arrives that changes
    /// only the dots' colour: at the slide boundary the carousel goes on to the
    /// third slide, as it would have, instead of starting again at the first.
    @Test func aChangeThatLeavesThePlaylistAloneKeepsTheSlideAndItsDeadline() throws {
        let directory = makeTemporaryDirectory()
        defer { removeTemporaryDirectory(directory) }
        let yaml = """
            slides: [red.jpg, green.jpg, blue.jpg]
            interval: 600ms
            transition: { type: cut }
            output: { width: 160, height: 90 }
            """
        let (kiosk, display, events) = try makeKiosk(directory, yaml: yaml + "\nindicator: { visible: false }")
        let next = try ConfigLoader.parse(yaml + "\nindicator: { visible: false, color: \"#FF0000\" }", baseDirectory: directory)
        // Slide 1 from 600 ms; the boundary at 1,200 ms, then slide 2 until 1,800.
        let statuses = try readStatuses(of: kiosk, applying: next, at: 0.8, readAt: [0.8, 1.5])
        #expect(statuses[0].currentSlide == 1 && statuses[0].configurationVersion == "v1")
        #expect(statuses[1].configurationVersion == "v2")
        #expect(statuses[1].currentSlide == 2, "the carousel went on, not back to the first slide")
        #expect(events.applied == ["v2"])
        #expect(events.all.contains(.pageChanged(from: 1, to: 2, cause: .automatic)))
        #expect(isClose(display.currentFrame[80, 45], to: RGBAColor(red: 20, green: 20, blue: 220), tolerance: 6))
    }

    /// A new playlist with a slide put in front: the picture on screen (green)
    /// keeps its place in the rotation, now at index 2, and the carousel goes on
    /// from it to what follows it in the new playlist (blue), not to the new first slide.
    @Test func aPlaylistChangeCarriesOnFromThePictureOnScreen() throws {
        let directory = makeTemporaryDirectory()
        defer { removeTemporaryDirectory(directory) }
        let timings = "\ninterval: 600ms\ntransition: { type: cut }\nindicator: { visible: false }\noutput: { width: 160, height: 90 }"
        let (kiosk, display, events) = try makeKiosk(directory, yaml: "slides: [red.jpg, green.jpg]" + timings)
        let next = try ConfigLoader.parse("slides: [yellow.jpg, red.jpg, green.jpg, blue.jpg]" + timings, baseDirectory: directory)
        // Green (slide 1) from 600 ms; the boundary at 1,200 ms: green is slide 2 now, then blue.
        let statuses = try readStatuses(of: kiosk, applying: next, at: 0.8, readAt: [1.5])
        #expect(statuses[0].configurationVersion == "v2" && statuses[0].slideCount == 4)
        #expect(statuses[0].currentSlide == 3, "after green (now slide 2) comes blue")
        #expect(events.all.contains(.pageChanged(from: 2, to: 3, cause: .automatic)))
        #expect(!events.all.contains(.pageChanged(from: 1, to: 0, cause: .automatic)))
        #expect(isClose(display.currentFrame[80, 45], to: RGBAColor(red: 20, green: 20, blue: 220), tolerance: 6))
    }

    /// A playlist that rotates in step (`sync`), arriving as a channel version
    /// does: it starts at the slide the group shows (here slide 2, 25 minutes
    /// into a round of 10-minute slides), not at its first slide, which would
    /// leave it out of step for a whole dwell.
    @Test func aPlaylistInStepStartsAtTheGroupsSlide() throws {
        let directory = makeTemporaryDirectory()
        defer { removeTemporaryDirectory(directory) }
        let layout = "\ntransition: { type: cut }\nindicator: { visible: false }\noutput: { width: 160, height: 90 }"
        let (kiosk, display, events) = try makeKiosk(directory, yaml: "slides: [red.jpg, green.jpg]\ninterval: 600ms" + layout)
        let epoch = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 - 25 * 60).rounded(.down))
        let next = try ConfigLoader.parse("slides: [red.jpg, yellow.jpg, blue.jpg, red.jpg]\ninterval: 10m\n"
                                          + "sync: {epoch: \(epoch.ISO8601Format())}" + layout, baseDirectory: directory)
        // Green shows from 600 ms, and is not in the new playlist; the switch comes at the boundary, 1,200 ms.
        let statuses = try readStatuses(of: kiosk, applying: next, at: 0.8, readAt: [1.6])
        #expect(statuses[0].configurationVersion == "v2")
        #expect(statuses[0].currentSlide == 2, "the group's slide, not the first slide for a 10-minute dwell out of step")
        #expect(events.applied == ["v2"])
        #expect(isClose(display.currentFrame[80, 45], to: RGBAColor(red: 20, green: 20, blue: 220), tolerance: 6))
    }

    /// A playlist after an empty one: its pictures are decoded for the display's
    /// size, not for the 0x0 that a store without slides knows (as the schedule's
    /// screen-off hours and an override's end went through in the VM).
    @Test func aPlaylistAfterAnEmptyOneIsDecodedForTheDisplay() throws {
        let directory = makeTemporaryDirectory()
        defer { removeTemporaryDirectory(directory) }
        let layout = "\nbackground: \"#000000\"\nindicator: { visible: false }\noutput: { width: 160, height: 90 }"
        let (kiosk, display, events) = try makeKiosk(directory, yaml: "slides: []" + layout)
        let next = try ConfigLoader.parse("slides: [blue.jpg]" + layout, baseDirectory: directory)
        let statuses = try readStatuses(of: kiosk, applying: next, at: 0.3, readAt: [0.9])
        #expect(statuses[0].configurationVersion == "v2" && statuses[0].slideCount == 1)
        #expect(events.applied == ["v2"])
        #expect(isClose(display.currentFrame[80, 45], to: RGBAColor(red: 20, green: 20, blue: 220), tolerance: 6))
    }

    /// A URL slide's download arriving: the slide on screen changes in place, at
    /// once, with no configuration applied and the carousel where it was.
    @Test func aDownloadArrivingChangesOnlyItsSlideInPlace() throws {
        let directory = makeTemporaryDirectory()
        defer { removeTemporaryDirectory(directory) }
        let url = "https://example.com/sea.jpg"
        let (kiosk, display, events) = try makeKiosk(directory, yaml: """
            slides: ["\(url)", green.jpg]
            autoplay: false
            background: "#000000"
            indicator: { visible: false }
            output: { width: 160, height: 90 }
            """)
        let downloaded = directory + "/blue.jpg"
        let before = Locked<UInt32>(), statuses = StatusLog()
        try run(kiosk) { control in
            Thread.sleep(forTimeInterval: 0.4)
            let frame = Locked<PixelImage>()
            control.requestFrame { frame.append($0) }
            for _ in 0..<100 where frame.all.isEmpty { Thread.sleep(forTimeInterval: 0.01) }
            if let centre = frame.all.first?[80, 45] { before.append(centre) }
            control.send(.updateDownloads([url: downloaded]))
            Thread.sleep(forTimeInterval: 0.6)
            statuses.append(control.status)
        }
        #expect(isClose(try #require(before.all.first), to: RGBAColor(red: 0, green: 0, blue: 0), tolerance: 6), "nothing downloaded: the background")
        #expect(isClose(display.currentFrame[80, 45], to: RGBAColor(red: 20, green: 20, blue: 220), tolerance: 6))
        #expect(statuses.all.first?.currentSlide == 0 && statuses.all.first?.configurationVersion == "v1")
        #expect(events.applied.isEmpty, "no configuration went through the apply path")
        #expect(events.all.isEmpty, "no page change")
    }
}

final class StatusLog: @unchecked Sendable {
    private let lock = NSLock()
    private var statuses: [KioskStatus] = []
    func append(_ status: KioskStatus) { lock.lock(); statuses.append(status); lock.unlock() }
    var all: [KioskStatus] { lock.lock(); defer { lock.unlock() }; return statuses }
}

extension EventLog {
    func appendApplied(_ version: String) { appliedVersions.append(version) }
    var applied: [String] { appliedVersions.all }
}
