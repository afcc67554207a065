/// The pixel formats a layer's buffer can be in, as the display reads them.
///
/// Slides are `xrgb8888` (what every decoder writes today) and the page dots
/// `argb8888`; the YUV formats are what a slide decoded by libjpeg-turbo
/// straight to YUV would be, which vc4 scans out at half the bytes.
public enum ScanoutFormat: String, Hashable, Sendable, CaseIterable {
    case xrgb8888 = "XR24"
    case argb8888 = "AR24"
    /// Two planes: luma, then interleaved chroma at half size each way.
    case nv12 = "NV12"
    /// Three planes: luma, then each chroma at half size each way.
    case yuv420 = "YU12"

    /// The DRM fourcc (`DRM_FORMAT_*`): four ASCII characters, little-endian.
    public var fourcc: UInt32 {
        rawValue.utf8.reversed().reduce(0) { ($0 << 8) | UInt32($1) }
    }

    /// The format of a DRM fourcc, or nil for one Vitrine never scans out.
    public init?(fourcc: UInt32) {
        guard let format = Self.allCases.first(where: { $0.fourcc == fourcc }) else { return nil }
        self = format
    }

    /// Bytes the display fetches per pixel shown at 1:1: what the memory
    /// bandwidth budget counts.
    public var bytesPerPixel: Double {
        switch self {
        case .xrgb8888, .argb8888: 4
        case .nv12, .yuv420: 1.5
        }
    }

    /// Whether the pixels carry their own alpha, which the display blends by.
    public var hasPixelAlpha: Bool { self == .argb8888 }
}
