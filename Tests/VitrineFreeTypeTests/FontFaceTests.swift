import Glibc
import Testing
import VitrineCore
@testable import VitrineFreeType

/// FreeType against the font the package depends on (fonts-dejavu-core).
@Suite("FreeType font face")
struct FontFaceTests {
    @Test func aLineIsAsHighAsTheFontAndAsWideAsItsText() throws {
        let face = try FontFace()
        let url = try face.mask(for: "http://10.0.2.15:8080/", pixelHeight: 26)
        let short = try face.mask(for: "http://", pixelHeight: 26)
        // DejaVu Sans: ascender 0.928 em, descender 0.236 em, rounded outwards at 26 px.
        #expect(url.height == short.height)
        #expect(url.ascent == 25 && url.height == 25 + 7, "\(url.ascent) \(url.height)")
        #expect(url.width > short.width * 2)
        // About 0.55 em a character for this text, well within 0.4 ... 0.7 em.
        #expect(url.width > 22 * 26 * 4 / 10 && url.width < 22 * 26 * 7 / 10, "\(url.width)")
        #expect(url.coverage.contains(255))
        #expect(url.coverage.contains { $0 > 0 && $0 < 255 }, "anti-aliased edges")
    }

    @Test func glyphsSitOnTheBaselineAndDescendersGoBelowIt() throws {
        let face = try FontFace()
        let x = try face.mask(for: "x", pixelHeight: 40), g = try face.mask(for: "g", pixelHeight: 40)
        func inked(_ mask: TextMask, rows: Range<Int>) -> Bool {
            rows.contains { y in (0..<mask.width).contains { mask[$0, y] > 128 } }
        }
        #expect(!inked(x, rows: (x.ascent + 1)..<x.height), "x has nothing below its baseline")
        #expect(inked(g, rows: (g.ascent + 2)..<g.height), "g's tail goes below it")
        #expect(inked(x, rows: (x.ascent - 5)..<x.ascent))
    }

    @Test func theSameTextDrawsTheSameAndACharacterTheFontLacksDrawsAsAQuestionMark() throws {
        let face = try FontFace()
        #expect(try face.mask(for: "kiosk.local", pixelHeight: 30) == face.mask(for: "kiosk.local", pixelHeight: 30))
        #expect(try face.mask(for: "\u{E000}", pixelHeight: 30) == face.mask(for: "?", pixelHeight: 30))
    }

    @Test func aMissingFileAndAFileThatIsNoFontNameTheFileAndTheCall() throws {
        #expect {
            _ = try FontFace(path: "/nonexistent/font.ttf")
        } throws: { error in
            "\(error)" == "/nonexistent/font.ttf: FT_New_Face failed: cannot open resource (FreeType error 0x1)"
        }
        let path = "/tmp/vitrine-not-a-font-\(getpid()).ttf"
        let file = fopen(path, "w")!
        fputs("this is not a font\n", file)
        fclose(file)
        defer { unlink(path) }
        #expect {
            _ = try FontFace(path: path)
        } throws: { error in
            "\(error)" == "\(path): FT_New_Face failed: unknown file format (FreeType error 0x2)"
        }
    }

    @Test func aLineTooLongOrTooLargeIsRefused() throws {
        let face = try FontFace()
        #expect(throws: FreeTypeError.self) { try face.mask(for: String(repeating: "a", count: 201), pixelHeight: 20) }
        #expect(throws: FreeTypeError.self) { try face.mask(for: "a", pixelHeight: 513) }
        #expect(throws: FreeTypeError.self) { try face.mask(for: "a", pixelHeight: 0) }
        #expect(try face.mask(for: String(repeating: "a", count: 200), pixelHeight: 20).width > 0)
        #expect(try face.mask(for: "", pixelHeight: 20).width == 0)
    }
}
