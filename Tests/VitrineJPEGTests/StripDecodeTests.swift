import Foundation
import Testing
import VitrineCore
@testable import VitrineJPEG

/// `decodeRows` hands over, strip by strip, exactly the picture `decode` makes
/// whole, and fails on exactly the files `decode` fails on, with the same error.
@Suite("JPEG decode in strips")
struct StripDecodeTests {
    /// The rows `decodeRows` hands over, put together, and the strips' row ranges.
    /// From a file, the data goes through a 4 KiB buffer, so that libjpeg asks
    /// for more (and skips segments) across many reads.
    static func assembled(_ bytes: [UInt8], covering target: PixelSize?, fromFile: Bool = false) throws(JPEGError) -> (PixelImage, [Range<Int>]) {
        let decoder = try JPEGDecoder()
        let file = fromFile ? TemporaryFile(bytes) : nil
        defer { file?.remove() }
        let readBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 4096, alignment: 16)
        defer { readBuffer.deallocate() }
        let result = bytes.withUnsafeBytes { raw in
            Result { () throws(JPEGError) -> (PixelImage, [Range<Int>]) in
                let plan = try decoder.plan(raw, covering: target, maxPixels: 100_000_000)
                let image = PixelImage(size: plan.size, fill: RGBAColor(red: 1, green: 2, blue: 3))
                var strips: [Range<Int>] = []
                var source = JPEGSource.memory(raw)
                if let file {
                    let prefilled = read(file.descriptor, readBuffer.baseAddress!, 100)
                    source = .file(descriptor: file.descriptor, buffer: readBuffer, prefilled: max(prefilled, 0))
                }
                try decoder.decodeRows(source, plan: plan, strip: PixelStorage()) { rows, first, count in
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
            let (fromFile, _) = try Self.assembled(bytes, covering: target, fromFile: true)
            #expect(maxChannelDifference(fromFile, whole.image) == 0, "\(name) at \(whole.scale), from the file")
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
        for fromFile in [false, true] {
            let streamed = Result { () throws(JPEGError) -> PixelImage in try Self.assembled(bytes, covering: nil, fromFile: fromFile).0 }
            switch (whole, streamed) {
            case (.success(let a), .success(let b)):
                #expect(maxChannelDifference(a, b) == 0, "\(file)")
            case (.failure(let a), .failure(let b)):
                #expect(a == b, "\(file), from the file: \(fromFile)")
            default:
                Issue.record("\(file): whole \(whole), in strips \(streamed), from the file: \(fromFile)")
            }
        }
    }
}

/// A file holding `bytes`, open for reading at offset 0, unlinked by `remove`.
struct TemporaryFile {
    let path: String
    let descriptor: Int32

    init(_ bytes: [UInt8]) {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-strip-\(UUID().uuidString).jpg").path
        _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
        descriptor = open(path, O_RDONLY | O_CLOEXEC)
    }

    func remove() {
        close(descriptor)
        unlink(path)
    }
}
