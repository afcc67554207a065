import ArgumentParser
import VitrineSandbox
import FoundationEssentials
import Glibc
import VitrineConfig
import VitrineCore
import VitrineJPEG
import VitrineRuntime
import VitrineSystem
import VitrineWebP

/// Benchmarks measured side by side with the reference tools in the same run;
/// the tables they print go into docs/benchmarks.md.
struct BenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Benchmarks against reference tools (see docs/benchmarks.md).",
        subcommands: [DecodeBench.self, ComposeBench.self, CompositeBench.self, MemoryBench.self, PlanesBench.self, DecodeOnce.self, MemoryRun.self])
}

/// Median of measured durations, in milliseconds.
func medianMilliseconds(_ samples: [Duration]) -> Double {
    let sorted = samples.map { Double($0.nanoseconds) / 1e6 }.sorted()
    return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
}

func format(_ value: Double, decimals: Int = 1) -> String {
    fixedPoint(value, decimals: decimals)
}

/// This program's path, absolute, for benchmarks that run it again as a child process.
func currentExecutable() -> String {
    let path = CommandLine.arguments[0]
    return path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
}

func timeInProcess(_ body: () throws -> Void) rethrows -> Duration {
    let start = MonotonicClock.now()
    try body()
    return MonotonicClock.now() - start
}

/// Times `operations` side by side: every round runs each once, in an order
/// that rotates from round to round, so that all of them see the same memory
/// and the same machine noise; each operation's ratio is taken within a round,
/// against that round's time of `references[index]` (an operation's index).
/// The median time and ratio of each, over `rounds` after `warmup` untimed ones.
func timeSideBySide(_ operations: [(Int) throws -> Void], references: [Int], rounds: Int, warmup: Int) throws
    -> [(milliseconds: Double, ratio: Double)] {
    var samples = Array(repeating: [Duration](), count: operations.count)
    var ratios = Array(repeating: [Double](), count: operations.count)
    for round in 0..<(rounds + warmup) {
        var times = Array(repeating: Duration.zero, count: operations.count)
        for step in operations.indices {
            let index = (step + round) % operations.count
            times[index] = try timeInProcess { try operations[index](round) }
        }
        guard round >= warmup else { continue }
        for index in operations.indices {
            samples[index].append(times[index])
            ratios[index].append(Double(times[index].nanoseconds) / Double(max(times[references[index]].nanoseconds, 1)))
        }
    }
    return operations.indices.map { (medianMilliseconds(samples[$0]), ratios[$0].sorted()[ratios[$0].count / 2]) }
}

