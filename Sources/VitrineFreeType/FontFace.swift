internal import CLibFreeType
import Glibc
import VitrineCore

/// One font file, opened with FreeType, that draws lines of text into
/// coverage masks (`TextRasterizer`): the kiosk's notice text
/// (`AddressNotice`), in DejaVu Sans from Debian's `fonts-dejavu-core`.
///
/// It owns its `FT_Library` and `FT_Face` (`FT_Init_FreeType`,
/// `FT_New_Face`; `FT_Done_Face` and `FT_Done_FreeType` when it goes).
/// Neither may be used by two threads at once, and each output group draws
/// on a thread of its own, so every call holds the face's lock.
///
/// Only a system font is read: the font is trusted input, unlike pictures.
public final class FontFace: TextRasterizer, @unchecked Sendable {
    /// The font the kiosk draws its notices in (`fonts-dejavu-core`, a dependency of the package).
    public static let standardPath = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
    /// The longest line drawn, in characters, and the largest size, in pixels:
    /// a notice is a few short lines, and a bound keeps a mask's memory small.
    public static let maximumCharacters = 200
    public static let maximumPixelHeight = 512

    public let path: String
    private let library: FT_Library
    private let face: FT_Face
    private var lock = pthread_mutex_t()

    /// Opens `path`'s first face (`FT_Init_FreeType`, `FT_New_Face`).
    public init(path: String = FontFace.standardPath) throws(FreeTypeError) {
        var library: FT_Library?
        var status = FT_Init_FreeType(&library)
        guard status == 0, let library else { throw FreeTypeError("FT_Init_FreeType", status, file: path) }
        var face: FT_Face?
        status = FT_New_Face(library, path, 0, &face)
        guard status == 0, let face else {
            FT_Done_FreeType(library)
            throw FreeTypeError("FT_New_Face", status, file: path)
        }
        guard face.pointee.face_flags & FT_Long(FT_FACE_FLAG_SCALABLE) != 0 else {
            FT_Done_Face(face)
            FT_Done_FreeType(library)
            throw FreeTypeError(call: "FT_New_Face", code: -1, message: "not a scalable font", file: path)
        }
        self.path = path
        self.library = library
        self.face = face
        pthread_mutex_init(&lock, nil)
    }

    deinit {
        FT_Done_Face(face)
        FT_Done_FreeType(library)
        pthread_mutex_destroy(&lock)
    }

    /// `text` drawn on one line at `pixelHeight` (`FT_Set_Pixel_Sizes`), each
    /// glyph rendered anti-aliased (`FT_Load_Glyph` with `FT_LOAD_RENDER`) and
    /// placed at the pen with the font's kerning (`FT_Get_Kerning`). The mask
    /// runs from the font's ascender to its descender, so every line of one
    /// size is the same height. A character the font lacks draws as `?`.
    public func mask(for text: String, pixelHeight: Int) throws -> TextMask {
        try draw(text, pixelHeight: pixelHeight)
    }

    private func draw(_ text: String, pixelHeight: Int) throws(FreeTypeError) -> TextMask {
        let scalars = Array(text.unicodeScalars)
        guard scalars.count <= Self.maximumCharacters else {
            throw FreeTypeError(call: "", code: -1, message: "a line of \(scalars.count) characters: at most \(Self.maximumCharacters) are drawn", file: path)
        }
        guard (1...Self.maximumPixelHeight).contains(pixelHeight) else {
            throw FreeTypeError(call: "", code: -1, message: "text \(pixelHeight) px high: 1 to \(Self.maximumPixelHeight) px are drawn", file: path)
        }
        pthread_mutex_lock(&lock)
        defer { pthread_mutex_unlock(&lock) }
        var status = FT_Set_Pixel_Sizes(face, 0, FT_UInt(pixelHeight))
        guard status == 0 else { throw FreeTypeError("FT_Set_Pixel_Sizes", status, file: path) }
        // 26.6 fixed point: the ascender rounded up, the descender (negative) rounded down.
        let metrics = face.pointee.size.pointee.metrics
        let ascent = Int((metrics.ascender + 63) >> 6), descent = Int((-metrics.descender + 63) >> 6)
        let height = max(ascent + descent, 1)

        // Each glyph's bitmap, copied out of the glyph slot (the next load overwrites it).
        struct Glyph { var x: Int; var top: Int; var width: Int; var rows: Int; var coverage: [UInt8] }
        var glyphs: [Glyph] = []
        var pen = 0  // 26.6
        var previous: FT_UInt = 0
        let kerns = vitrine_ft_has_kerning(face) != 0
        let fallback = FT_Get_Char_Index(face, FT_ULong(UInt8(ascii: "?")))
        var right = 0
        for scalar in scalars {
            var index = FT_Get_Char_Index(face, FT_ULong(scalar.value))
            if index == 0 { index = fallback }
            if kerns, previous != 0, index != 0 {
                var kerning = FT_Vector()
                if FT_Get_Kerning(face, previous, index, FT_UInt(FT_KERNING_DEFAULT.rawValue), &kerning) == 0 { pen += Int(kerning.x) }
            }
            status = FT_Load_Glyph(face, index, vitrine_ft_load_render())
            guard status == 0 else { throw FreeTypeError("FT_Load_Glyph", status, file: path) }
            let slot = face.pointee.glyph!
            let bitmap = slot.pointee.bitmap
            let x = (pen >> 6) + Int(slot.pointee.bitmap_left)
            if bitmap.width > 0, bitmap.rows > 0, let buffer = bitmap.buffer {
                guard withUnsafePointer(to: slot.pointee.bitmap, vitrine_ft_pixel_mode_is_gray) != 0 else {
                    throw FreeTypeError(call: "FT_Load_Glyph", code: -1, message: "a glyph rendered in a pixel mode other than 8-bit grey", file: path)
                }
                let width = Int(bitmap.width), rows = Int(bitmap.rows), pitch = Int(bitmap.pitch)
                // FreeType's grey renderer writes top-down rows (a positive pitch); an upward
                // bitmap would come from elsewhere, and is refused rather than drawn upside down.
                guard pitch >= width else {
                    throw FreeTypeError(call: "FT_Load_Glyph", code: -1, message: "a glyph bitmap with pitch \(pitch) for width \(width)", file: path)
                }
                var coverage = [UInt8](repeating: 0, count: width * rows)
                for row in 0..<rows {
                    let source = buffer + row * pitch
                    for column in 0..<width { coverage[row * width + column] = source[column] }
                }
                glyphs.append(Glyph(x: x, top: Int(slot.pointee.bitmap_top), width: width, rows: rows, coverage: coverage))
                right = max(right, x + width)
            }
            pen += Int(slot.pointee.advance.x)
            right = max(right, (pen + 63) >> 6)
            previous = index
        }
        // A glyph may start left of the pen's origin (a negative bearing): shift the line right by that.
        let shift = max(0, -(glyphs.map(\.x).min() ?? 0))
        let width = right + shift
        var coverage = [UInt8](repeating: 0, count: width * height)
        for glyph in glyphs {
            let top = ascent - glyph.top
            for row in 0..<glyph.rows where (0..<height).contains(top + row) {
                for column in 0..<glyph.width {
                    let value = glyph.coverage[row * glyph.width + column]
                    guard value > 0 else { continue }
                    let target = (top + row) * width + glyph.x + shift + column
                    coverage[target] = max(coverage[target], value)
                }
            }
        }
        return TextMask(width: width, height: height, ascent: ascent, coverage: coverage)
    }
}
