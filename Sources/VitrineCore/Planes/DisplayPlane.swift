/// What one plane of a display can do, as the planner sees it: read from the
/// card's plane properties (VitrineDRM's `DRMPlaneDetails`) or, in tests, from
/// a model of a driver (`DisplayPlane.vc4Output`, `DisplayPlane.vkms`).
public struct DisplayPlane: Hashable, Sendable {
    public enum Kind: String, Hashable, Sendable {
        case primary, overlay, cursor
    }

    /// Where the plane stacks among the others.
    public enum StackingOrder: Hashable, Sendable {
        /// No `zpos` property: overlays stack in the card's plane order, above the primary.
        case implicit
        /// An immutable `zpos`.
        case fixed(Int)
        /// A `zpos` the commit sets, within this range.
        case adjustable(ClosedRange<Int>)
    }

    /// The plane object's ID.
    public var id: UInt32
    public var kind: Kind
    /// The formats it scans out that Vitrine uses.
    public var formats: Set<ScanoutFormat>
    /// Whether it has the `alpha` property (a whole-plane opacity).
    public var hasAlpha: Bool
    public var stacking: StackingOrder

    public init(id: UInt32, kind: Kind, formats: Set<ScanoutFormat>, hasAlpha: Bool, stacking: StackingOrder) {
        self.id = id
        self.kind = kind
        self.formats = formats
        self.hasAlpha = hasAlpha
        self.stacking = stacking
    }

    /// The lowest `zpos` it can take (the order of planes without one is their list order).
    var lowestZpos: Int? {
        switch stacking {
        case .implicit: nil
        case .fixed(let value): value
        case .adjustable(let range): range.lowerBound
        }
    }
}

extension DisplayPlane {
    /// One output's planes on a Raspberry Pi 4 or 5 (vc4's HVS): a primary, a
    /// cursor and `overlays` of the 16 overlays the outputs share, every one
    /// with `alpha` and a `zpos` the commit sets (0...15 in 6.1), scanning
    /// out RGB and YUV. IDs are made up; the capabilities are the driver's.
    public static func vc4Output(overlays: Int, firstID: UInt32 = 100) -> [DisplayPlane] {
        let formats: Set<ScanoutFormat> = [.xrgb8888, .argb8888, .nv12, .yuv420]
        var planes = [DisplayPlane(id: firstID, kind: .primary, formats: formats, hasAlpha: true, stacking: .adjustable(0...15))]
        planes += (0..<overlays).map {
            DisplayPlane(id: firstID + 1 + UInt32($0), kind: .overlay, formats: formats, hasAlpha: true, stacking: .adjustable(0...15))
        }
        planes.append(DisplayPlane(id: firstID + 1 + UInt32(overlays), kind: .cursor, formats: [.argb8888], hasAlpha: true,
                                   stacking: .adjustable(0...15)))
        return planes
    }

    /// VKMS in Linux 6.1 with `enable_overlay=1`: a primary (`xrgb8888`,
    /// no `argb8888`) and 8 overlays (and a cursor with `enable_cursor=1`),
    /// RGB only, no `alpha`, no `zpos`: planes stack in the card's order.
    public static func vkms(overlays: Int = 8, firstID: UInt32 = 31) -> [DisplayPlane] {
        let formats: Set<ScanoutFormat> = [.xrgb8888, .argb8888]
        return [DisplayPlane(id: firstID, kind: .primary, formats: [.xrgb8888], hasAlpha: false, stacking: .implicit)]
            + (0..<overlays).map {
                DisplayPlane(id: firstID + 1 + UInt32($0), kind: .overlay, formats: formats, hasAlpha: false, stacking: .implicit)
            }
    }
}