struct DecodeBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decode",
        abstract: "Decode a generated 12-megapixel JPEG, and the same picture as WebP, GIF and HEIC, to a 1920x1080 frame; compare djpeg -scale, dwebp -scale, gif2rgb, heif-convert and vipsthumbnail.")

    @Option(help: "Timed runs of each tool.") var runs = 15

    func run() throws {
        let directory = FileManager.default.temporaryDirectory.path + "/vitrine-bench-\(getpid())"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let source = PixelSize(width: 4000, height: 3000), display = PixelSize(width: 1920, height: 1080)
        let photo = directory + "/photo-12mp.jpg"
        let jpeg = try JPEGEncoder().encode(SyntheticPhoto.make(size: source), quality: 90)
        guard FileManager.default.createFile(atPath: photo, contents: Data(jpeg)) else {
            throw ValidationError("cannot write the benchmark photo to \(photo)")
        }
        let request = SlideRequest(file: "photo-12mp.jpg", resolvedPath: photo, fit: .contain, background: .black,
                                   output: display, maxPixels: 100_000_000)
        let target = SlideFramer.decodeTarget(picture: source, orientation: .up, output: display, fit: .contain)
        let scale = JPEGScalingFactor.smallest(decoding: source, covering: target)
        let fitted = SlideLayout.placement(of: source, in: display, fit: .contain).size
        let workspace = try SlideDecodingWorkspace()
        // As in the kiosk, where frames evicted from the cache are recycled for the next decode.
        let frameStorage = PixelStorage(capacity: display.pixelCount)
        let executable = currentExecutable()
        let tools = ComparedTool.installed([
            ComparedTool("vitrine (process)", [executable, "bench", "decode-once", photo]),
            ComparedTool("djpeg -scale \(scale)", ["djpeg", "-scale", "\(scale)", "-pnm", "-outfile", "/dev/null", photo], package: "libjpeg-turbo-progs"),
            ComparedTool("vipsthumbnail -s \(display)", ["vipsthumbnail", photo, "-s", "\(display.width)x\(display.height)", "-o", directory + "/thumb.v"],
                         package: "libvips-tools"),
        ])
        // The same picture as a lossy WebP (cwebp of the JPEG), decoded by libwebp's scaler to the size that covers the frame.
        let webpPath = directory + "/photo-12mp.webp"
        let encoded = try ChildProcess.measure(["cwebp", "-quiet", "-q", "90", photo, "-o", webpPath])
        guard encoded.exitStatus == 0, let webp = FileManager.default.contents(atPath: webpPath) else {
            throw ValidationError("cwebp could not make the WebP (apt-get install webp)")
        }
        let webpRequest = SlideRequest(file: "photo-12mp.webp", resolvedPath: webpPath, fit: .contain, background: .black,
                                       output: display, maxPixels: 100_000_000)
        let webpScaled = WebPDecoder.scaledSize(decoding: source, covering: target)
        let webpTools = ComparedTool.installed([
            ComparedTool("vitrine (process)", [executable, "bench", "decode-once", webpPath]),
            ComparedTool("dwebp -scale \(webpScaled.width) \(webpScaled.height)",
                         ["dwebp", "-quiet", "-scale", "\(webpScaled.width)", "\(webpScaled.height)", "-pam", webpPath, "-o", "/dev/null"], package: "webp"),
        ])
        // The same picture as a GIF: its pixels as RGB triplets, quantised to 256 colours by giflib's gif2rgb
        // (GifQuantizeBuffer), which also decodes it, whole and unscaled (giflib has no scaler), as the reference.
        let rgbPath = directory + "/photo-12mp.rgb", gifPath = directory + "/photo-12mp.gif"
        let picture = SyntheticPhoto.make(size: source)
        var rgb = [UInt8](repeating: 0, count: source.pixelCount * 3)
        for i in 0..<source.pixelCount {
            let pixel = picture.pixels[i]
            rgb[i * 3] = UInt8(truncatingIfNeeded: pixel >> 16)
            rgb[i * 3 + 1] = UInt8(truncatingIfNeeded: pixel >> 8)
            rgb[i * 3 + 2] = UInt8(truncatingIfNeeded: pixel)
        }
        guard FileManager.default.createFile(atPath: rgbPath, contents: Data(rgb)) else {
            throw ValidationError("cannot write the benchmark picture's RGB to \(rgbPath)")
        }
        // gif2rgb writes a GIF it makes to standard output, whatever -o says.
        let quantised = try ChildProcess.measure(["sh", "-c", "gif2rgb -1 -s \(source.width) \(source.height) \"$0\" > \"$1\"", rgbPath, gifPath])
        try? FileManager.default.removeItem(atPath: rgbPath)
        guard quantised.exitStatus == 0, let gif = FileManager.default.contents(atPath: gifPath), !gif.isEmpty else {
            throw ValidationError("gif2rgb could not make the GIF (apt-get install giflib-tools)")
        }
        let gifRequest = SlideRequest(file: "photo-12mp.gif", resolvedPath: gifPath, fit: .contain, background: .black,
                                      output: display, maxPixels: 100_000_000)
        let gifTools = ComparedTool.installed([
            ComparedTool("vitrine (process)", [executable, "bench", "decode-once", gifPath]),
            ComparedTool("gif2rgb -1 (whole, unscaled)", ["gif2rgb", "-1", "-o", "/dev/null", gifPath], package: "giflib-tools"),
        ])
        // The same picture as HEIC (heif-enc -q 90 of the JPEG: x265), which libheif decodes
        // whole (it has no scaler); heif-convert, libheif's own tool, decodes it whole too and
        // writes the planes as Y4M, the output that costs it least (no RGB, no compression).
        let heicPath = directory + "/photo-12mp.heic"
        let heicEncoded = try ChildProcess.measure(["heif-enc", "-q", "90", photo, "-o", heicPath])
        guard heicEncoded.exitStatus == 0, let heic = FileManager.default.contents(atPath: heicPath) else {
            throw ValidationError("heif-enc could not make the HEIC (apt-get install libheif-examples)")
        }
        let heicRequest = SlideRequest(file: "photo-12mp.heic", resolvedPath: heicPath, fit: .contain, background: .black,
                                       output: display, maxPixels: 100_000_000)
        let heifTools = ComparedTool.installed([
            ComparedTool("vitrine (process)", [executable, "bench", "decode-once", heicPath]),
            ComparedTool("heif-convert to Y4M (whole, unscaled)", ["heif-convert", "--quiet", heicPath, directory + "/heif-convert.y4m"],
                         package: "libheif-examples"),
        ])
        let jpegResults = try Self.measure(runs: runs, tools: tools) {
            _ = try SlideDecoding.frame(for: request, workspace: workspace, frameStorage: frameStorage)
        }
        let webpResults = try Self.measure(runs: runs, tools: webpTools) {
            _ = try SlideDecoding.frame(for: webpRequest, workspace: workspace, frameStorage: frameStorage)
        }
        print("Decode \(source) JPEG (\(jpeg.count / 1024) KiB, quality 90, 4:2:0) to a \(display) frame (fitted \(fitted), DCT scale \(scale)); median of \(runs) runs")
        print("")
        Self.table(jpegResults, tools: tools, reference: "djpeg")
        print("")
        print("Decode the same picture as WebP (\(webp.count / 1024) KiB, cwebp -q 90 of the JPEG) to the same frame "
              + "(libwebp scaled to \(webpScaled)); median of \(runs) runs")
        print("")
        Self.table(webpResults, tools: webpTools, reference: "dwebp")
        let gifResults = try Self.measure(runs: runs, tools: gifTools) {
            _ = try SlideDecoding.frame(for: gifRequest, workspace: workspace, frameStorage: frameStorage)
        }
        print("")
        print("Decode the same picture as GIF (\(gif.count / 1024) KiB, 256 colours by gif2rgb's quantiser) to the same frame "
              + "(giflib decodes at full size, resampled row by row); median of \(runs) runs")
        print("")
        Self.table(gifResults, tools: gifTools, reference: "gif2rgb")
        let heifResults = try Self.measure(runs: runs, tools: heifTools) {
            _ = try SlideDecoding.frame(for: heicRequest, workspace: workspace, frameStorage: frameStorage)
        }
        print("")
        print("Decode the same picture as HEIC (\(heic.count / 1024) KiB, heif-enc -q 90 of the JPEG, x265) to the same frame "
              + "(libheif decodes at full size, resampled row by row); median of \(runs) runs")
        print("")
        Self.table(heifResults, tools: heifTools, reference: "heif-convert")
        try Self.sandboxTable([("JPEG", request), ("WebP", webpRequest), ("GIF", gifRequest), ("HEIC", heicRequest)], runs: runs)
    }

    /// What the decoding sandbox costs: each picture decoded in this process and
    /// through a helper (`SandboxedSlideDecoder`, one warm helper), side by side
    /// in one run, and the memory of this process and of the helper beside it.
    static func sandboxTable(_ pictures: [(name: String, request: SlideRequest)], runs: Int) throws {
        let pool = DecodePool(size: 1)
        let sandboxed = SandboxedSlideDecoder(pool: pool)
        let inProcess = InProcessSlideDecoder()
        print("")
        print("The same pictures decoded in this process and in a sandboxed helper (seccomp, address-space limit; the frame "
              + "written into shared memory), side by side; median of \(runs) rounds")
        print("")
        print("| picture | in process ms | sandboxed helper ms | helper vs in process |")
        print("| --- | ---: | ---: | ---: |")
        for (name, request) in pictures {
            // In process as the kiosk's decode queue did it before the sandbox: the scratch
            // returned to the system once the queue is idle (`SlideFrameStore.ScratchPolicy`),
            // as a helper returns its memory after every job.
            let timed = try timeSideBySide([
                { _ in
                    _ = try inProcess.picture(for: request, frameStorage: nil)
                    inProcess.releaseScratch()
                    MemoryPolicy.returnFreedMemory()
                },
                { _ in _ = try sandboxed.picture(for: request, frameStorage: nil) },
            ], references: [0, 0], rounds: runs, warmup: 2)
            print("| \(name) | \(format(timed[0].milliseconds)) | \(format(timed[1].milliseconds)) | \(format(timed[1].ratio, decimals: 2))x |")
        }
        let own = ChildProcess.ownMemory()
        print("")
        for helper in pool.helperMemory() {
            print("Memory: this process \(format(Double(own.resident) / 1024)) MiB resident (peak \(format(Double(own.peak) / 1024))); "
                  + "the helper \(format(Double(helper.residentKiB) / 1024)) MiB resident after its jobs (peak \(format(Double(helper.peakKiB) / 1024)))")
        }
    }

    struct Results {
        var inProcess: Duration
        var wall: [Duration]
        var peakKiB: [Int]
    }

    /// Medians of `runs` rounds (after two warm-up rounds) of `inProcess` and of each tool as a child process.
    static func measure(runs: Int, tools: [ComparedTool], inProcess body: () throws -> Void) throws -> Results {
        var inProcess: [Duration] = []
        var wall = Array(repeating: [Duration](), count: tools.count)
        var peak = Array(repeating: 0, count: tools.count)
        for round in 0..<(runs + 2) {
            // Rounds interleave the tools so that machine noise hits them alike; two warm-up rounds.
            let elapsed = try timeInProcess(body)
            for (index, tool) in tools.enumerated() {
                let measurement = try ChildProcess.measure(tool.command)
                guard measurement.exitStatus == 0 else {
                    throw ValidationError("\(tool.command.joined(separator: " ")) exited with \(measurement.exitStatus)")
                }
                if round >= 2 {
                    wall[index].append(measurement.wall)
                    peak[index] = max(peak[index], measurement.peakResidentKiB)
                }
            }
            if round >= 2 { inProcess.append(elapsed) }
        }
        return Results(inProcess: .nanoseconds(Int64(medianMilliseconds(inProcess) * 1e6)),
                       wall: wall.map { .nanoseconds(Int64(medianMilliseconds($0) * 1e6)) }, peakKiB: peak)
    }

    /// The table of one format: the in-process decode, then each tool; `tools[1]` is the reference,
    /// when it is installed (else the ratios are to the in-process decode).
    static func table(_ results: Results, tools: [ComparedTool], reference: String) {
        let milliseconds = { (duration: Duration) in Double(duration.nanoseconds) / 1e6 }
        let ours = milliseconds(results.inProcess)
        let hasReference = tools.count > 1 && tools[1].name.hasPrefix(reference)
        let base = hasReference ? milliseconds(results.wall[1]) : ours
        print("| tool | median wall ms | vs \(hasReference ? reference : "in process") | peak RSS MiB |")
        print("| --- | ---: | ---: | ---: |")
        print("| vitrine decode+resample+frame (in process) | \(format(ours)) | \(format(ours / base, decimals: 2))x | – |")
        for (index, tool) in tools.enumerated() {
            let median = milliseconds(results.wall[index])
            print("| \(tool.name) | \(format(median)) | \(format(median / base, decimals: 2))x | \(format(Double(results.peakKiB[index]) / 1024)) |")
        }
    }
}

