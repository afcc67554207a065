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

    /// A mode no display offered: the size and rate a connector waiting for
    /// its display is laid out at until a hotplug brings a real one. It is
    /// never set on a CRTC.
    static func standIn(width: Int, height: Int, refreshHertz: Int = 60) -> DRMMode {
        var info = drmModeModeInfo()
        info.hdisplay = UInt16(clamping: width)
        info.vdisplay = UInt16(clamping: height)
        info.vrefresh = UInt32(clamping: refreshHertz)
        return DRMMode(info)
    }

    public var size: PixelSize { PixelSize(width: width, height: height) }
    public var refreshHertz: Double { Double(refreshMillihertz) / 1000 }
    /// One refresh period.
    public var refreshInterval: Duration {
        .nanoseconds(refreshMillihertz > 0 ? 1_000_000_000_000 / Int64(refreshMillihertz) : 16_666_667)
    }

    /// The mode as the output plan sees it (VitrineCore's `OutputMode`).
    public var outputMode: OutputMode {
        OutputMode(width: width, height: height, refreshMillihertz: refreshMillihertz, isPreferred: isPreferred)
    }

    /// `1920x1080@60`, with decimals only where the rate is not whole (`59.94`).
    public var description: String { outputMode.description }

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

/// A mode asked for: the core's `DisplayModeSpec`, which the configuration reads
/// (`WIDTHxHEIGHT` or `WIDTHxHEIGHT@HZ`) and the output plan matches too.
public typealias DRMModeRequest = DisplayModeSpec

extension DisplayModeSpec {
    /// The best of `modes` for this request (`bestMatch`: the right size, the
    /// rate within half a hertz if one is given, the preferred mode, then the
    /// highest rate).
    public func match(in modes: [DRMMode]) -> DRMMode? {
        bestMatch(in: modes.map(\.outputMode)).map { modes[$0] }
    }
}

extension Array where Element == DRMMode {
    /// The connector's preferred mode, or its first (largest) if none is marked.
    public var preferred: DRMMode? { first { $0.isPreferred } ?? first }
}
