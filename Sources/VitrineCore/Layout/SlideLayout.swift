/// Where a picture lands on the output for a fit mode.
public enum SlideLayout {
    /// The rectangle, in output pixels, that the whole upright picture of size
    /// `picture` occupies when fitted to `output` with `fit`. With `.cover` the
    /// rectangle overhangs the output; the overhang is cropped when drawing.
    public static func placement(of picture: PixelSize, in output: PixelSize, fit: FitMode) -> PixelRect {
        guard !picture.isEmpty, !output.isEmpty else {
            return PixelRect(x: 0, y: 0, width: 0, height: 0)
        }
        switch fit {
        case .stretch:
            return PixelRect(x: 0, y: 0, width: output.width, height: output.height)
        case .contain, .cover:
            let scaleX = Double(output.width) / Double(picture.width)
            let scaleY = Double(output.height) / Double(picture.height)
            let scale = fit == .contain ? min(scaleX, scaleY) : max(scaleX, scaleY)
            // Rounded, never below one pixel; the exact side keeps the output's size
            // so a picture of the output's aspect ratio fills it with no hairline.
            let width = scale == scaleX ? output.width : max(1, Int((Double(picture.width) * scale).rounded()))
            let height = scale == scaleY ? output.height : max(1, Int((Double(picture.height) * scale).rounded()))
            return PixelRect(
                x: (output.width - width) / 2, y: (output.height - height) / 2,
                width: width, height: height)
        }
    }
}
