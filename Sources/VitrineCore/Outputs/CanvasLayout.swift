/// A canvas laid out in pixels: one picture spanned across several outputs,
/// from where their picture areas are on the wall, in millimetres.
///
/// The canvas picture has one density (pixels per millimetre), the finest of
/// its shown outputs', so no output shows its part coarser than it can. Each
/// output's region is its rectangle times that density, relative to the
/// canvas's top left corner; both edges of a region are rounded the same way
/// from the millimetre edges, so outputs that do not overlap on the wall have
/// regions that do not overlap, and the millimetres between them (bezels,
/// gaps) are columns or rows of the picture that no output shows: a line
/// crossing from one screen to the next continues where the eye expects it.
public struct CanvasLayout: Hashable, Sendable {
    /// One output's place.
    public struct Member: Hashable, Sendable {
        /// The configured output the place belongs to.
        public var output: String
        public var millimetres: MillimetreRect
        /// Its part of the canvas picture, in canvas pixels.
        public var region: PixelRect
        /// The pixels that show it (the output's, or the mirror's that stands
        /// in for it); nil: its place is kept, but nothing shows it now.
        public var shownAt: PixelSize?
    }

    public let name: String
    /// The canvas on the wall: the smallest rectangle holding every place.
    public let millimetres: MillimetreRect
    public let pixelsPerMillimetre: Double
    /// The canvas picture's size in pixels.
    public let size: PixelSize
    public let members: [Member]

    /// The largest side of a canvas picture, in pixels (the output width the
    /// kiosk accepts headless): a wall of any size costs at most this squared.
    public static let maximumSide = 16384

    /// A place to lay out: an output's rectangle on the wall, and the pixels
    /// that show it, if any.
    public struct Place: Hashable, Sendable {
        public var output: String
        public var millimetres: MillimetreRect
        public var shownAt: PixelSize?

        public init(output: String, millimetres: MillimetreRect, shownAt: PixelSize?) {
            self.output = output
            self.millimetres = millimetres
            self.shownAt = shownAt
        }
    }

    /// Lays out `places`; or why they cannot be: a place without an area, two
    /// that overlap, or none that is shown.
    public static func make(name: String, places: [Place]) -> Result<CanvasLayout, CanvasLayoutProblem> {
        for place in places where !(place.millimetres.width > 0 && place.millimetres.height > 0) {
            return .failure(.noArea(place.output))
        }
        for (position, place) in places.enumerated() {
            for earlier in places.prefix(position) where earlier.output != place.output {
                if let overlap = place.millimetres.intersection(earlier.millimetres) {
                    return .failure(.overlap(place.output, earlier.output, overlap))
                }
            }
        }
        let densities = places.compactMap { place in
            place.shownAt.map { max(Double($0.width) / place.millimetres.width, Double($0.height) / place.millimetres.height) }
        }
        guard let finest = densities.max(), let first = places.first else { return .failure(.nothingShown) }
        let bounds = places.dropFirst().reduce(first.millimetres) { $0.union($1.millimetres) }
        let limit = Double(maximumSide)
        let density = min(finest, limit / bounds.width, limit / bounds.height)
        func pixel(_ millimetres: Double) -> Int { Int((millimetres * density).rounded()) }
        let members = places.map { place in
            let rect = place.millimetres
            let left = pixel(rect.x - bounds.x), top = pixel(rect.y - bounds.y)
            let right = pixel(rect.maxX - bounds.x), bottom = pixel(rect.maxY - bounds.y)
            // A place thinner than a canvas pixel still shows one.
            return Member(output: place.output, millimetres: rect,
                          region: PixelRect(x: left, y: top, width: max(1, right - left), height: max(1, bottom - top)),
                          shownAt: place.shownAt)
        }
        let size = PixelSize(width: max(1, pixel(bounds.width)), height: max(1, pixel(bounds.height)))
        return .success(CanvasLayout(name: name, millimetres: bounds, pixelsPerMillimetre: density, size: size, members: members))
    }

    private init(name: String, millimetres: MillimetreRect, pixelsPerMillimetre: Double, size: PixelSize, members: [Member]) {
        self.name = name
        self.millimetres = millimetres
        self.pixelsPerMillimetre = pixelsPerMillimetre
        self.size = size
        self.members = members
    }

    /// The places whose region holds the canvas pixel (x, y): one, or none
    /// in a bezel, a gap or a kept place.
    public func members(at x: Int, _ y: Int) -> [Member] {
        members.filter { $0.region.x <= x && x < $0.region.maxX && $0.region.y <= y && y < $0.region.maxY }
    }

    /// Where `output` is: its part of the picture, for the output to show.
    public func placement(of output: String) -> CanvasPlacement? {
        members.first { $0.output == output }.map { CanvasPlacement(canvas: name, canvasSize: size, region: $0.region, millimetres: $0.millimetres) }
    }
}

/// Why a canvas cannot be laid out.
public enum CanvasLayoutProblem: Error, Hashable, Sendable, CustomStringConvertible {
    /// An output whose size is unknown: configured without one, and its display reports none.
    case noArea(String)
    /// Two outputs' picture areas overlap, by this rectangle.
    case overlap(String, String, MillimetreRect)
    /// No output of it is shown.
    case nothingShown

    public var description: String {
        switch self {
        case .noArea(let output):
            return "the size of \(output)'s picture area is not known (its display reports none): give it canvas.width and canvas.height in millimetres"
        case .overlap(let output, let other, let overlap):
            return "\(output) overlaps \(other) by \(MillimetreRect.text(overlap.width))x\(MillimetreRect.text(overlap.height)) mm with the sizes the displays report: correct x and y, or give canvas.width and canvas.height"
        case .nothingShown:
            return "none of its outputs is shown"
        }
    }
}

/// An output's part of a canvas picture.
public struct CanvasPlacement: Hashable, Sendable, CustomStringConvertible {
    public var canvas: String
    public var canvasSize: PixelSize
    /// The part of the canvas picture it shows, in canvas pixels, scaled to the output's own.
    public var region: PixelRect
    public var millimetres: MillimetreRect

    /// The canvas pixel an output pixel shows, for an output of `size` (its
    /// logical size, upright): the region sampled at pixel centres.
    public func canvasPixel(x: Int, y: Int, outputSize size: PixelSize) -> (x: Int, y: Int) {
        (region.x + (2 * x + 1) * region.width / (2 * max(1, size.width)),
         region.y + (2 * y + 1) * region.height / (2 * max(1, size.height)))
    }

    /// `canvas wall 1922x1080+0+0 of 3875x1080`
    public var description: String { "canvas \(canvas) \(region) of \(canvasSize)" }
}
