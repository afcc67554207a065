// What the picture-format test targets (VitrineWebPTests, VitrineGIFTests,
// VitrineHEIFTests) share: their fixture folders, running a format's own
// command-line tool for a reference decode, and comparing pixels; and, with
// VitrineRuntimeTests, the lock that keeps large decodes apart from the
// measurement of peak memory. A target of
// its own because a test target cannot import another test target.
import Foundation
import VitrineCore

/// A test target's Fixtures/ folder (made by its make-fixtures script; see its SOURCES.md).
public struct FixtureFolder: Sendable {
    public let path: String

    /// The Fixtures/ folder beside the file at `filePath` (pass `#filePath`).
    public init(beside filePath: String) {
        path = URL(fileURLWithPath: filePath).deletingLastPathComponent().appendingPathComponent("Fixtures").path
    }

    /// The bytes of fixture `name`.
    public func bytes(_ name: String) throws -> [UInt8] {
        let file = path + "/" + name
        guard let data = FileManager.default.contents(atPath: file) else { throw FixtureMissing(path: file) }
        return [UInt8](data)
    }
}

public struct FixtureMissing: Error, CustomStringConvertible {
    public var path: String
    public var description: String { "fixture missing: \(path)" }
}

public struct ToolFailed: Error, CustomStringConvertible {
    public var description: String
    public init(description: String) { self.description = description }
}

/// Runs `tool` (an absolute path) with `arguments` and returns its standard output;
/// a non-zero exit is `ToolFailed`.
public func runTool(_ tool: String, _ arguments: [String]) throws -> [UInt8] {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: tool)
    process.arguments = arguments
    let output = Pipe()
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else { throw ToolFailed(description: "\(tool) \(arguments) exited \(process.terminationStatus)") }
    return [UInt8](data)
}

/// How many pixels differ, and the largest difference of any channel of any pixel.
public func difference(_ a: PixelImage, _ b: PixelImage) -> (pixels: Int, largest: Int) {
    precondition(a.size == b.size)
    var pixels = 0, worst = 0
    for i in 0..<a.size.pixelCount where a.pixels[i] != b.pixels[i] {
        pixels += 1
        let x = a.pixels[i], y = b.pixels[i]
        for shift in [0, 8, 16] as [UInt32] {
            worst = max(worst, abs(Int((x >> shift) & 0xFF) - Int((y >> shift) & 0xFF)))
        }
    }
    return (pixels, worst)
}

/// Runs `tool` with the arguments `arguments` makes from a temporary output
/// path (ending in `suffix`), and returns the file it wrote there: for tools
/// that write their decode to a file (gif2rgb -o, heif-convert).
public func runToolWritingFile(_ tool: String, suffix: String, _ arguments: (String) -> [String]) throws -> [UInt8] {
    let name = URL(fileURLWithPath: tool).lastPathComponent
    let output = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-\(name)-\(getpid())-\(UUID().uuidString)\(suffix)").path
    defer { try? FileManager.default.removeItem(atPath: output) }
    _ = try runTool(tool, arguments(output))
    guard let data = FileManager.default.contents(atPath: output) else {
        throw ToolFailed(description: "\(tool) \(arguments(output)) wrote nothing")
    }
    return [UInt8](data)
}

/// One at a time, the tests that measure the process's peak resident memory
/// (VmHWM) and the tests that allocate hundreds of megabytes: Swift Testing
/// runs tests in parallel in one process, and VmHWM is the process's, so a
/// 48-megapixel decode beside a measurement is counted in it.
public enum PeakMemoryLock {
    private static let lock = NSLock()

    public static func exclusively<Result>(_ body: () throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }
}
