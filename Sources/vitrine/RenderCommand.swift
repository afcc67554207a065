import ArgumentParser
import Logging
import VitrineConfig
import VitrineCore
import VitrinePNG
import VitrineRuntime
import VitrineSandbox
import VitrineSystem

struct RenderCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "render",
        abstract: "Write the exact frame shown a given time after start, with no touches, as a PNG.")

    @Option(name: .shortAndLong, help: "The configuration file (YAML or JSON).")
    var config: String

    @Option(help: "Seconds after start, for example 12.5.")
    var at: Double

    @Option(help: ArgumentHelp(
        "With a schedule: the wall-clock instant whose playlist to render, as vitrine schedule's --from takes it (2026-03-28T07:00:05Z); --at then counts from when that playlist began showing, as the kiosk starts a newly scheduled playlist from its first slide.",
        valueName: "instant"))
    var wall: String?

    @Option(name: .shortAndLong, help: "The file to write: PNG, or binary PPM when it ends in .ppm (for tools that compare raw pixels).")
    var out: String

    @Option(help: "Output size WIDTHxHEIGHT; defaults to output.width x output.height.")
    var size: String?

    @Option(help: ArgumentHelp(
        "With an outputs section: the output whose picture to render, by its connector name (HDMI-A-2); defaults to the first listed, the one a kiosk that drives one output drives when it is connected.",
        valueName: "connector"))
    var output: String?

    @OptionGroup var logging: LoggingOptions

    func validate() throws {
        guard at >= 0, at.isFinite else { throw ValidationError("--at must be a number of seconds, 0 or more") }
        if let size, PixelSize(parsing: size) == nil { throw ValidationError("--size must be WIDTHxHEIGHT, for example 1280x720") }
    }

    func run() throws {
        let logger = logging.bootstrap()
        var configuration = try loadConfiguration(config, logger: logger)
        if let name = try renderedOutput(configuration) { configuration = configuration.shown(onOutput: name) }
        if let wall { configuration = try scheduled(configuration, at: wall, logger: logger) }
        // Pictures in this process, as the kiosk's helpers decode them; videos in video helpers, as the kiosk plays them.
        let renderer = FrameRenderer(configuration: configuration, output: size.flatMap(PixelSize.init(parsing:)),
                                     decoder: InProcessSlideDecoder(videos: SandboxedVideoOpener()))
        let (frame, failures) = renderer.render(at: at)
        for failure in failures { logger.error("\(failure)") }
        do {
            let bytes = out.hasSuffix(".ppm") ? PPM.encode(frame) : try PNGCodec.encode(frame)
            try FileIO.writeAtomically(bytes, to: out, durable: false)
        } catch {
            logger.critical("cannot write \(out): \(error)")
            throw ExitCode(1)
        }
    }
}

extension RenderCommand {
    /// The output the frame is rendered for: `--output`, else the first the
    /// `outputs` section lists; nil without the section (the one output there is).
    func renderedOutput(_ configuration: KioskConfiguration) throws -> String? {
        guard let layout = configuration.outputs else {
            if let output { throw ValidationError("--output \(output): \(config) has no outputs section") }
            return nil
        }
        guard let name = output ?? layout.outputs.first?.name else { return nil }
        guard layout.output(named: name) != nil else {
            throw ValidationError("--output \(name): not in \(config)'s outputs (\(layout.outputs.map(\.name).joined(separator: ", ")))")
        }
        return name
    }

    /// The configuration as the kiosk shows it at `wall`: the schedule's playlist then.
    func scheduled(_ configuration: KioskConfiguration, at wall: String, logger: Logger) throws -> KioskConfiguration {
        guard let schedule = configuration.schedule, let timeline = schedule.timeline() else {
            logger.critical("\(config): --wall needs a schedule section")
            throw ExitCode(64)
        }
        guard let instant = ScheduleCommand.instant(wall, in: timeline.zone) else {
            logger.critical("--wall must be an ISO 8601 date and time such as 2026-03-28T12:00:00Z, found \(wall)")
            throw ExitCode(64)
        }
        switch timeline.showing(at: instant) {
        case .playlist(let name, let slides):
            return configuration.showingPlaylist(name, slides: slides)
        case .off:
            logger.critical("the schedule has the screen off at \(instant): there is no frame to render")
            throw ExitCode(1)
        }
    }
}

/// Binary PPM (P6): a header and raw RGB bytes; what QEMU's screendump writes,
/// so the VM tests compare like with like.
enum PPM {
    static func encode(_ image: PixelImage) -> [UInt8] {
        var bytes = Array("P6\n\(image.width) \(image.height)\n255\n".utf8)
        bytes.reserveCapacity(bytes.count + image.size.pixelCount * 3)
        for pixel in image.pixels.prefix(image.size.pixelCount) {
            bytes.append(UInt8(truncatingIfNeeded: pixel >> 16))
            bytes.append(UInt8(truncatingIfNeeded: pixel >> 8))
            bytes.append(UInt8(truncatingIfNeeded: pixel))
        }
        return bytes
    }
}
