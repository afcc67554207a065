import Foundation
import VitrineCore

/// Fixtures/ beside this file (made by Fixtures/make-fixtures.sh; see Fixtures/SOURCES.md).
let fixturesDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures").path

func fixture(_ name: String) throws -> [UInt8] {
    let path = fixturesDirectory + "/" + name
    guard let data = FileManager.default.contents(atPath: path) else { throw FixtureMissing(path: path) }
    return [UInt8](data)
}

struct FixtureMissing: Error, CustomStringConvertible {
    var path: String
    var description: String { "fixture missing: \(path)" }
}

struct ToolFailed: Error, CustomStringConvertible {
    var description: String
}

/// The picture as giflib's own `gif2rgb -1` (giflib-tools) decodes it: every
/// frame drawn onto the logical screen filled with the screen's background
/// colour, transparent indices drawn as their palette colour; RGB triplets,
/// as XRGB. `size`: the logical screen, which gif2rgb does not print.
func gif2rgbReference(path: String, size: PixelSize) throws -> PixelImage {
    let output = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-gif2rgb-\(getpid())-\(UUID().uuidString).rgb").path
    defer { try? FileManager.default.removeItem(atPath: output) }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/gif2rgb")
    process.arguments = ["-1", "-o", output, path]
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    process.waitUntilExit()
    guard process.terminationStatus == 0, let data = FileManager.default.contents(atPath: output) else {
        throw ToolFailed(description: "gif2rgb -1 -o \(output) \(path) exited \(process.terminationStatus)")
    }
    let bytes = [UInt8](data)
    guard bytes.count == size.pixelCount * 3 else { throw ToolFailed(description: "gif2rgb wrote \(bytes.count) bytes for \(size)") }
    let image = PixelImage(size: size)
    for i in 0..<size.pixelCount {
        image.pixels[i] = 0xFF00_0000 | UInt32(bytes[i * 3]) << 16 | UInt32(bytes[i * 3 + 1]) << 8 | UInt32(bytes[i * 3 + 2])
    }
    return image
}

/// How many pixels differ, and the largest difference of any channel of any pixel.
func difference(_ a: PixelImage, _ b: PixelImage) -> (pixels: Int, largest: Int) {
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

/// The offset of the first image descriptor (0x2C) in a GIF: after the header,
/// the logical screen descriptor, the global colour table and any extensions.
func firstImageDescriptor(_ bytes: [UInt8]) -> Int {
    var at = 13 + (bytes[10] & 0x80 != 0 ? 3 << (Int(bytes[10] & 7) + 1) : 0)
    while bytes[at] == 0x21 {
        at += 2
        while bytes[at] != 0 { at += Int(bytes[at]) + 1 }
        at += 1
    }
    precondition(bytes[at] == 0x2C)
    return at
}
