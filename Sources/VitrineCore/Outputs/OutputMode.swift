/// A display mode a connector offers, as the output plan sees it: its size,
/// its refresh rate and whether the display prefers it. VitrineDRM reads these
/// from the kernel (`DRMMode`); nothing here knows libdrm.
public struct OutputMode: Hashable, Sendable, CustomStringConvertible {
    public var width: Int
    public var height: Int
    /// The refresh rate in millihertz (59.94 Hz is 59940).
    public var refreshMillihertz: Int
    /// Whether the display marks it as its preferred mode (its native one).
    public var isPreferred: Bool

    public init(width: Int, height: Int, refreshMillihertz: Int, isPreferred: Bool = false) {
        self.width = width
        self.height = height
        self.refreshMillihertz = refreshMillihertz
        self.isPreferred = isPreferred
    }

    public var size: PixelSize { PixelSize(width: width, height: height) }
    public var refreshHertz: Double { Double(refreshMillihertz) / 1000 }

    /// `1920x1080@60`, with decimals only where the rate is not whole (`59.94`).
    public var description: String {
        let hertz = refreshMillihertz % 1000 == 0 ? "\(refreshMillihertz / 1000)"
            : String(Double(refreshMillihertz / 10) / 100)
        return "\(width)x\(height)@\(hertz)"
    }
}

extension Array where Element == OutputMode {
    /// The display's preferred mode, or its first (largest) if none is marked.
    public var preferred: OutputMode? { first { $0.isPreferred } ?? first }
}
