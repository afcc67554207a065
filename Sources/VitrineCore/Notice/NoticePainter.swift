/// Draws a `ScreenNotice` for an output: white text on a dark translucent
/// box in a corner, sized from the output so that it reads the same from a
/// few steps away on a 720p panel and on a 4K screen.
///
/// The box goes in the top-left corner, or the bottom-left one when the page
/// dots are at the top, so the two never cover each other.
public enum NoticePainter {
    /// The box: black at 75% (premultiplied `argb8888`, as a plane blends it).
    static let boxPixel: UInt32 = 0xC000_0000
    /// The text's size: 1/27 of the output's shorter side (26 px at 720p, 40 px at
    /// 1080p, 80 px at 2160p), at least 12 px and at most 120 px.
    public static func pixelHeight(for output: PixelSize) -> Int {
        min(max(min(output.width, output.height) / 27, 12), 120)
    }

    /// The notice drawn for an output of `output` size whose page dots are at
    /// `indicator`; nil for a notice with no lines or an empty output. A line
    /// wider than the output is drawn smaller until it fits, down to 8 px, then
    /// cut at the box's edge.
    public static func paint(_ notice: ScreenNotice, output: PixelSize, indicator: IndicatorPosition,
                             with rasterizer: any TextRasterizer) throws -> NoticeImage? {
        guard !notice.lines.isEmpty, output.width > 0, output.height > 0 else { return nil }
        var size = pixelHeight(for: output)
        var masks = try notice.lines.map { try rasterizer.mask(for: $0, pixelHeight: size) }
        // A margin and a padding of size/2 on each side. Text does not scale exactly
        // with its size (hinting, rounding), so a line is drawn again until it fits.
        while let widest = masks.map(\.width).max(), widest > output.width - 2 * size, size > 8 {
            size = max(8, min(size - 1, size * (output.width - 2 * size) / widest))
            masks = try notice.lines.map { try rasterizer.mask(for: $0, pixelHeight: size) }
        }
        let margin = size / 2, padding = size / 2, gap = size / 4
        let textHeight = masks.map(\.height).reduce(0, +) + gap * (masks.count - 1)
        let width = min((masks.map(\.width).max() ?? 0) + 2 * padding, output.width - 2 * margin)
        let height = min(textHeight + 2 * padding, output.height - 2 * margin)
        guard width > 0, height > 0 else { return nil }
        let top: Bool
        switch indicator {
        case .topLeft, .topCenter, .topRight: top = false
        case .bottomLeft, .bottomCenter, .bottomRight: top = true
        }
        let destination = PixelRect(x: margin, y: top ? margin : output.height - margin - height, width: width, height: height)
        let image = PixelImage(size: PixelSize(width: width, height: height))
        image.pixels.update(repeating: boxPixel)
        var lineTop = padding
        for mask in masks {
            draw(mask, at: (padding, lineTop), into: image)
            lineTop += mask.height + gap
        }
        return NoticeImage(image: image, destination: destination)
    }

    /// White text of coverage `c` over the box: premultiplied, each channel is
    /// `c`, and alpha is `c` plus the box's share of what is left.
    private static func draw(_ mask: TextMask, at origin: (x: Int, y: Int), into image: PixelImage) {
        let boxAlpha = boxPixel >> 24
        for y in 0..<mask.height where origin.y + y < image.height {
            for x in 0..<mask.width where origin.x + x < image.width {
                let c = UInt32(mask[x, y])
                guard c > 0 else { continue }
                let alpha = c + (boxAlpha * (255 - c) + 127) / 255
                image[origin.x + x, origin.y + y] = alpha << 24 | c << 16 | c << 8 | c
            }
        }
    }
}
