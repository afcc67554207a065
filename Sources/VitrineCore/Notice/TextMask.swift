/// One line of text as a font rasterizer draws it: each pixel's coverage,
/// 0 (none) ... 255 (fully inside a glyph), rows packed, with the line's
/// baseline `ascent` rows down from the top.
public struct TextMask: Hashable, Sendable {
    public var width: Int
    public var height: Int
    /// Rows from the top of the mask down to the baseline.
    public var ascent: Int
    public var coverage: [UInt8]

    public init(width: Int, height: Int, ascent: Int, coverage: [UInt8]) {
        precondition(width >= 0 && height >= 0 && coverage.count == width * height, "a \(width)x\(height) mask of \(coverage.count) values")
        self.width = width
        self.height = height
        self.ascent = ascent
        self.coverage = coverage
    }

    public subscript(x: Int, y: Int) -> UInt8 { coverage[y * width + x] }
}

/// Draws a line of text: a font, at a size in pixels. The kiosk's is FreeType
/// with a system font (`VitrineFreeType.FontFace`); tests use a fake one.
public protocol TextRasterizer: Sendable {
    /// `text` on one line, `pixelHeight` pixels from the font's ascender to its
    /// descender (FreeType's pixel size), left to right with no shaping: the
    /// kiosk draws addresses and host names, which are ASCII.
    func mask(for text: String, pixelHeight: Int) throws -> TextMask
}
