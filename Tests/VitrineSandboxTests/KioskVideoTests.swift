import Foundation
import Logging
import PictureTestSupport
import Synchronization
import Testing
import VitrineConfig
import VitrineCore
import VitrineRuntime
@testable import VitrineSandbox

/// A video slide in the real display loop (headless), played by `vitrine-video`:
/// what the status says while it plays, and what proof of play hears as the
/// carousel pages away.
@Suite(.serialized) struct KioskVideoTests {
    @Test func theStatusShowsTheVideoAndProofOfPlayHearsHowMuchPlayed() throws {
        let first = try NumberedClip(codec: .h264, framesPerSecond: 25, seconds: 1)
        let second = try NumberedClip(codec: .vp9, framesPerSecond: 25, seconds: 1)
        defer { first.remove(); second.remove() }
        let configuration = try ConfigLoader.parse("""
            slides: ["\(first.path)", "\(second.path)"]
            transition: { type: cut }
            output: { width: 320, height: 240 }
            """, baseDirectory: FileManager.default.temporaryDirectory.path)
        let display = HeadlessDisplay(size: configuration.outputSize, previewPath: nil, logger: Logger(label: "test"))
        let kiosk = try Kiosk(configuration: configuration, version: "v1", display: display, logger: Logger(label: "test"),
                              decoder: InProcessSlideDecoder(videos: SandboxedVideoOpener(executable: SandboxedVideoTests.helper)))
        let played = Mutex<[(slide: Int, played: Duration)]>([])
        kiosk.onEvent = { event in
            if case .videoPlayed(let slide, let duration) = event { played.withLock { $0.append((slide, duration)) } }
        }
        let statuses = Mutex<[KioskStatus]>([])
        let control = kiosk.control, stop = kiosk.stopHandle
        Thread.detachNewThread {
            Thread.sleep(forTimeInterval: 0.6)
            statuses.withLock { $0.append(control.status) }
            // The first video lasts 1 s, and then the carousel pages to the second.
            Thread.sleep(forTimeInterval: 1.4)
            statuses.withLock { $0.append(control.status) }
            stop.stop()
        }
        try kiosk.run()
        let seen = statuses.withLock { $0 }
        let playing = try #require(seen.first?.video)
        #expect(seen.first?.currentSlide == 0)
        #expect(playing.file == first.path && playing.info.codec == "h264" && playing.info.decoder == "h264")
        #expect(!playing.info.decodesInHardware)
        #expect(playing.played > .milliseconds(100) && playing.played < .seconds(1), "\(playing.played)")
        #expect(playing.failure == nil && playing.pacing.shown > 0)
        // On the second slide: its own video, by its own decoder.
        #expect(seen.last?.currentSlide == 1)
        #expect(seen.last?.video?.info.codec == "vp9")
        let reports = played.withLock { $0 }
        let report = try #require(reports.first)
        #expect(report.slide == 0)
        // All of its second played, give or take the frame that was on screen as it paged.
        #expect(abs(report.played.secondsValue - 1) <= 0.08, "\(report.played)")
    }
}
