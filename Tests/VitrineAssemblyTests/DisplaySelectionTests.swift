import Foundation
import Logging
import ServerTestSupport
import Testing
import VitrineConfig
import VitrineCore
@testable import VitrineAssembly
@testable import VitrineRuntime

/// Which display `vitrine run` opens, on a machine whose cards a test names:
/// headless when asked, headless with the reason when `auto` finds no card it
/// can use, and a refusal with `drm`.
@Suite("Display selection")
struct DisplaySelectionTests {
    func configuration(_ output: String, extra: String = "") throws -> KioskConfiguration {
        try ConfigLoader.parse("slides: [{path: \"#ff0000\"}]\noutput: {\(output)}\n\(extra)")
    }

    @Test("headless: one in-memory display at the output's size")
    func headless() throws {
        let log = CapturedLog()
        let displays = try DisplaySelection.open(try configuration("display: headless, width: 640, height: 360, preview: \"off\""),
                                                 cardPaths: { Issue.record("no card is looked for headless"); return [] }, logger: log.logger)
        #expect(displays.groups.map(\.display.description) == ["headless 640x360"])
        #expect(log.text.contains("running headless at 640x360, no preview PNG"))
    }

    @Test("headless with several outputs: one display per output, each at its mode, its preview named after it")
    func headlessOutputs() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("selection-\(UInt32.random(in: 0...UInt32.max))").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let displays = try DisplaySelection.open(try configuration(
            "display: headless, preview: \(directory)/preview.png",
            extra: "outputs:\n  - {name: HDMI-A-1, mode: 800x600}\n  - {name: HDMI-A-2, mode: 1024x768}\n"),
            cardPaths: { [] }, logger: Logger(label: "test"))
        #expect(displays.groups.map(\.display.outputSize) == [PixelSize(width: 800, height: 600), PixelSize(width: 1024, height: 768)])
        #expect(displays.groups.map(\.shown.output) == ["HDMI-A-1", "HDMI-A-2"])
    }

    @Test("auto with no card: headless, and the log says why")
    func autoWithoutCard() throws {
        let log = CapturedLog()
        let displays = try DisplaySelection.open(try configuration("display: auto, width: 320, height: 200, preview: \"off\""),
                                                 cardPaths: { [] }, logger: log.logger)
        #expect(displays.groups.map(\.display.description) == ["headless 320x200"])
        #expect(log.text.contains("/dev/dri"))
        #expect(log.text.contains("running headless at 320x200"))
    }

    @Test("auto with a card that cannot be opened: headless, naming the card and the reason")
    func autoWithBrokenCard() throws {
        let log = CapturedLog()
        let missing = "/nonexistent/dri/card7"
        let displays = try DisplaySelection.open(try configuration("display: auto, width: 320, height: 200, preview: \"off\""),
                                                 cardPaths: { [missing] }, logger: log.logger)
        #expect(displays.groups.count == 1)
        #expect(log.text.contains(missing))
    }

    @Test("a card that is not a DRM device is refused by name")
    func notADevice() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("card-\(UInt32.random(in: 0...UInt32.max))").path
        #expect(FileManager.default.createFile(atPath: file, contents: Data("not a card".utf8)))
        defer { try? FileManager.default.removeItem(atPath: file) }
        let log = CapturedLog()
        #expect(throws: DisplayUnavailable.self) {
            try DisplaySelection.open(try configuration("display: drm, card: \(file)"), cardPaths: { [] }, logger: log.logger)
        }
        #expect(log.text.contains("critical cannot use the display"))
        #expect(log.text.contains(file))
    }

    @Test("drm with no card at all: refused, so that the process ends instead of showing nothing")
    func drmWithoutCard() throws {
        let log = CapturedLog()
        let error = #expect(throws: DisplayUnavailable.self) {
            try DisplaySelection.open(try configuration("display: drm"), cardPaths: { [] }, logger: log.logger)
        }
        #expect(error?.description.contains("/dev/dri") == true)
    }
}
