import ArgumentParser
import VitrineConfig
import VitrineCore
import VitrinePNG
import VitrineRuntime

struct RenderCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "render",
        abstract: "Write the exact frame shown a given time after start, with no touches, as a PNG.")

    @Option(name: .shortAndLong, help: "The configuration file (YAML or JSON).")
    var config: String

    @Option(help: "Seconds after start, for example 12.5.")
    var at: Double

    @Option(name: .shortAndLong, help: "The PNG file to write.")
    var out: String

    @Option(help: "Output size WIDTHxHEIGHT; defaults to output.width x output.height.")
    var size: String?

    @OptionGroup var logging: LoggingOptions

    func validate() throws {
        guard at >= 0, at.isFinite else { throw ValidationError("--at must be a number of seconds, 0 or more") }
        if let size, PixelSize(parsing: size) == nil { throw ValidationError("--size must be WIDTHxHEIGHT, for example 1280x720") }
    }

    func run() throws {
        let logger = logging.bootstrap()
        let configuration: KioskConfiguration
        do {
            configuration = try ConfigLoader.load(file: config)
        } catch {
            for line in error.description.split(separator: "\n") { logger.critical("invalid configuration: \(line)") }
            throw ExitCode(1)
        }
        let renderer = FrameRenderer(configuration: configuration, output: size.flatMap(PixelSize.init(parsing:)))
        let (frame, failures) = renderer.render(at: at)
        for failure in failures { logger.error("\(failure)") }
        do {
            try FileIO.writeAtomically(try PNGCodec.encode(frame), to: out, durable: false)
        } catch {
            logger.critical("cannot write \(out): \(error)")
            throw ExitCode(1)
        }
    }
}