/// A program the decode benchmark compares with, and the Debian package that has it.
struct ComparedTool {
    var name: String
    var command: [String]
    var package: String?

    init(_ name: String, _ command: [String], package: String? = nil) {
        self.name = name
        self.command = command
        self.package = package
    }

    /// The tools whose program is installed; each other one is skipped with a
    /// line saying how to install it, rather than failing the run with exit status 127.
    static func installed(_ tools: [ComparedTool]) -> [ComparedTool] {
        tools.filter { tool in
            guard let program = tool.command.first, !isInstalled(program) else { return true }
            let install = tool.package.map { " (apt-get install \($0))" } ?? ""
            print("skipping \(tool.name): \(program) is not installed\(install)")
            return false
        }
    }

    /// Whether `program` is an executable path, or is found in `PATH` as a shell would.
    static func isInstalled(_ program: String) -> Bool {
        if program.contains("/") { return access(program, X_OK) == 0 }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        return path.split(separator: ":").contains { access("\($0)/\(program)", X_OK) == 0 }
    }
}

/// Hidden: one decode in a fresh process, so its peak RSS can be compared with the tools'.
struct DecodeOnce: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "decode-once", shouldDisplay: false)
    @Argument var file: String
    @Option var size = "1920x1080"

    func run() throws {
        guard let output = PixelSize(parsing: size) else { throw ValidationError("bad --size") }
        let request = SlideRequest(file: file, resolvedPath: file, fit: .contain, background: .black, output: output, maxPixels: 100_000_000)
        _ = try SlideDecoding.frame(for: request, workspace: try SlideDecodingWorkspace())
    }
}

