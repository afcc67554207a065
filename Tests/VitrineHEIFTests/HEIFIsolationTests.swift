import Foundation
import Testing
import VitrineCore
@testable import VitrineHEIF

/// Issue 39's isolation findings, each a file libheif 1.15 reads as it
/// reads the file it was made from (`heif-info -d`; Fixtures/make-isolation-fixtures.py),
/// that passed Vitrine's checks before: refused now, from Vitrine's own reading
/// of the boxes, before libheif sees it, by `HEIFDecoder.info` and so by every
/// caller (the kiosk's decode, upload inspection, check-config).
@Suite("HEIF isolation: what libheif reads, Vitrine reads exactly or refuses")
struct HEIFIsolationTests {
    static let bombCanvas = PixelSize(width: 24757, height: 26758)

    /// The kind of `HEIFDecoder.info`'s error for `name` and its words.
    func refusal(_ name: String) throws -> (kind: String, words: String) {
        let bytes = try fixture(name)
        do throws(HEIFError) {
            let read = try info(bytes)
            Issue.record("\(name) read as \(read)")
            return ("read", "")
        } catch {
            print("\(name): \(error)")
            switch error {
            case .uncheckable(let why): return ("uncheckable", why)
            case .corrupt(let why): return ("corrupt", why)
            default: return ("other", "\(error)")
            }
        }
    }

    @Test("the overlay bomb with its data in two extents: both read, joined as libheif joins them, and the canvas refused")
    func twoExtents() throws {
        let bytes = try fixture("overlay-bomb-two-extents.heic")
        #expect(try info(bytes).largestCanvas == Self.bombCanvas)
        #expect(throws: HEIFError.tooManyPixels(size: Self.bombCanvas, limit: 100_000_000)) { try decode(bytes, decoderByteLimit: 256 << 20) }
    }

    @Test("the overlay bomb with an iloc offset_size of 2 (no bytes, worth 0, to libheif 1.15) is refused by name")
    func offsetSizeTwo() throws {
        let (kind, words) = try refusal("overlay-bomb-offset-size-2.heic")
        #expect(kind == "uncheckable" && words.contains("offset_size is 2"), "\(words)")
    }

    @Test("the overlay bomb with an iloc of version 1 whose index_size is 4 (libheif 1.15 reads no index in version 1) is refused by name")
    func versionOneIndexSize() throws {
        let (kind, words) = try refusal("overlay-bomb-iloc-v1-index-size.heic")
        #expect(kind == "uncheckable" && words.contains("version 1 with index_size 4"), "\(words)")
    }

    @Test("a grid that is its own tile is refused before libheif, whose decoder it hangs")
    func gridSelfReference() throws {
        let (kind, words) = try refusal("grid-self-reference.heic")
        #expect(kind == "corrupt" && words.contains("item 2 (grid) derives from itself: item 2 (grid) -> item 2 (grid)"), "\(words)")
        // The display's and the upload's route too: no decode is tried.
        let bytes = try fixture("grid-self-reference.heic")
        #expect(throws: HEIFError.self) { try decode(bytes) }
    }

    @Test("two images each the other's alpha are refused before libheif")
    func auxiliaryLoop() throws {
        let (kind, words) = try refusal("alpha-auxl-loop.heic")
        #expect(kind == "uncheckable" && words.contains("auxiliary image with an auxiliary image of its own"), "\(words)")
    }

    @Test("each finding's message says what is wrong in words an operator can act on")
    func messages() throws {
        for name in ["overlay-bomb-offset-size-2.heic", "overlay-bomb-iloc-v1-index-size.heic"] {
            let bytes = try fixture(name)
            do throws(HEIFError) {
                let read = try info(bytes)
                Issue.record("\(name) read as \(read)")
            } catch {
                #expect("\(error)".hasPrefix("HEIF refused: its boxes cannot be checked exactly ("), "\(error)")
            }
        }
    }
}
