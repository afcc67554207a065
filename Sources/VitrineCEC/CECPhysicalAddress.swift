/// Where a device sits in the HDMI tree, as the sink's EDID gives it: four
/// nibbles written a.b.c.d. The TV is 0.0.0.0; a source on its first input is
/// 1.0.0.0. f.f.f.f means none (no sink connected, or its EDID not read yet).
public struct CECPhysicalAddress: Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt16

    public init(rawValue: UInt16) { self.rawValue = rawValue }

    public static let invalid = CECPhysicalAddress(rawValue: 0xffff)
    public static let tv = CECPhysicalAddress(rawValue: 0)

    public var isValid: Bool { self != .invalid }

    public var description: String {
        (0..<4).map { String((rawValue >> (12 - 4 * $0)) & 0xf, radix: 16) }.joined(separator: ".")
    }
}
