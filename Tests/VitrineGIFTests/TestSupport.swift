import Foundation
import PictureTestSupport
import VitrineCore

/// Fixtures/ beside this file (made by Fixtures/make-fixtures.sh; see Fixtures/SOURCES.md).
let fixtures = FixtureFolder(beside: #filePath)
let fixturesDirectory = fixtures.path

func fixture(_ name: String) throws -> [UInt8] { try fixtures.bytes(name) }

/// The picture as giflib's own `gif2rgb -1` (giflib-tools) decodes it: every
/// frame drawn onto the logical screen filled with the screen's background
/// colour, transparent indices drawn as their palette colour; RGB triplets,
/// as XRGB. `size`: the logical screen, which gif2rgb does not print.
func gif2rgbReference(path: String, size: PixelSize) throws -> PixelImage {
    let bytes = try runToolWritingFile("/usr/bin/gif2rgb", suffix: ".rgb") { ["-1", "-o", $0, path] }
    guard bytes.count == size.pixelCount * 3 else { throw ToolFailed(description: "gif2rgb wrote \(bytes.count) bytes for \(size)") }
    let image = PixelImage(size: size)
    for i in 0..<size.pixelCount {
        image.pixels[i] = 0xFF00_0000 | UInt32(bytes[i * 3]) << 16 | UInt32(bytes[i * 3 + 1]) << 8 | UInt32(bytes[i * 3 + 2])
    }
    return image
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
