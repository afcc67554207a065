import Foundation
import VitrineCore

/// ../shared/fixtures/jpeg beside the repository.
let fixturesDirectory: String = {
    let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    return repository.deletingLastPathComponent().appendingPathComponent("shared/fixtures/jpeg").path
}()

func fixture(_ name: String) throws -> [UInt8] {
    let path = fixturesDirectory + "/" + name
    guard let data = FileManager.default.contents(atPath: path) else {
        throw FixtureMissing(path: path)
    }
    return [UInt8](data)
}

struct FixtureMissing: Error, CustomStringConvertible {
    var path: String
    var description: String { "fixture missing: \(path) (shared/ must sit beside the repository)" }
}

/// The picture as libjpeg-turbo's own `djpeg` decodes it (P5 or P6), as XRGB.
func djpegReference(_ name: String, scale: String? = nil) throws -> PixelImage {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/djpeg")
    process.arguments = (scale.map { ["-scale", $0] } ?? []) + ["-pnm", fixturesDirectory + "/" + name]
    let output = Pipe()
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return try parsePNM([UInt8](data))
}

struct PNMError: Error {}

func parsePNM(_ bytes: [UInt8]) throws -> PixelImage {
    // Header: magic, width, height, maxval, each separated by whitespace, then one whitespace byte.
    var fields: [String] = []
    var index = 0
    while fields.count < 4 {
        while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x0A || bytes[index] == 0x0D || bytes[index] == 0x09 { index += 1 }
        var field = ""
        while index < bytes.count, !(bytes[index] == 0x20 || bytes[index] == 0x0A || bytes[index] == 0x0D || bytes[index] == 0x09) {
            field.append(Character(UnicodeScalar(bytes[index])))
            index += 1
        }
        guard !field.isEmpty else { throw PNMError() }
        fields.append(field)
    }
    index += 1
    guard let width = Int(fields[1]), let height = Int(fields[2]) else { throw PNMError() }
    let channels = fields[0] == "P6" ? 3 : 1
    guard fields[0] == "P6" || fields[0] == "P5", bytes.count >= index + width * height * channels else { throw PNMError() }
    let image = PixelImage(size: PixelSize(width: width, height: height))
    for i in 0..<(width * height) {
        let base = index + i * channels
        let r = UInt32(bytes[base]), g = UInt32(bytes[channels == 3 ? base + 1 : base]), b = UInt32(bytes[channels == 3 ? base + 2 : base])
        image.pixels[i] = 0xFF00_0000 | r << 16 | g << 8 | b
    }
    return image
}

/// The largest difference of any channel of any pixel.
func maxChannelDifference(_ a: PixelImage, _ b: PixelImage) -> Int {
    precondition(a.size == b.size)
    var worst = 0
    for i in 0..<a.size.pixelCount {
        let x = a.pixels[i], y = b.pixels[i]
        for shift in [0, 8, 16] as [UInt32] {
            worst = max(worst, abs(Int((x >> shift) & 0xFF) - Int((y >> shift) & 0xFF)))
        }
    }
    return worst
}
