/// The eight values of the EXIF/TIFF `Orientation` tag (0x0112).
///
/// Cameras and phones store the sensor's pixels as read and record how to turn
/// them upright. Each case is named for what the stored picture needs to be
/// shown upright; `displaySize` and `storedPixel` give the exact mapping.
public enum ExifOrientation: Int, Sendable, CaseIterable {
    case up = 1             // as stored
    case upMirrored = 2     // mirror left-right
    case down = 3           // rotate 180°
    case downMirrored = 4   // mirror top-bottom
    case leftMirrored = 5   // transpose (mirror about the top-left/bottom-right diagonal)
    case right = 6          // rotate 90° clockwise
    case rightMirrored = 7  // transverse (mirror about the top-right/bottom-left diagonal)
    case left = 8           // rotate 90° counter-clockwise

    /// Whether showing the picture upright exchanges width and height.
    public var swapsAxes: Bool { rawValue >= 5 }

    /// The size of the upright picture for a stored picture of `stored` size.
    public func displaySize(forStored stored: PixelSize) -> PixelSize {
        swapsAxes ? stored.transposed : stored
    }

    /// The stored pixel shown at upright position (`u`, `v`), for a stored
    /// picture of `stored` size.
    @inline(__always)
    public func storedPixel(u: Int, v: Int, stored: PixelSize) -> (x: Int, y: Int) {
        let w = stored.width, h = stored.height
        switch self {
        case .up: return (u, v)
        case .upMirrored: return (w - 1 - u, v)
        case .down: return (w - 1 - u, h - 1 - v)
        case .downMirrored: return (u, h - 1 - v)
        case .leftMirrored: return (v, u)
        case .right: return (v, h - 1 - u)
        case .rightMirrored: return (w - 1 - v, h - 1 - u)
        case .left: return (w - 1 - v, u)
        }
    }
}
