import Foundation
import Testing
import VitrineCore
import VitrineHEIF

/// Real files that must all still be shown: "a bound added against fuzzed
/// input must still accept every real file, older format versions included".
/// Fixtures/corpus holds what Debian 12's heif-enc makes from the shared real
/// JPEGs and this package's sources (Fixtures/corpus/make-corpus.sh: HEVC and
/// AV1, 4:2:0, 4:2:2, 4:4:4, lossless RGB, grey, thumbnails, alpha, two pictures
/// in one file, 10 and 12 bits, a large ICC profile); with them, every fixture
/// that is a real picture (tiled, grid, alpha, AVIF, clap, irot, imir, deep).
@Suite("HEIF corpus: every real file still decodes")
struct HEIFCorpusTests {
    /// Fixtures made to be refused, or damaged on purpose; every other is a real picture.
    static let refusedFixtures: Set<String> = [
        "bomb-20000.heic", "grid-output-bomb.heic", "truncated.heic", "damaged.heic", "grid-self-reference.heic",
        "alpha-auxl-loop.heic", "overlay-bomb-two-extents.heic", "overlay-bomb-offset-size-2.heic", "overlay-bomb-iloc-v1-index-size.heic",
    ]

    static var files: [String] {
        func pictures(in folder: String, prefix: String) -> [String] {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
            return names.filter { $0.hasSuffix(".heic") || $0.hasSuffix(".avif") }.map { prefix + $0 }.sorted()
        }
        return pictures(in: fixturesDirectory, prefix: "").filter { !refusedFixtures.contains($0) }
            + pictures(in: fixturesDirectory + "/corpus", prefix: "corpus/")
    }

    @Test("the corpus is all there: the fixtures and what heif-enc made from real JPEGs")
    func corpusSize() {
        let files = Self.files
        print("HEIF corpus: \(files.count) files")
        #expect(files.filter { $0.hasPrefix("corpus/") }.count >= 30)
        #expect(files.count >= 40)
    }

    @Test("each real file passes Vitrine's box checks and decodes whole, at the size its boxes give", arguments: files)
    func decodes(name: String) throws {
        let bytes = try fixture(name)
        let info = try info(bytes)
        let decoded = try decode(bytes, maxPixels: 100_000_000, decoderByteLimit: 256 << 20)
        #expect(decoded.image.size == info.size)
        #expect(info.largestCanvas != nil, "every real file declares its sizes")
    }
}
