import VitrineCore

/// A display and its mirrors, driven by one kiosk as if they were one display:
/// every member shows the same picture, each at its own size.
///
/// The kiosk draws the picture, upright and at the source's size, into a frame
/// in memory; `present(at:)` then draws it onto every member that takes the
/// frame (the source included) and presents them one right after the other,
/// so that they change picture at the same vblank or the next. A member of the
/// source's size gets an exact row copy; any other gets the picture scaled to
/// fit with its aspect ratio kept, bilinearly (`PanelPainter`), and black bars
/// on the two sides it does not fill (letterbox or pillarbox): a mirror never
/// crops or stretches the picture.
///
/// The frame is in memory, not the source's scanout buffer, for two reasons:
/// the mirrors read it back, and scanout buffers are slow to read
/// (write-combined on most boards); and an unplugged source then needs no
/// case of its own: the mirrors go on showing the picture while it is away,
/// and the frame keeps the source's last size. The cost is one frame copy
/// for the source (docs/benchmarks.md).
///
/// Each member has its own rotation, applied to the upright picture, and the
/// letterbox is fitted at the member's upright size: a mirror mounted portrait
/// beside a landscape source shows the landscape picture upright with bars
/// above and below. The kiosk that drives a mirror group must then not turn
/// the picture itself (its rotation is none); `outputSize` is the source's
/// size turned back by its rotation. (Turning in the kiosk by the source's
/// rotation and giving every member `.none` also works, but then every mirror
/// shows the picture turned as the source's panel is, whatever its own mount.)
public final class MirroredDisplay: DisplayBackend {
    /// One display of the group, and how its panel is mounted.
    public struct Member {
        public var display: DisplayBackend
        public var rotation: DisplayRotation

        public init(display: DisplayBackend, rotation: DisplayRotation = .none) {
            self.display = display
            self.rotation = rotation
        }
    }

    /// The source first, then the mirrors.
    public let members: [Member]
    private let group: DisplayGroup
    private var painters: [PanelPainter]
    /// The picture the kiosk draws, at the source's upright size; allocated
    /// again only when that size changes (the source's mode did).
    private var frame: PixelImage

    public init(source: Member, mirrors: [Member]) {
        members = [source] + mirrors
        group = DisplayGroup(members.map(\.display))
        painters = members.map { PanelPainter(rotation: $0.rotation) }
        frame = PixelImage(size: painters[0].logicalSize(ofPanel: source.display.outputSize), fill: .black)
    }

    /// The source's size, upright.
    public var outputSize: PixelSize { painters[0].logicalSize(ofPanel: members[0].display.outputSize) }

    /// `mirror of drm … to [drm … rotation 90, headless 1280x720]`
    public var description: String {
        func named(_ member: Member) -> String {
            member.display.description + (member.rotation == .none ? "" : " rotation \(member.rotation.rawValue)")
        }
        return "mirror of \(named(members[0])) to [" + members.dropFirst().map(named).joined(separator: ", ") + "]"
    }

    public var refreshInterval: Duration { group.refreshInterval }
    public var eventDescriptors: [Int32] { group.eventDescriptors }
    public var generation: Int { group.generation }
    public var pacesItself: Bool { group.pacesItself }
    public var lastScanout: MonotonicInstant? { group.lastScanout }
    public var isReadyForFrame: Bool { group.isReadyForFrame }
    public var isShowing: Bool { group.isShowing }
    public var isPoweredOn: Bool { group.isPoweredOn }
    public var isFlipPending: Bool { group.isFlipPending }
    public var connectorName: String? { group.connectorName }

    /// The frame in memory, at `outputSize`: always free, never scanned out.
    public func acquireCanvas() -> PixelCanvas? {
        if frame.size != outputSize { frame = PixelImage(size: outputSize, fill: .black) }
        return frame.canvas
    }

    /// Draws the picture onto every member that takes the frame, then
    /// presents them all; a member that fails does not keep the others from
    /// their frame (the first failure is thrown after).
    public func present(at now: MonotonicInstant) throws {
        let taking = group.membersTakingFrame()
        let whole = PixelRect(x: 0, y: 0, width: frame.width, height: frame.height)
        for (index, canvas) in taking {
            let logical = painters[index].logicalSize(ofPanel: canvas.size)
            let placement = SlideLayout.placement(of: frame.size, in: logical, fit: .contain)
            painters[index].paint(frame, region: whole, at: placement, into: canvas)
        }
        try group.present(taking.map(\.index), at: now)
    }

    public func handleEvents(on descriptor: Int32) throws { try group.handleEvents(on: descriptor) }
    public func setPower(_ on: Bool) throws { try group.setPower(on) }
    public func close() { group.close() }
}
