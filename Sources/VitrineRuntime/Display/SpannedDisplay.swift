import VitrineCore

/// One picture spanned across several displays: a video wall, driven by one
/// kiosk as if it were one display the size of the whole canvas.
///
/// The kiosk draws the canvas picture, upright, into a frame in memory;
/// `present(at:)` then draws each member's region of it (`CanvasPlacement.region`,
/// in canvas pixels) onto that member, and presents the members one right
/// after the other, so that they change picture at the same vblank or the
/// next. Canvas pixels outside every region (the bezels and gaps between the
/// screens) are shown by none: a line crossing from one screen to the next
/// continues where the eye expects it.
///
/// A member whose region is not its own size (a coarser screen: the canvas has
/// its finest member's density) has the region scaled to it, bilinearly, as
/// `PanelPainter` says. A member mounted turned has its region turned onto its
/// panel (`ExifOrientation.draw`), its region being upright; so the kiosk that
/// drives a span must not turn the picture itself (its rotation is none).
///
/// Members that are away do not hold up the others (`DisplayGroup`): an
/// unplugged screen leaves the rest of the wall running, and gets the picture
/// again when it comes back (its new generation makes the kiosk redraw).
public final class SpannedDisplay: CompositeDisplay {
    /// One display of the wall and its place in the picture.
    public struct Member {
        public var display: DisplayBackend
        /// Its part of the canvas picture, in canvas pixels, upright: `CanvasPlacement.region`.
        public var region: PixelRect
        /// How its panel is mounted: the kiosk's `output.rotation` for this output alone.
        public var rotation: DisplayRotation

        public init(display: DisplayBackend, region: PixelRect, rotation: DisplayRotation = .none) {
            self.display = display
            self.region = region
            self.rotation = rotation
        }
    }

    public let members: [Member]

    /// `canvasSize` is `CanvasLayout.size`; every region must lie inside it.
    public init(canvasSize: PixelSize, members: [Member]) {
        precondition(!canvasSize.isEmpty, "an empty canvas")
        for member in members {
            let region = member.region
            precondition(region.x >= 0 && region.y >= 0 && region.width > 0 && region.height > 0
                         && region.maxX <= canvasSize.width && region.maxY <= canvasSize.height,
                         "region \(region) is not inside the canvas \(canvasSize)")
        }
        self.members = members
        super.init(members.map { ($0.display, $0.rotation) }, frameSize: canvasSize)
    }

    /// `span 3840x1080 over [1920x1080+0+0 on drm …, 1920x1080+1920+0 rotation 180 on headless 1920x1080]`
    override public var description: String {
        "span \(outputSize) over [" + members.map { member in
            "\(member.region)" + (member.rotation == .none ? "" : " rotation \(member.rotation.rawValue)") + " on \(member.display.description)"
        }.joined(separator: ", ") + "]"
    }

    override func layout(ofMember index: Int, logical: PixelSize, frame: PixelSize) -> (region: PixelRect, placement: PixelRect) {
        (members[index].region, PixelRect(x: 0, y: 0, width: logical.width, height: logical.height))
    }
}
