/// One layer of a frame as the display would scan it out: a buffer, the part
/// of it shown, where on the screen, and how opaque. A frame is a stack of
/// these (`LayerStack`), which either the display's planes compose or the CPU
/// does; both must give the same picture.
public struct DisplayLayer: Hashable, Sendable {
    /// What the layer's buffer holds.
    public enum Content: Hashable, Sendable {
        /// A slide's frame: the scene's layer, which names the slide and its
        /// playback, so the same value is the same pixels.
        case slide(Scene.Layer)
        /// The background colour where the scene layer's picture is missing
        /// (not decoded yet, or decoded for another size). It has no buffer
        /// to scan out, so it is always composed by the CPU.
        case fill(Scene.Layer)
        /// The page dots, in a small buffer of their own that is drawn again
        /// whenever the indicator's state changes.
        case indicator(IndicatorState)
        /// A notice over everything (`AddressNotice`). It has no scan-out
        /// buffer of its own yet, so it is composed by the CPU, and with it
        /// every layer under it: it shows only on a kiosk being set up.
        case notice(NoticeImage)
    }

    public var content: Content
    public var format: ScanoutFormat
    /// The size of the buffer the layer shows part of.
    public var bufferSize: PixelSize
    /// The part of the buffer shown, in buffer pixels (fractional: a Ken Burns
    /// rectangle; a plane's `SRC_*` properties take it in 16.16 fixed point).
    public var source: SourceRect
    /// Where it shows, in output pixels; always inside the output (a slide
    /// half off the screen is clipped here, its source with it).
    public var destination: PixelRect
    /// The layer's opacity, 0...1 (a plane's `alpha` property).
    public var opacity: Double

    public init(content: Content, format: ScanoutFormat, bufferSize: PixelSize, source: SourceRect,
                destination: PixelRect, opacity: Double) {
        self.content = content
        self.format = format
        self.bufferSize = bufferSize
        self.source = source
        self.destination = destination
        self.opacity = opacity
    }

    /// Whether the display's scaler must resample it: the source is stretched
    /// or shrunk to the destination, or starts between pixels (a Ken Burns
    /// rectangle at exactly 1:1, which a plane that does not scale would
    /// show from the whole pixel, dropping the fraction the CPU interpolates).
    public var isScaled: Bool {
        let fixed = source.fixed16
        return source.width != Double(destination.width) || source.height != Double(destination.height)
            || fixed.x & 0xFFFF != 0 || fixed.y & 0xFFFF != 0
    }

    /// Whether it is a `.fill`: no buffer, composed by the CPU.
    public var isFill: Bool {
        if case .fill = content { return true }
        return false
    }

    /// Whether only the CPU can draw it: a `.fill` or a `.notice`, which have
    /// no buffer a plane could show.
    public var isComposedOnly: Bool {
        switch content {
        case .fill, .notice: true
        case .slide, .indicator: false
        }
    }

    /// The scene layer it draws, for a slide or a fill; nil for the dots and the notice.
    public var sceneLayer: Scene.Layer? {
        switch content {
        case .slide(let layer), .fill(let layer): layer
        case .indicator, .notice: nil
        }
    }

    /// Whether it hides everything under its destination.
    public var isOpaque: Bool { opacity >= 1 && !format.hasPixelAlpha }

    /// The plane `alpha` property's value: 0 transparent ... 0xFFFF opaque.
    public var planeAlpha: UInt16 { UInt16((min(max(opacity, 0), 1) * 65535).rounded()) }

    /// Bytes the display reads for it per refresh.
    public var bytesPerRefresh: Double { source.width * source.height * format.bytesPerPixel }
}

/// A rectangle of a buffer in its pixels, fractional.
public struct SourceRect: Hashable, Sendable, CustomStringConvertible {
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

    /// The whole of a buffer of `size`.
    public init(_ size: PixelSize) {
        self.init(x: 0, y: 0, width: Double(size.width), height: Double(size.height))
    }

    /// In 16.16 fixed point, as `SRC_X`, `SRC_Y`, `SRC_W` and `SRC_H` take it.
    public var fixed16: (x: UInt32, y: UInt32, width: UInt32, height: UInt32) {
        // Source rectangles lie inside their buffers, so never negative; a value that is not
        // finite (a layer of an empty output) is 0 rather than a trap.
        func fixed(_ value: Double) -> UInt32 {
            guard value.isFinite else { return 0 }
            return UInt32(clamping: Int64((min(max(value, 0), 65535) * 65536).rounded()))
        }
        return (fixed(x), fixed(y), fixed(width), fixed(height))
    }

    public var description: String { "\(width)x\(height)+\(x)+\(y)" }
}
