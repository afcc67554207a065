/// A slide's Ken Burns pan and zoom as configured (`kenBurns`, top level and
/// per slide; docs/configuration.md): two rectangles of the framed picture, or
/// a seed that chooses them.
public enum KenBurns: Hashable, Sendable {
    /// None (`kenBurns: false` on a slide, over a top-level default).
    case off
    /// From one rectangle of the framed picture to another: `{from: [x, y, w, h], to: [x, y, w, h]}`.
    case rectangles(from: FrameRect, to: FrameRect, easing: Easing)
    /// Chosen by `KenBurnsChoice` from the seed and the picture: `{seed: N, zoom: Z}`.
    case seeded(seed: UInt32, zoom: Double, easing: Easing)

    /// A seeded motion's closest view when `zoom` is not given.
    public static let defaultZoom = 1.25
    /// The closest view a motion may come to: the compositor resamples the
    /// stored frame bilinearly, which is sharp from 1x to about 2x.
    public static let largestZoom = 2.0
    /// The rectangles of the framed picture a motion may end at must be at
    /// least this wide and high: `1 / largestZoom`.
    public static let smallestSide = 1 / largestZoom
    public static let defaultEasing = Easing.easeInOut

    /// The motion of a slide that shows `picture` (its source, as the
    /// configuration names it) for `dwell`; nil when off.
    public func motion(picture: String, dwell: Duration) -> KenBurnsMotion? {
        switch self {
        case .off:
            return nil
        case .rectangles(let from, let to, let easing):
            return KenBurnsMotion(from: from, to: to, duration: dwell, easing: easing)
        case .seeded(let seed, let zoom, let easing):
            let (from, to) = KenBurnsChoice.rectangles(seed: seed, zoom: zoom, picture: picture)
            return KenBurnsMotion(from: from, to: to, duration: dwell, easing: easing)
        }
    }

    /// Why `rect` cannot be a Ken Burns rectangle, or nil when it can: inside
    /// the frame, at least `smallestSide` wide and high, and of the output's
    /// shape (width and height equal as fractions of the output-shaped frame).
    public static func problem(with rect: FrameRect) -> String? {
        let sides = [rect.x, rect.y, rect.width, rect.height]
        if !sides.allSatisfy({ $0.isFinite }) { return "must be four numbers" }
        if rect.width <= 0 || rect.height <= 0 { return "w and h must be greater than 0" }
        if rect.x < 0 || rect.y < 0 || rect.x + rect.width > 1 + 1e-9 || rect.y + rect.height > 1 + 1e-9 {
            return "must lie inside the framed picture: x, y >= 0, x + w <= 1 and y + h <= 1 (fractions of its width and height)"
        }
        if abs(rect.width - rect.height) > 1e-6 {
            return "w and h must be equal: fractions of the output-shaped frame, so that the rectangle has the output's shape"
        }
        if rect.width < smallestSide - 1e-9 {
            return "w and h must be at least \(smallestSide): a zoom of at most \(Int(largestZoom))x"
        }
        return nil
    }
}
