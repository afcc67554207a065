/// A rectangle of a slide's framed picture (the output-shaped frame the picture
/// is fitted into, bars included), in fractions of that frame's width and
/// height: `FrameRect.whole` is the whole frame. A Ken Burns motion moves the
/// screen from one such rectangle to another; one with equal width and height
/// has the output's shape, and shows the picture `zoom` times larger than the
/// whole frame does.
public struct FrameRect: Hashable, Sendable, CustomStringConvertible {
    public var x: Double
    public var y: Double
    public var width: Double
    public var height: Double

    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    public static let whole = FrameRect(x: 0, y: 0, width: 1, height: 1)

    /// How many times larger than the whole frame this rectangle shows the picture.
    public var zoom: Double { 1 / max(width, height) }

    /// The centre, in the same fractions.
    public var centre: (x: Double, y: Double) { (x + width / 2, y + height / 2) }

    /// The way from this rectangle to `other`, `t` (0...1) of it along: the
    /// centre moves in a straight line at an even speed and the size changes
    /// by an even factor per step, so a zoom looks as fast at its start as at
    /// its end. Between two rectangles inside the frame it stays inside
    /// (the size's geometric mean is never above its arithmetic one).
    public func interpolated(to other: FrameRect, by t: Double) -> FrameRect {
        if t <= 0 { return self }
        if t >= 1 { return other }
        func geometric(_ a: Double, _ b: Double) -> Double {
            a > 0 && b > 0 ? a * Self.power(b / a, t) : a + (b - a) * t
        }
        let width = geometric(self.width, other.width), height = geometric(self.height, other.height)
        let centreX = centre.x + (other.centre.x - centre.x) * t
        let centreY = centre.y + (other.centre.y - centre.y) * t
        return FrameRect(x: centreX - width / 2, y: centreY - height / 2, width: width, height: height)
    }

    /// `base` to the power `exponent` (0...1) from square roots alone, which
    /// IEEE 754 rounds correctly, so the same on every machine (the core has
    /// no libm): the binary digits of the exponent pick which of base^(1/2),
    /// base^(1/4), … multiply in. 30 digits: the exponent to within 2^-30.
    static func power(_ base: Double, _ exponent: Double) -> Double {
        guard exponent < 1 else { return base }
        var result = 1.0, root = base, digits = max(exponent, 0)
        for _ in 0..<30 {
            root = root.squareRoot()
            digits *= 2
            if digits >= 1 {
                result *= root
                digits -= 1
            }
        }
        return result
    }

    /// `[x, y, w, h]`, as the configuration writes it.
    public var description: String { "[\(x), \(y), \(width), \(height)]" }
}
