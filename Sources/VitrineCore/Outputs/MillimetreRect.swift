/// A rectangle on a wall, in millimetres: where an output's picture area
/// (its glass, not its frame) is in a canvas. x grows to the right, y down.
public struct MillimetreRect: Hashable, Sendable, CustomStringConvertible {
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

    public var maxX: Double { x + width }
    public var maxY: Double { y + height }

    /// The overlap with `other`, nil when they only touch or are apart.
    public func intersection(_ other: MillimetreRect) -> MillimetreRect? {
        let left = max(x, other.x), top = max(y, other.y)
        let right = min(maxX, other.maxX), bottom = min(maxY, other.maxY)
        guard right > left, bottom > top else { return nil }
        return MillimetreRect(x: left, y: top, width: right - left, height: bottom - top)
    }

    /// The smallest rectangle holding both.
    public func union(_ other: MillimetreRect) -> MillimetreRect {
        let left = min(x, other.x), top = min(y, other.y)
        return MillimetreRect(x: left, y: top, width: max(maxX, other.maxX) - left, height: max(maxY, other.maxY) - top)
    }

    /// `1210x680 mm at 0,0`, in whole millimetres where they are whole.
    public var description: String {
        "\(Self.text(width))x\(Self.text(height)) mm at \(Self.text(x)),\(Self.text(y))"
    }

    /// A length as a configuration writes it: `1230`, or `1230.5`.
    public static func text(_ millimetres: Double) -> String {
        millimetres.rounded() == millimetres && abs(millimetres) < 1e15 ? "\(Int(millimetres))" : "\(millimetres)"
    }
}
