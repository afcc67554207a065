import Foundation
import PictureTestSupport
import VitrineCore

/// Fixtures/ beside this file (made by Fixtures/make-fixtures.sh; see Fixtures/SOURCES.md).
let fixtures = FixtureFolder(beside: #filePath)
let fixturesDirectory = fixtures.path

func fixture(_ name: String) throws -> [UInt8] { try fixtures.bytes(name) }

/// Runs one of the webp tools (/usr/bin/dwebp, /usr/bin/webpmux) and returns its standard output.
func run(_ tool: String, _ arguments: [String]) throws -> [UInt8] { try runTool("/usr/bin/" + tool, arguments) }

/// The picture as libwebp's own `dwebp -pam` decodes it (RGBA, straight alpha),
/// composited onto black as VitrineWebP does, as XRGB. `scale`: `dwebp -scale W H`.
func dwebpReference(path: String, scale: PixelSize? = nil) throws -> PixelImage {
    let scaling = scale.map { ["-scale", "\($0.width)", "\($0.height)"] } ?? []
    return try parsePAM(run("dwebp", ["-quiet"] + scaling + ["-pam", path, "-o", "-"]))
}

struct PAMError: Error {}

/// A P7 file of TUPLTYPE RGB_ALPHA, as dwebp writes it; alpha composited onto black.
func parsePAM(_ bytes: [UInt8]) throws -> PixelImage {
    let end = Array("ENDHDR\n".utf8)
    guard let headerEnd = (0...(bytes.count - end.count)).first(where: { Array(bytes[$0..<($0 + end.count)]) == end }) else { throw PAMError() }
    var fields: [String: Int] = [:]
    for line in String(decoding: bytes[..<headerEnd], as: UTF8.self).split(separator: "\n") {
        let parts = line.split(separator: " ")
        if parts.count == 2, let value = Int(parts[1]) { fields[String(parts[0])] = value }
    }
    guard let width = fields["WIDTH"], let height = fields["HEIGHT"], fields["DEPTH"] == 4 else { throw PAMError() }
    let base = headerEnd + end.count
    guard bytes.count >= base + width * height * 4 else { throw PAMError() }
    let image = PixelImage(size: PixelSize(width: width, height: height))
    for i in 0..<(width * height) {
        let a = UInt32(bytes[base + i * 4 + 3])
        func channel(_ offset: Int) -> UInt32 { (UInt32(bytes[base + i * 4 + offset]) * a + 127) / 255 }
        image.pixels[i] = 0xFF00_0000 | channel(0) << 16 | channel(1) << 8 | channel(2)
    }
    return image
}

/// The largest difference of any channel of any pixel.
func maxChannelDifference(_ a: PixelImage, _ b: PixelImage) -> Int { difference(a, b).largest }
