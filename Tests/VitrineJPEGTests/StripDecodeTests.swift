import Foundation
import Testing
import VitrineCore
@testable import VitrineJPEG

/// `decodeRows` hands over, strip by strip, exactly the picture `decode` makes
/// whole, and fails on exactly the files `decode` fails on, with the same error.
@Suite("JPEG decode in strips")
struct StripDecodeTests {
    /// The rows `decodeRows` hands over, put together, and the strips' row ranges.
    static func assembled(_ bytes: [UInt8], covering target: PixelSize?) throws(JPEGError) -> (PixelImage, [Range<Int>]) {
        let decoder = try JPEGDecoder()
        let result = bytes.withUnsafeBytes { raw in
            Result { () throws(JPEGError) -> (PixelImage, [Range<Int>]) in
                let plan = try decoder.plan(raw, covering: target, maxPixels: 100_000_000)
                let image = PixelImage(size: plan.size, fill: RGBAColor(red: 1, green: 2, blue: 3))
                var strips: [Range<Int>] = []
                try decoder.decodeRows(raw, plan: plan, strip: PixelStorage()) { rows, first, count in
                    strips.append(first..<(first + count))
                    (image.pixels.baseAddress! + first * plan.size.width).update(from: rows, count: count * plan.size.width)
                }
                return (image, strips)
            }
        }
        return try result.get()
    }

    @Test("every fixture, whole and DCT-scaled", arguments: FixtureDecodeTests.decodable.map(\.name))
    func stripsPutTogetherAreTheWholeDecode(name: String) throws {
        let bytes = try fixture(name)
        let full = try bytes.withUnsafeBytes { try JPEGMarkerScanner.scan($0) }.size
        for target in [nil, PixelSize(width: max(full.width * 3 / 8, 1), height: max(full.height * 3 / 8, 1))] {
            let whole = try bytes.withUnsafeBytes { try JPEGDecoder().decode($0, covering: target, maxPixels: 100_000_000) }
            let (streamed, strips) = try Self.assembled(bytes, covering: target)
            #expect(streamed.size == whole.image.size)
            #expect(maxChannelDifference(streamed, whole.image) == 0, "\(name) at \(whole.scale)")
            // Strips are in order, no longer than stripRows, and cover every row once.
            #expect(strips.first?.lowerBound == 0)
            #expect(strips.last?.upperBound == whole.image.height)
            #expect(zip(strips, strips.dropFirst()).allSatisfy { $0.upperBound == $1.lowerBound })
            #expect(strips.allSatisfy { !$0.isEmpty && $0.count <= JPEGDecoder.stripRows })
        }
    }

    @Test("the damaged corpus fails alike", arguments: DamagedCorpusTests.files)
    func damagedFilesFailAlike(file: String) throws {
        let path = DamagedCorpusTests.corpusDirectory.appendingPathComponent(file).path
        let bytes = try #require(FileManager.default.contents(atPath: path).map { [UInt8]($0) })
        let whole = bytes.withUnsafeBytes { raw in
            Result { () throws(JPEGError) -> PixelImage in try JPEGDecoder().decode(raw, covering: nil, maxPixels: 100_000_000).image }
        }
        let streamed = Result { () throws(JPEGError) -> PixelImage in try Self.assembled(bytes, covering: nil).0 }
        switch (whole, streamed) {
        case (.success(let a), .success(let b)):
            #expect(maxChannelDifference(a, b) == 0, "\(file)")
        case (.failure(let a), .failure(let b)):
            #expect(a == b, "\(file)")
        default:
            Issue.record("\(file): whole \(whole), in strips \(streamed)")
        }
    }
}
