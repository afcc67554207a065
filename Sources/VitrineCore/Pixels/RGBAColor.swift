/// An sRGB colour with straight (non-premultiplied) alpha.
public struct RGBAColor: Hashable, Sendable, CustomStringConvertible {
    public var red: UInt8
    public var green: UInt8
    public var blue: UInt8
    public var alpha: UInt8

    public init(red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8 = 255) {
        self.red = red
        self.green = green
        self.blue = blue
        self.alpha = alpha
    }

    public static let black = RGBAColor(red: 0, green: 0, blue: 0)
    public static let white = RGBAColor(red: 255, green: 255, blue: 255)

    /// Parses `#RGB`, `#RRGGBB` or `#RRGGBBAA` (the `#` is optional).
    public init?(hex: String) {
        var digits = Substring(hex)
        if digits.first == "#" { digits = digits.dropFirst() }
        guard digits.allSatisfy({ $0.isASCII && $0.isHexDigit }) else { return nil }
        let values = digits.compactMap { $0.hexDigitValue }.map(UInt8.init)
        switch values.count {
        case 3:
            self.init(red: values[0] * 17, green: values[1] * 17, blue: values[2] * 17)
        case 6, 8:
            let bytes = stride(from: 0, to: values.count, by: 2).map { values[$0] << 4 | values[$0 + 1] }
            self.init(red: bytes[0], green: bytes[1], blue: bytes[2], alpha: bytes.count == 4 ? bytes[3] : 255)
        default:
            return nil
        }
    }

    /// `#RRGGBB`, or `#RRGGBBAA` when not opaque.
    public var hexString: String {
        func pair(_ value: UInt8) -> String {
            let text = String(value, radix: 16, uppercase: true)
            return value < 16 ? "0" + text : text
        }
        return "#" + pair(red) + pair(green) + pair(blue) + (alpha == 255 ? "" : pair(alpha))
    }

    /// The colour as an XRGB8888 pixel (alpha dropped; the X byte set to 0xFF).
    public var xrgb: UInt32 {
        0xFF00_0000 | UInt32(red) << 16 | UInt32(green) << 8 | UInt32(blue)
    }

    /// Linear interpolation in sRGB space; `fraction` 0 gives `self`, 1 gives `other`.
    public func mixed(with other: RGBAColor, fraction: Double) -> RGBAColor {
        let f = min(max(fraction, 0), 1)
        func mix(_ a: UInt8, _ b: UInt8) -> UInt8 { UInt8((Double(a) + (Double(b) - Double(a)) * f).rounded()) }
        return RGBAColor(
            red: mix(red, other.red), green: mix(green, other.green),
            blue: mix(blue, other.blue), alpha: mix(alpha, other.alpha))
    }

    public var description: String { hexString }
}
