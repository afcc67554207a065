import Testing
@testable import VitrineCore

/// The streaming resampler against a plain two-pass reference that holds the
/// whole horizontal pass: rows fed in strips of any height, with crops, give
/// the reference's pixels exactly.
@Suite("StreamingAreaResampler")
struct StreamingResamplerTests {
    /// Noise, so that a row taken from the wrong ring slot shows.
    static func noise(_ size: PixelSize, seed: UInt32) -> PixelImage {
        let image = PixelImage(size: size)
        var state = seed
        for i in 0..<size.pixelCount {
            state = state &* 1_664_525 &+ 1_013_904_223
            image.pixels[i] = 0xFF00_0000 | (state >> 8)
        }
        return image
    }

    /// Horizontal pass over every row into a whole intermediate, then vertical.
    static func reference(_ source: PixelImage, region: AreaResampler.SourceRegion, target: PixelSize) -> PixelImage {
        let horizontal = AreaResampler.FilterTaps(start: region.x, length: region.width, limit: source.width, targetLength: target.width)
        let vertical = AreaResampler.FilterTaps(start: region.y, length: region.height, limit: source.height, targetLength: target.height)
        var intermediate = [UInt32](repeating: 0, count: target.width * source.height)
        for y in 0..<source.height {
            for x in 0..<target.width {
                intermediate[y * target.width + x] = weighted((0..<Int(horizontal.counts[x])).map { k in
                    (source[Int(horizontal.starts[x]) + k, y], horizontal.weights[x * horizontal.maxTaps + k])
                })
            }
        }
        let result = PixelImage(size: target)
        for y in 0..<target.height {
            for x in 0..<target.width {
                result[x, y] = weighted((0..<Int(vertical.counts[y])).map { k in
                    (intermediate[(Int(vertical.starts[y]) + k) * target.width + x], vertical.weights[y * vertical.maxTaps + k])
                })
            }
        }
        return result
    }

    static func weighted(_ taps: [(pixel: UInt32, weight: Int32)]) -> UInt32 {
        var redBlue: UInt32 = 0, green: UInt32 = 0
        for (pixel, weight) in taps {
            redBlue &+= (pixel & 0x00FF_00FF) &* UInt32(weight)
            green &+= (pixel & 0x0000_FF00) &* UInt32(weight)
        }
        return AreaResampler.pack(redBlue: redBlue, green: green)
    }

    static let cases: [(source: PixelSize, region: AreaResampler.SourceRegion, target: PixelSize)] = [
        // A 12 MP photo's 3/8 decode to its 1080p placement, scaled down 100x: 1.04x.
        (PixelSize(width: 150, height: 113), .init(x: 0, y: 0, width: 150, height: 113), PixelSize(width: 144, height: 108)),
        // The same at full width, so the horizontal kernel's window path runs for whole rows.
        (PixelSize(width: 1500, height: 12), .init(x: 0, y: 0, width: 1500, height: 12), PixelSize(width: 1440, height: 11)),
        // Shrinking by 1.9x, 3x and 5.3x (three and more taps a pixel).
        (PixelSize(width: 97, height: 61), .init(x: 0, y: 0, width: 97, height: 61), PixelSize(width: 51, height: 32)),
        (PixelSize(width: 90, height: 60), .init(x: 0, y: 0, width: 90, height: 60), PixelSize(width: 30, height: 20)),
        (PixelSize(width: 64, height: 64), .init(x: 0, y: 0, width: 64, height: 64), PixelSize(width: 12, height: 12)),
        // Enlarging (bilinear), and a crop from the middle as `cover` takes it.
        (PixelSize(width: 20, height: 15), .init(x: 0, y: 0, width: 20, height: 15), PixelSize(width: 57, height: 41)),
        (PixelSize(width: 120, height: 90), .init(x: 10.5, y: 22.25, width: 80.3, height: 40.9), PixelSize(width: 64, height: 36)),
        // Only the rows change, then only the columns.
        (PixelSize(width: 40, height: 90), .init(x: 0, y: 0, width: 40, height: 90), PixelSize(width: 40, height: 50)),
        (PixelSize(width: 90, height: 40), .init(x: 0, y: 0, width: 90, height: 40), PixelSize(width: 50, height: 40)),
    ]

    @Test("strips of 1, 2, 7 and 16 rows give the two-pass reference", arguments: cases.indices)
    func stripsGiveTheReference(index: Int) {
        let (size, region, target) = Self.cases[index]
        let source = Self.noise(size, seed: UInt32(index + 1))
        let expected = Self.reference(source, region: region, target: target)
        for stripRows in [1, 2, 7, 16] {
            // Drawn at an offset inside a larger canvas, as into a frame with bars.
            let canvasImage = PixelImage(size: PixelSize(width: target.width + 9, height: target.height + 5), fill: .black)
            let rect = PixelRect(x: 4, y: 3, width: target.width, height: target.height)
            let stream = StreamingAreaResampler(sourceSize: size, region: region, into: canvasImage.canvas, at: rect)
            var first = 0
            while first < size.height {
                let count = min(stripRows, size.height - first)
                stream.consume(rows: source.pixels.baseAddress! + first * size.width, first: first, count: count, stride: size.width)
                first += count
            }
            #expect(stream.isComplete)
            var mismatches = 0
            for y in 0..<target.height {
                for x in 0..<target.width where canvasImage[rect.x + x, rect.y + y] != expected[x, y] { mismatches += 1 }
            }
            #expect(mismatches == 0, "case \(index), strips of \(stripRows)")
            // Nothing outside the rectangle was written.
            let outside = (0..<canvasImage.height).flatMap { y in (0..<canvasImage.width).map { (x: $0, y: y) } }
                .filter { !(rect.x..<rect.maxX).contains($0.x) || !(rect.y..<rect.maxY).contains($0.y) }
            #expect(outside.allSatisfy { canvasImage[$0.x, $0.y] == RGBAColor.black.xrgb })
        }
    }

    @Test func rowsOutsideTheCropAreNotNeededAndMayBeSkipped() {
        let size = PixelSize(width: 60, height: 100)
        let region = AreaResampler.SourceRegion(x: 0, y: 40, width: 60, height: 20)
        // The canvas is a view: the image under it must outlive the stream.
        let output = PixelImage(size: PixelSize(width: 30, height: 10))
        let stream = StreamingAreaResampler(sourceSize: size, region: region, into: output.canvas,
                                            at: PixelRect(x: 0, y: 0, width: 30, height: 10))
        #expect(stream.neededSourceRows == 40..<60)
        let source = Self.noise(size, seed: 9)
        stream.consume(rows: source.pixels.baseAddress! + 40 * 60, first: 40, count: 20, stride: 60)
        #expect(stream.isComplete)
        withExtendedLifetime(output) {}
    }
}
