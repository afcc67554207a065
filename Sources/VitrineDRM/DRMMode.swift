import CLibDRM
import VitrineCore

/// A display mode a connector offers (`drmModeModeInfo`), resolved into
/// Swift values once; the raw struct stays inside this module for the ioctls.
public struct DRMMode: Hashable, Sendable, CustomStringConvertible {
    public let width: Int
    public let height: Int
    /// The refresh rate in millihertz, from the pixel clock and the totals
    /// (`vrefresh` is rounded to whole hertz).
    public let refreshMillihertz: Int
    public let isPreferred: Bool
    let info: drmModeModeInfo

    init(_ info: drmModeModeInfo) {
        self.info = info
        width = Int(info.hdisplay)
        height = Int(info.vdisplay)
        let totals = Int(info.htotal) * Int(info.vtotal)
        refreshMillihertz = totals > 0 ? Int(info.clock) * 1_000_000 / totals : Int(info.vrefresh) * 1000
        isPreferred = info.type & UInt32(DRM_MODE_TYPE_PREFERRED) != 0
    }

    public var size: PixelSize { PixelSize(width: width, height: height) }
    public var refreshHertz: Double { Double(refreshMillihertz) / 1000 }
    /// One refresh period.
    public var refreshInterval: Duration {
        .nanoseconds(refreshMillihertz > 0 ? 1_000_000_000_000 / Int64(refreshMillihertz) : 16_666_667)
    }

    /// `1920x1080@60`, with decimals only where the rate is not whole (`59.94`).
    public var description: String {
        let hertz = refreshMillihertz % 1000 == 0 ? "\(refreshMillihertz / 1000)"
            : String(Double(refreshMillihertz / 10) / 100)
        return "\(width)x\(height)@\(hertz)"
    }

    /// Whether both drive the display the same way: size, pixel clock, totals,
    /// sync flags. The preferred flag does not count, so a replugged display
    /// that offers the same timings needs no modeset.
    func hasSameTimings(as other: DRMMode) -> Bool {
        let a = info, b = other.info
        return a.hdisplay == b.hdisplay && a.vdisplay == b.vdisplay && a.clock == b.clock
            && a.hsync_start == b.hsync_start && a.hsync_end == b.hsync_end && a.htotal == b.htotal
            && a.vsync_start == b.vsync_start && a.vsync_end == b.vsync_end && a.vtotal == b.vtotal
            && a.flags == b.flags
    }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.width == rhs.width && lhs.height == rhs.height && lhs.refreshMillihertz == rhs.refreshMillihertz
            && lhs.isPreferred == rhs.isPreferred && lhs.info.clock == rhs.info.clock && lhs.info.flags == rhs.info.flags
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(width)
        hasher.combine(height)
        hasher.combine(refreshMillihertz)
    }
}

/// A mode asked for in the configuration: `WIDTHxHEIGHT` or `WIDTHxHEIGHT@HZ`.
public struct DRMModeRequest: Hashable, Sendable, CustomStringConvertible {
    public var width: Int
    public var height: Int
    public var refreshHertz: Double?

    public init(width: Int, height: Int, refreshHertz: Double? = nil) {
        self.width = width
        self.height = height
        self.refreshHertz = refreshHertz
    }

    public init?(parsing text: String) {
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count <= 2, let size = PixelSize(parsing: String(parts[0])) else { return nil }
        var hertz: Double?
        if parts.count == 2 {
            guard let value = Double(parts[1]), value > 0, value < 1000 else { return nil }
            hertz = value
        }
        self.init(width: size.width, height: size.height, refreshHertz: hertz)
    }

    public var description: String {
        let size = "\(width)x\(height)"
        guard let refreshHertz else { return size }
        return size + "@" + (refreshHertz.rounded() == refreshHertz ? "\(Int(refreshHertz))" : "\(refreshHertz)")
    }

    /// The best of `modes` for this request: the right size, the rate within
    /// half a hertz if one is given, the preferred mode, then the highest rate.
    public func match(in modes: [DRMMode]) -> DRMMode? {
        modes.filter { mode in
            mode.width == width && mode.height == height
                && (refreshHertz.map { abs(mode.refreshHertz - $0) < 0.5 } ?? true)
        }
        .max { ($0.isPreferred ? 1 : 0, $0.refreshMillihertz) < ($1.isPreferred ? 1 : 0, $1.refreshMillihertz) }
    }
}

extension Array where Element == DRMMode {
    /// The connector's preferred mode, or its first (largest) if none is marked.
    public var preferred: DRMMode? { first { $0.isPreferred } ?? first }
}
