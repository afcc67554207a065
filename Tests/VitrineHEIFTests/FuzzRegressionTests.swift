import Foundation
import Testing
import VitrineCore
@testable import VitrineHEIF

/// Inputs found by `make fuzz` (Fuzz/FuzzHEIF, docs/fuzzing.md), kept in
/// Fuzz/Regressions/heif. The overlay-canvas bomb was VitrineHEIF's; the
/// others are faults of Debian 12's libheif 1.15, not of VitrineHEIF. These tests hold
/// what VitrineHEIF does with them.
@Suite("HEIF decoding: fuzz findings")
struct HEIFFuzzRegressionTests {
    static let regressions = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fuzz/Regressions/heif").path

    func regression(_ name: String) throws -> [UInt8] {
        [UInt8](try #require(FileManager.default.contents(atPath: Self.regressions + "/" + name)))
    }

    /// Reproducer `name` is refused as corrupt, with `words` in the reason.
    func expectCorrupt(_ name: String, saying words: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let error = refusal(try regression(name), name)
        guard case .corrupt(let reason)? = error else {
            Issue.record("expected corrupt, got \(String(describing: error))", sourceLocation: sourceLocation)
            return
        }
        #expect(reason.contains(words), "\(reason)", sourceLocation: sourceLocation)
    }

    /// irot-imir.heic with its boxes mangled: the tile's coded picture is
    /// smaller than the 98x64 its `ispe` claims, and libheif 1.15 pastes it
    /// into the grid without a word, leaving the last output row's pixels as
    /// the heap held them. The picture has its boxes' size and is framed
    /// whole; that no error is raised is libheif's to fix.
    @Test("a grid whose tile decodes smaller than its ispe: the size its boxes give, no crash")
    func gridTileSmallerThanIspe() throws {
        let bytes = try regression("grid-tile-smaller-than-ispe.heic")
        let decoded = try decode(bytes)
        #expect(decoded.info.size == PixelSize(width: 61, height: 97))
        #expect(decoded.image.size == decoded.info.size)
        var rows = 0
        _ = try bytes.withUnsafeBytes { raw in
            try HEIFDecoder.decodeRows(raw, maxPixels: 1 << 20, strip: PixelStorage()) { _, first, count in rows = first + count }
        }
        #expect(rows == 97)
    }

    /// A damaged AV1 item: dav1d refused it, and libheif 1.15's dav1d plugin
    /// leaked the 40 bytes of its Dav1dData on the way out (suppressed for the
    /// fuzzer: Fuzz/lsan-suppressions.txt). Its item's one `iloc` extent has a
    /// length of 0, which libheif reads as no data and the specification as the
    /// whole file: since issue 39 Vitrine's box reader refuses that, by name,
    /// before libheif (and dav1d) see the file.
    @Test("a damaged AV1 item whose iloc extent has length 0 is refused before libheif, by name")
    func damagedAV1() throws {
        let bytes = try regression("avif-dav1d-leak.avif")
        #expect(HEIFDecoder.hasSignature(bytes))
        let error = refusal(bytes, "avif-dav1d-leak.avif")
        guard case .uncheckable(let reason)? = error else { Issue.record("expected uncheckable, got \(String(describing: error))"); return }
        #expect(reason.contains("extent of length 0"))
    }

    /// 4.6 KB whose primary is 97x61, but whose alpha plane is a grid over an
    /// overlay (`iovl`) with a huge canvas, which libheif 1.15 allocates as the
    /// overlay's data says, whatever the `ispe`: the decode took the process
    /// to 1.96 GB (libFuzzer's out-of-memory). The declared canvas
    /// (`HEIFDeclaredCanvas`) is checked with the picture's own sizes now.
    @Test("an alpha plane derived from an overlay with a huge canvas is refused from the boxes, before libheif allocates it")
    func alphaOverlayCanvasBomb() throws {
        let bytes = try regression("alpha-overlay-canvas-bomb.heic")
        let info = try info(bytes)
        #expect(info.size == PixelSize(width: 97, height: 61))
        let canvas = try #require(info.largestCanvas)
        print("alpha-overlay-canvas-bomb.heic: the largest declared canvas is \(canvas) (\(canvas.pixelCount) pixels)")
        #expect(canvas.pixelCount > 100_000_000)
        #expect(throws: HEIFError.tooManyPixels(size: canvas, limit: 100_000_000)) { try decode(bytes, decoderByteLimit: 256 << 20) }
    }

    /// The same bomb with 18 bytes after its last box, which libheif reads
    /// past but the box reader took for damage, so that no canvas was checked.
    @Test("the overlay bomb with bytes after its last box is refused the same way")
    func overlayBombWithTrailingBytes() throws {
        let bytes = try regression("overlay-bomb-trailing-bytes.heic")
        let canvas = try #require(try info(bytes).largestCanvas)
        #expect(canvas == PixelSize(width: 24757, height: 26758))
        #expect(throws: HEIFError.tooManyPixels(size: canvas, limit: 100_000_000)) { try decode(bytes, decoderByteLimit: 256 << 20) }
    }

    /// An AVIF whose colour profile libheif refuses after its AV1 decoding
    /// made the picture: libheif 1.15 leaks that heif_image (512 bytes,
    /// suppressed for the fuzzer: Fuzz/lsan-suppressions.txt), and heif-convert
    /// crashed on the same file here. VitrineHEIF refuses it.
    @Test("an AVIF with unknown NCLX colour primaries is refused as corrupt, with libheif's words")
    func unknownColourPrimaries() throws {
        try expectCorrupt("avif-nclx-image-leak.avif", saying: "Unknown NCLX color primaries")
    }

    /// A tile whose `ispe` claims sides near 2^32: their product overflowed
    /// an Int in HEIFGridLayout's `pixelCount` and trapped (a crash of the
    /// process, found by FuzzHEIF). Sizes read from boxes are clamped to 2^31 a side.
    @Test("a tile ispe near 2^32 a side does not trap; the file is refused or decoded, never a crash")
    func tileIspeOverflow() throws {
        let bytes = try regression("tile-ispe-overflow.heic")
        _ = try? info(bytes)
        _ = refusal(bytes, "tile-ispe-overflow.heic") ?? nil
        #expect(declaredSize(UInt64(UInt32.max), UInt64(UInt32.max)).pixelCount == 1 << 62)
    }

    /// A `meta` box of 8 bytes, no room for its version and flags: the box
    /// reader's range after them had its start past its end, and the process
    /// trapped (found by FuzzHEIFDifferential in its first run). Refused now.
    @Test("a meta box too short for its version and flags is refused, not a trap")
    func emptyMetaBox() throws {
        try expectCorrupt("empty-meta-box.heic", saying: "`meta` box too short for its version and flags")
    }

    /// A primary `iden` whose one input is an `hvc0` item: not among the
    /// images libheif 1.15 knows, so its decode failed the assertion
    /// `imginfo` in `decode_image_planar` and aborted the process (found by
    /// FuzzHEIFDifferential's third run). Refused before libheif sees it now.
    @Test("a derived item over an item that is no image libheif knows is refused before libheif, which aborts on it")
    func idenOverUnknownItemType() throws {
        try expectCorrupt("iden-over-unknown-item-type.heic", saying: "item 2 (iden) derives from item 1 (hvc0), which is not an image libheif decodes")
    }
}
