/// A physical size in millimetres: a display's picture area as its EDID
/// reports it, or a touch sensor's as its axes' resolution gives it.
public struct MillimetreSize: Hashable, Sendable, CustomStringConvertible {
    public var width: Double
    public var height: Double

    public init(width: Double, height: Double) {
        self.width = width
        self.height = height
    }

    /// Nil unless both sides are above zero: a display or device that reports 0 reports nothing.
    public init?(reportedWidth width: Double, height: Double) {
        guard width > 0, height > 0 else { return nil }
        self.init(width: width, height: height)
    }

    /// The same size turned a quarter.
    public var transposed: MillimetreSize { MillimetreSize(width: height, height: width) }

    /// Whether each side is within `tolerance` millimetres of `other`'s, as
    /// it is or turned a quarter (a sensor may be mounted across its panel's
    /// scan direction, a calibration matrix then swapping its axes).
    public func matches(_ other: MillimetreSize, within tolerance: Double) -> Bool {
        func close(_ a: MillimetreSize) -> Bool { abs(a.width - width) <= tolerance && abs(a.height - height) <= tolerance }
        return close(other) || close(other.transposed)
    }

    /// `154.2x85.9 mm`, `527x296 mm`: a tenth of a millimetre where it is not whole.
    public var description: String { "\(Self.text(width))x\(Self.text(height)) mm" }

    private static func text(_ millimetres: Double) -> String {
        let tenths = (millimetres * 10).rounded()
        return tenths.truncatingRemainder(dividingBy: 10) == 0 ? "\(Int(tenths / 10))" : "\(tenths / 10)"
    }
}
