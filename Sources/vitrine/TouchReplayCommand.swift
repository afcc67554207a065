import ArgumentParser
import FoundationEssentials
import VitrineConfig
import VitrineCore
import VitrineEvdev
import VitrineRuntime

struct TouchReplayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Run an evemu-record file through the touch pipeline and print what it recognises, one JSON line per event.",
        discussion: """
            The events go through the same device model, gesture recognizer and carousel engine as the kiosk, against \
            a virtual output, with auto-rotation off. Lines: tap (slide, x, y), dragStart, dragEnd, swipe (next or \
            previous) and pageChanged, each with its time t in seconds from the first event.
            """)

    @Argument(help: "An evemu-record file; or, with --description, an events-only file.") var file: String
    @Option(help: "The device description (evemu-describe output) for an events-only file.") var description: String?
    @Option(help: "The virtual output, WIDTHxHEIGHT.") var output = "1920x1080"
    @Option(help: "How many slides the virtual carousel has.") var slides = 5
    @Option(help: "Display rotation in degrees: 0, 90, 180 or 270.") var rotation = 0
    @Option(name: .shortAndLong, help: "A configuration whose touch settings (thresholds, include, exclude, calibrations) to use.") var config: String?

    func run() throws {
        guard let size = PixelSize(parsing: output) else { throw ValidationError("--output must be WIDTHxHEIGHT") }
        guard let turned = DisplayRotation(rawValue: rotation) else { throw ValidationError("--rotation must be 0, 90, 180 or 270") }
        let touch = try config.map { path in
            do { return try ConfigLoader.load(file: path).touch } catch { throw ValidationError("\(error)") }
        } ?? TouchConfiguration()
        let recording: EvemuRecording
        do {
            let text = try String(contentsOfFile: file, encoding: .utf8)
            if let description {
                recording = try EvemuRecording.parse(events: text, description: try String(contentsOfFile: description, encoding: .utf8))
            } else {
                recording = try EvemuRecording.parse(text)
            }
        } catch let error as EvemuRecording.ParseError {
            throw ValidationError("\(description != nil ? "\(file) or its description" : file): \(error)")
        }
        do {
            for line in try TouchReplay(output: size, slideCount: slides, touch: touch, rotation: turned).run(recording) {
                print(line)
            }
        } catch {
            throw ValidationError("\(file): \(error)")
        }
    }
}
