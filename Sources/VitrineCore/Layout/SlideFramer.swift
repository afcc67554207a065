internal import CPixelRows

/// Builds a slide's output-sized frame: the background colour, with the upright
/// picture fitted on top.
///
/// Slides are held as whole output frames so that compositing a transition is
/// little more than copying rows (see `Compositor`).
public enum SlideFramer {
    /// The size a decoder should at least produce, in the picture's stored
    /// orientation, for a picture whose upright full size is `picture`: the
    /// visible part of its placement, scaled back to the whole picture.
    public static func decodeTarget(picture: PixelSize, orientation: ExifOrientation, output: PixelSize, fit: FitMode) -> PixelSize {
        let placement = SlideLayout.placement(of: picture, in: output, fit: fit)
        // Never ask for more than the placement itself: with `cover` on an extreme
        // aspect ratio the placement can be far larger than the picture.
        let upright = PixelSize(width: min(placement.width, max(picture.width, 1)),
                                height: min(placement.height, max(picture.height, 1)))
        return orientation.swapsAxes ? upright.transposed : upright
    }

    /// Draws `decoded` (the picture in stored orientation, at any decoded size)
    /// upright and fitted into `canvas` over `background`.
    ///
    /// Orientation is applied first on the decoded picture (no larger than about
    /// twice the output), then only the part of the placement that is on screen
    /// is resampled, so `cover` on a panorama costs no more than on a photo.
    public static func frame(
        decoded: PixelImage, orientation: ExifOrientation, fit: FitMode, background: RGBAColor, into canvas: PixelCanvas,
        scratch: FramingScratch? = nil
    ) {
        let upright = orientation == .up ? decoded : orientation.uprighted(decoded, storage: scratch?.upright)
        guard let part = visiblePart(of: upright.size, in: canvas, background: background, fit: fit) else { return }
        AreaResampler.resample(upright, region: part.region, into: canvas, at: part.visible, scratch: scratch?.rows)
    }

    /// Starts the frame of an upright picture of `picture` size that will arrive
    /// row by row, top to bottom (`StreamingAreaResampler.consume`): the bars
    /// around it are filled with `background` now, the picture as its rows come.
    /// nil when no part of the picture is on screen; the canvas is then all background.
    public static func streamingFrame(
        picture: PixelSize, fit: FitMode, background: RGBAColor, into canvas: PixelCanvas, scratch: FramingScratch? = nil
    ) -> StreamingAreaResampler? {
        guard let part = visiblePart(of: picture, in: canvas, background: background, fit: fit) else { return nil }
        return StreamingAreaResampler(sourceSize: picture, region: part.region, into: canvas, at: part.visible,
                                      scratch: scratch?.rows)
    }

    /// The rectangle of `canvas` the fitted picture covers and the region of the
    /// picture shown there; everything else is filled with `background`.
    static func visiblePart(of picture: PixelSize, in canvas: PixelCanvas, background: RGBAColor, fit: FitMode)
        -> (visible: PixelRect, region: AreaResampler.SourceRegion)? {
        let bounds = PixelRect(x: 0, y: 0, width: canvas.size.width, height: canvas.size.height)
        let placement = SlideLayout.placement(of: picture, in: canvas.size, fit: fit)
        guard let visible = placement.intersection(bounds) else {
            canvas.fill(with: background)
            return nil
        }
        // Only the bars around the picture get the background colour.
        canvas.fill(around: visible, with: background)
        let scaleX = Double(picture.width) / Double(placement.width)
        let scaleY = Double(picture.height) / Double(placement.height)
        let region = AreaResampler.SourceRegion(
            x: Double(visible.x - placement.x) * scaleX, y: Double(visible.y - placement.y) * scaleY,
            width: Double(visible.width) * scaleX, height: Double(visible.height) * scaleY)
        return (visible, region)
    }
}

/// Memory a decode worker keeps between pictures for framing: the upright copy
/// of a rotated picture, and the resampler's ring of horizontally filtered rows.
public final class FramingScratch: @unchecked Sendable {
    let upright = PixelStorage()
    let rows = PixelStorage()
    public init() {}
}

extension ExifOrientation {
    /// The orientation that turns a picture clockwise by `rotation` for a panel
    /// mounted turned that way: what the kiosk applies to every frame.
    public init(turningClockwise rotation: DisplayRotation) {
        switch rotation {
        case .none: self = .up
        case .quarter: self = .right
        case .half: self = .down
        case .threeQuarters: self = .left
        }
    }

    /// Draws `stored` turned by this orientation into `canvas`, whose size must be
    /// `displaySize(forStored:)`; the canvas may have a stride (a scanout buffer).
    public func draw(_ stored: PixelImage, into canvas: PixelCanvas) {
        draw(stored.canvas, into: canvas)
    }

    /// The same from a view with a stride of its own: a region of a larger
    /// frame (a composite display's member turns its part of the picture).
    /// A quarter turn is walked in tiles (`vitrine_pixels_turn`): a row of the
    /// panel is a column of the frame, read a pixel from each row in turn.
    public func draw(_ stored: PixelCanvas, into canvas: PixelCanvas) {
        precondition(canvas.size == displaySize(forStored: stored.size), "canvas \(canvas.size) does not fit \(stored.size) at \(self)")
        turn(stored.base, stride: stored.stride, stored: stored.size, into: canvas.base, stride: canvas.stride)
    }

    /// The picture turned upright: an image of `displaySize(forStored:)`, in
    /// `storage` when given.
    public func uprighted(_ stored: PixelImage, storage: PixelStorage? = nil) -> PixelImage {
        let size = displaySize(forStored: stored.size)
        let result = storage.map { PixelImage(size: size, storage: $0) } ?? PixelImage(size: size)
        turn(stored.pixels.baseAddress!, stride: stored.width, stored: stored.size, into: result.pixels.baseAddress!, stride: result.width)
        return result
    }

    /// Every upright pixel from its stored one, as `storedPixel` maps them:
    /// the mapping is affine, so the first pixel and one step along each axis
    /// give it whole.
    private func turn(_ source: UnsafePointer<UInt32>, stride: Int, stored: PixelSize,
                      into destination: UnsafeMutablePointer<UInt32>, stride destinationStride: Int) {
        let upright = displaySize(forStored: stored)
        guard !upright.isEmpty else { return }
        func offset(_ u: Int, _ v: Int) -> Int {
            let (x, y) = storedPixel(u: u, v: v, stored: stored)
            return y * stride + x
        }
        let origin = offset(0, 0)
        vitrine_pixels_turn(destination, destinationStride, upright.width, upright.height, source,
                            origin, offset(1, 0) - origin, offset(0, 1) - origin)
    }
}
