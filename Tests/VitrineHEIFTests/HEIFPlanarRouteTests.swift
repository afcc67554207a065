import Foundation
import PictureTestSupport
import Testing
import VitrineCore
@testable import VitrineHEIF

@Suite("HEIF's planar route for large tiled pictures")
struct HEIFPlanarRouteTests {
    static let tile98 = PixelSize(width: 98, height: 64)

    func layout(_ name: String) throws -> HEIFGridLayout? {
        try fixture(name).withUnsafeBytes { (try? HEIFMetaBoxes($0)).flatMap(HEIFGridLayout.read) }
    }

    @Test("the grid layout read from the boxes: tiles and the primary item's irot and imir, in the file's order")
    func layoutsFromBoxes() throws {
        // heif-enc 1.15 writes every picture as a 1x1 grid that crops its coded tile.
        // x265 through heif-enc codes 4:2:0 (hvcC's chroma_format_idc 1).
        #expect(try layout("plain.heic") == HEIFGridLayout(largestTile: Self.tile98, transforms: [], tileChroma: .yuv420))
        #expect(try layout("grid-2x2.heic") == HEIFGridLayout(largestTile: Self.tile98, transforms: [], tileChroma: .yuv420))
        // AV1 codes odd sizes: heif-enc writes the AVIF's primary item coded, not as a grid.
        #expect(try layout("plain.avif") == nil)
        #expect(try layout("irot-exif-6.heic")?.transforms == [.rotation(quarterTurnsAnticlockwise: 1)])
        #expect(try layout("irot-imir.heic")?.transforms == [.rotation(quarterTurnsAnticlockwise: 3), .mirror(reversingColumns: true)])
        #expect(try layout("tiled-48mp-irot.heic")
                == HEIFGridLayout(largestTile: PixelSize(width: 512, height: 512), transforms: [.rotation(quarterTurnsAnticlockwise: 1)],
                                  tileChroma: .yuv420))
        // A clean aperture is left to libheif, which rounds its fractions its own way.
        #expect(try layout("clap.heic") == nil)
        // Not HEIF boxes, or cut inside them: refused, never a crash.
        #expect([UInt8](repeating: 0xFF, count: 64).withUnsafeBytes { (try? HEIFMetaBoxes($0)).flatMap(HEIFGridLayout.read) } == nil)
        let plain = try fixture("plain.heic")
        for length in stride(from: 0, to: plain.count, by: 7) {
            Array(plain.prefix(length)).withUnsafeBytes { raw in
                let meta = try? HEIFMetaBoxes(raw)
                _ = meta.flatMap(HEIFGridLayout.read)
                _ = meta.flatMap { try? HEIFDeclaredCanvas.largest($0) }
            }
        }
    }

    @Test("the planar route gives libheif's own pixels on every tiled 8-bit fixture, turned, mirrored, with alpha, 2x2",
          arguments: ["plain.heic", "alpha.heic", "grid-2x2.heic", "exif-6.heic", "irot-exif-6.heic", "irot-imir.heic", "tile-511.heic"])
    func routesAgree(name: String) throws {
        let bytes = try fixture(name)
        let info = try info(bytes)
        let layout = try #require(HEIFDecoder.planarGridLayout(info))
        let (own, planar) = try bytes.withUnsafeBytes { raw in
            (try HEIFDecoder.decode(raw, route: .libheif), try HEIFDecoder.decode(raw, route: .planarGrid(layout)))
        }
        #expect(planar.image.size == own.image.size)
        #expect(difference(planar.image, own.image).pixels == 0)
    }

    @Test("no planar route for a deep picture, or for a turned one with alpha (libheif 1.15 leaves its alpha unturned)")
    func planarRouteRefused() throws {
        #expect(HEIFDecoder.planarGridLayout(try info(fixture("deep-10bit.heic"))) == nil)
        var turnedAlpha = try info(fixture("alpha.heic"))
        turnedAlpha.grid?.transforms = [.rotation(quarterTurnsAnticlockwise: 1)]
        #expect(HEIFDecoder.planarGridLayout(turnedAlpha) == nil)
    }

    /// libheif 1.15's own loops (`HeifPixelImage::rotate_ccw`, `mirror_inplace`)
    /// on a picture of labels, one copy a step, to check the composed map against.
    func libheifSteps(_ size: PixelSize, _ transforms: [HEIFTransform]) -> (PixelSize, [Int]) {
        var (w, h) = (size.width, size.height)
        var data = Array(0..<size.pixelCount)
        for transform in transforms {
            switch transform {
            case .rotation(let turns) where turns & 3 == 0:
                break
            case .rotation(let turns):
                let angle = (turns & 3) * 90
                let (ow, oh) = angle == 180 ? (w, h) : (h, w)
                var out = [Int](repeating: -1, count: w * h)
                if angle == 270 {
                    for x in 0..<h { for y in 0..<w { out[y * ow + x] = data[(h - 1 - x) * w + y] } }
                } else if angle == 180 {
                    for y in 0..<h { for x in 0..<w { out[y * ow + x] = data[(h - 1 - y) * w + (w - 1 - x)] } }
                } else {
                    for x in 0..<h { for y in 0..<w { out[y * ow + x] = data[x * w + (w - 1 - y)] } }
                }
                (w, h, data) = (ow, oh, out)
            case .mirror(let reversingColumns):
                if reversingColumns {
                    for y in 0..<h { for x in 0..<w / 2 { data.swapAt(y * w + x, y * w + w - 1 - x) } }
                } else {
                    for y in 0..<h / 2 { for x in 0..<w { data.swapAt(y * w + x, (h - 1 - y) * w + x) } }
                }
            }
        }
        return (PixelSize(width: w, height: h), data)
    }

    @Test("the composed map equals libheif's step-by-step copies for every sequence of up to three irot and imir")
    func pixelMapMatchesLibheifSteps() {
        let steps: [HEIFTransform] = [.rotation(quarterTurnsAnticlockwise: 0), .rotation(quarterTurnsAnticlockwise: 1),
                                      .rotation(quarterTurnsAnticlockwise: 2), .rotation(quarterTurnsAnticlockwise: 3),
                                      .mirror(reversingColumns: true), .mirror(reversingColumns: false)]
        var sequences: [[HEIFTransform]] = [[]]
        for length in 1...3 {
            sequences += sequences.filter { $0.count == length - 1 }.flatMap { prefix in steps.map { prefix + [$0] } }
        }
        #expect(sequences.count == 1 + 6 + 36 + 216)
        let size = PixelSize(width: 5, height: 3)
        for transforms in sequences {
            let (shownSize, labels) = libheifSteps(size, transforms)
            let map = HEIFPixelMap(decodedSize: size, transforms: transforms)
            #expect(map.shownSize == shownSize, "\(transforms)")
            var mapped: [Int] = []
            for y in 0..<shownSize.height {
                let offsets = map.rowOffsets(y: y, stride: size.width)
                for x in 0..<shownSize.width { mapped.append(offsets.first + x * offsets.step) }
            }
            #expect(mapped == labels, "\(transforms)")
        }
    }

    @Test("a 48-megapixel tiled photo turned by irot (as an iPhone's HEIF Max) decodes within 256 MiB by the planar route, as libheif's own route does it")
    func largeTiledPhoto() throws {
        // Hundreds of MB: not beside a test that measures the process's peak memory.
        try PeakMemoryLock.exclusively { try decodeLargeTiledPhoto() }
    }

    private func decodeLargeTiledPhoto() throws {
        // tile-511.heic's 512x512 coded tile, 12 rows of 16, cropped to 8064x6048, irot 1.
        let bytes = try fixture("tiled-48mp-irot.heic")
        let info = try info(bytes)
        let shown = PixelSize(width: 6048, height: 8064)
        #expect(info.size == shown)
        let limit = 256 << 20
        // libheif's own route: over the limit (heif-convert peaked at 293 MB on it here).
        #expect(HEIFDecoder.libheifRouteBytes(info) == 8064 * 6048 * 9)
        #expect(HEIFDecoder.libheifRouteBytes(info) > limit)
        // RGB planes (3 bytes a pixel) and the grid assembled as 4:2:0 (1.5), four 512x512 tiles at 9.
        let planarBytes = 8064 * 6048 * 9 / 2 + 512 * 512 * 9 * 4
        #expect(planarBytes < limit)
        #expect(HEIFDecoder.decoderBytes(info) == planarBytes)
        let route = try HEIFDecoder.route(for: info, maxPixels: 100_000_000, decoderByteLimit: limit)
        #expect(route == .planarGrid(try #require(info.grid)))
        let started = Date()
        let planar = try decode(bytes, decoderByteLimit: limit)
        let planarSeconds = Date().timeIntervalSince(started)
        #expect(planar.image.size == shown)
        let own = try bytes.withUnsafeBytes { raw in try HEIFDecoder.decode(raw, route: .libheif) }
        let (pixels, largest) = difference(planar.image, own.image)
        print("tiled-48mp-irot.heic: planar route \(String(format: "%.1f", planarSeconds)) s (debug build); \(pixels) pixels differ from libheif's route (largest \(largest))")
        #expect(pixels == 0)
        // Above both estimates: refused, naming the smaller.
        #expect(throws: HEIFError.tooLargeToDecode(size: shown, bytes: planarBytes, limit: 128 << 20)) {
            try decode(bytes, decoderByteLimit: 128 << 20)
        }
        // Tiles of 4:4:4, or whose chroma the boxes do not give, cost more: 3 bytes a pixel assembled.
        var wider = info
        wider.grid?.tileChroma = .yuv444
        #expect(HEIFDecoder.decoderBytes(wider) == 8064 * 6048 * 6 + 512 * 512 * 9 * 4)
    }
}