/// A photograph-like test picture: smooth gradients, mid-frequency structure
/// and sensor-like noise, so the JPEG has a photo's entropy rather than a flat
/// colour's.
enum SyntheticPhoto {
    /// `variant` 1 is the benchmarks' picture; another is a different one (mirrored, other noise).
    static func make(size: PixelSize, variant: UInt32 = 1) -> PixelImage {
        let image = PixelImage(size: size)
        var seed: UInt32 = 0x1234_5678 ^ (variant &- 1)
        for y in 0..<size.height {
            let fy = Double(y) / Double(size.height)
            for x in 0..<size.width {
                let across = Double(x) / Double(size.width)
                let fx = variant % 2 == 1 ? across : 1 - across
                seed = seed &* 1_664_525 &+ 1_013_904_223
                let noise = Double(seed >> 27) - 16
                let wave = 40 * sin(fx * 37 + sin(fy * 11) * 3) * cos(fy * 23)
                let r = 120 + 90 * fx + wave + noise
                let g = 90 + 120 * fy - wave * 0.5 + noise
                let b = 160 - 80 * fx * fy + wave * 0.7 + noise
                image[x, y] = 0xFF00_0000 | UInt32(clamp(r)) << 16 | UInt32(clamp(g)) << 8 | UInt32(clamp(b))
            }
        }
        return image
    }

    private static func clamp(_ value: Double) -> UInt8 { UInt8(max(0, min(255, value))) }
}
