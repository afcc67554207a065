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
/// The frame is in memory, not the source's scanout buffer (`CompositeDisplay`
/// says why): an unplugged source then needs no case of its own, the mirrors
/// go on showing the picture while it is away, and the frame keeps the
/// source's last size. The cost is one frame copy for the source
/// (docs/benchmarks.md).
///
/// Each member has its own rotation, applied to the upright picture, and the
/// letterbox is fitted at the member's upright size: a mirror mounted portrait
/// beside a landscape source shows the landscape picture upright with bars
/// above and below. The kiosk that drives a mirror group must then not turn
/// the picture itself (its rotation is none); `outputSize` is the source's
/// size turned back by its rotation. (Turning in the kiosk by the source's
/// rotation and giving every member `.none` also works, but then every mirror
/// shows the picture turned as the source's panel is, whatever its own mount.)
public final class MirroredDisplay: CompositeDisplay {
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

    public init(source: Member, mirrors: [Member]) {
        members = [source] + mirrors
        super.init(members.map { ($0.display, $0.rotation) }, frameSize: Self.upright(source))
    }

    private static func upright(_ member: Member) -> PixelSize {
        ExifOrientation(turningClockwise: member.rotation).displaySize(forStored: member.display.outputSize)
    }

    /// The source's size, upright; the frame follows it when the source's mode changes.
    override public var outputSize: PixelSize { Self.upright(members[0]) }

    /// `mirror of drm … to [drm … rotation 90, headless 1280x720]`
    override public var description: String {
        func named(_ member: Member) -> String {
            member.display.description + (member.rotation == .none ? "" : " rotation \(member.rotation.rawValue)")
        }
        return "mirror of \(named(members[0])) to [" + members.dropFirst().map(named).joined(separator: ", ") + "]"
    }

    /// The whole frame, fitted to each member with its aspect ratio kept.
    override func layout(ofMember index: Int, logical: PixelSize, frame: PixelSize) -> (region: PixelRect, placement: PixelRect) {
        (PixelRect(x: 0, y: 0, width: frame.width, height: frame.height), SlideLayout.placement(of: frame, in: logical, fit: .contain))
    }
}
