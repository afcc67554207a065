import ArgumentParser
import FoundationEssentials
import Glibc
import VitrineConfig
import VitrineCore
import VitrineRuntime

struct MemoryBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "memory",
        abstract: "Steady-state memory of the slide pipeline for a 10-slide and a 1,000-slide playlist.")

    @Option(help: "The configuration whose pictures are cycled through.") var config = "deploy/demo/vitrine.yaml"
    @Option(help: "Page changes to run through.") var changes = 60

    /// The frame-store layouts measured side by side, each in fresh processes.
    static let layouts: [(name: String, cacheSlides: Int, scratch: String)] = [
        ("5 frames, scratch kept warm (before issue 13)", 5, "kept"),
        ("3 frames, scratch released when idle (default)", 3, "released"),
    ]

    func run() throws {
        let executable = currentExecutable()
        print("Pipeline at 1920x1080 through \(changes) page changes (demo pictures repeated to fill the playlist)")
        print("")
        print("| layout | playlist length | peak RSS MiB | RSS after the run MiB | mean decode ms |")
        print("| --- | ---: | ---: | ---: | ---: |")
        for layout in Self.layouts {
            for slides in [10, 1000] {
                let output = FileManager.default.temporaryDirectory.path + "/vitrine-memory-\(getpid())-\(slides)"
                defer { try? FileManager.default.removeItem(atPath: output) }
                let measurement = try ChildProcess.measure([
                    executable, "bench", "memory-run", "--config", config, "--slides", "\(slides)", "--changes", "\(changes)",
                    "--cache-slides", "\(layout.cacheSlides)", "--scratch", layout.scratch, "--report", output,
                ])
                guard measurement.exitStatus == 0, let report = FileManager.default.contents(atPath: output) else {
                    throw ValidationError("memory-run for \(slides) slides exited with \(measurement.exitStatus)")
                }
                let fields = String(decoding: report, as: UTF8.self).split(whereSeparator: \.isWhitespace).compactMap { Double($0) }
                guard fields.count == 2 else { throw ValidationError("memory-run wrote an unreadable report to \(output)") }
                print("| \(layout.name) | \(slides) | \(format(Double(measurement.peakResidentKiB) / 1024)) | \(format(fields[0] / 1024)) | \(format(fields[1])) |")
            }
        }
    }
}

/// Hidden: runs the engine and the slide store through page changes on virtual
/// time, waiting for each decode, composing every frame at the end of each change.
struct MemoryRun: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "memory-run", shouldDisplay: false)
    @Option var config: String
    @Option var slides: Int
    @Option var changes: Int
    @Option var cacheSlides: Int
    @Option var scratch: String
    @Option var report: String

    func run() throws {
        var configuration = try ConfigLoader.load(file: config)
        let pictures = configuration.slides
        configuration.slides = (0..<slides).map { pictures[$0 % pictures.count] }
        let output = PixelSize(width: 1920, height: 1080)
        let metrics = KioskMetrics()
        let store = SlideFrameStore(slides: configuration.slideRequests(output: output),
                                    placeholder: configuration.placeholderRequest(output: output),
                                    capacity: cacheSlides, metrics: metrics,
                                    scratch: scratch == "kept" ? .keptWarm : .releasedWhenIdle, decoder: InProcessSlideDecoder(), onChange: {})
        var engine = CarouselEngine(settings: configuration.carouselSettings, start: .zero)
        let frame = PixelImage(size: output)
        var now = MonotonicInstant.zero
        var changed = 0
        while changed < changes {
            store.request(engine.slidesToPrefetch())
            store.waitUntilIdle()
            guard case .at(let deadline) = engine.nextWakeup() else { break }
            now = deadline + configuration.transition.duration
            changed += engine.advance(to: now, isReady: { store.isSettled($0) }).count
            configuration.compositor.compose(engine.scene(at: now), into: frame.canvas) { store.frame(for: $0) }
        }
        let resident = ChildProcess.ownMemory().resident
        let decodes = metrics.snapshot
        let meanDecodeMilliseconds = decodes.decodeSeconds * 1000 / Double(max(decodes.decodeCount, 1))
        guard FileManager.default.createFile(atPath: report, contents: Data("\(resident) \(meanDecodeMilliseconds)\n".utf8)) else {
            throw ValidationError("cannot write the memory report to \(report)")
        }
    }
}
