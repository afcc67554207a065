import VitrineCore

/// What `SpannedDisplay` and `MirroredDisplay` share: member displays that one
/// kiosk drives as one display. The kiosk draws, upright, into a frame in
/// memory; `present(at:)` draws each member's part of it onto that member
/// (`PanelPainter`) and presents the members one right after the other, so
/// that they change picture at the same vblank or the next. The members'
/// states add up as `DisplayGroup` says: one that is away or fails never stops
/// the others, and one slower than the fastest takes the frames its own
/// vblank allows, catching up (`catchUp(at:)`) with a frame it skipped.
///
/// The frame is in memory rather than on a member's scanout buffer because it
/// is read back for every member, and scanout buffers are slow to read
/// (write-combined on most boards); and a member that is unplugged then needs
/// no case of its own. A subclass says the frame's size (`outputSize`) and
/// where each member shows what (`layout`).
public class CompositeDisplay: DisplayBackend {
    let group: DisplayGroup
    private var painters: [PanelPainter]
    /// The picture the kiosk draws, allocated again only when `outputSize` changes.
    private var frame: PixelImage

    init(_ members: [(display: DisplayBackend, rotation: DisplayRotation)], frameSize: PixelSize) {
        group = DisplayGroup(members.map(\.display))
        painters = members.map { PanelPainter(rotation: $0.rotation) }
        frame = PixelImage(size: frameSize, fill: .black)
    }

    /// The frame's size: the picture the kiosk lays out, upright.
    public var outputSize: PixelSize { frame.size }
    public var description: String { "composite of [" + group.members.map(\.description).joined(separator: ", ") + "]" }

    /// Member `index`'s part of the frame (`region`, of a frame of `frame`
    /// size), and where it goes in the member's upright picture of `logical`
    /// size (black around it).
    func layout(ofMember index: Int, logical: PixelSize, frame: PixelSize) -> (region: PixelRect, placement: PixelRect) {
        (PixelRect(x: 0, y: 0, width: frame.width, height: frame.height),
         PixelRect(x: 0, y: 0, width: logical.width, height: logical.height))
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
    /// The first member's: a mirror group's source, a canvas's first screen.
    public var connectorReference: (card: UInt32, connector: UInt32)? { group.connectorReference }

    /// The frame in memory, at `outputSize`: always free, never scanned out.
    public func acquireCanvas() -> PixelCanvas? {
        if frame.size != outputSize { frame = PixelImage(size: outputSize, fill: .black) }
        return frame.canvas
    }

    /// Draws every member that takes the frame (`DisplayGroup.membersTakingFrame`)
    /// and then presents them all; a member that fails does not keep the others
    /// from their frame (the first failure is thrown after).
    public func present(at now: MonotonicInstant) throws {
        let taking = group.membersTakingFrame()
        paint(taking)
        try group.present(taking.map(\.index), at: now)
    }

    /// A member that skipped the last frame (a slower one, its flip pending
    /// then) and whose flip is done now.
    /// A member of its own behind, or a member that is a composite with a
    /// screen behind (a canvas inside a mirror group).
    public var canCatchUp: Bool { group.canCatchUp || group.members.contains { $0.canCatchUp } }

    /// Draws the frame last presented, still in memory, onto the members that
    /// skipped it and can take it now, and presents them: the slide that
    /// changed while a slower screen's flip was pending reaches that screen
    /// at its next vblank. A member that is a composite then catches up its
    /// own screens, from the frame it holds. Each is tried; the first failure
    /// is thrown after.
    public func catchUp(at now: MonotonicInstant) throws {
        let catching = group.membersCatchingUp()
        paint(catching)
        var failure: (any Error)?
        do { try group.catchUp(catching.map(\.index), at: now) } catch { failure = error }
        for member in group.members where member.canCatchUp {
            do { try member.catchUp(at: now) } catch { failure = failure ?? error }
        }
        if let failure { throw failure }
    }

    /// Each member's frames presented and skipped, for the log at the end;
    /// then, for a member that is a composite itself (a canvas inside a
    /// mirror group), each of its own members'.
    var memberFrameCounts: [MemberFrameCount] {
        group.frameCounts + group.members.flatMap { ($0 as? CompositeDisplay)?.memberFrameCounts ?? [] }
    }

    private func paint(_ members: [(index: Int, canvas: PixelCanvas)]) {
        for (index, canvas) in members {
            let logical = painters[index].logicalSize(ofPanel: canvas.size)
            let (region, placement) = layout(ofMember: index, logical: logical, frame: frame.size)
            painters[index].paint(frame, region: region, at: placement, into: canvas)
        }
    }

    public func handleEvents(on descriptor: Int32) throws { try group.handleEvents(on: descriptor) }
    public func setPower(_ on: Bool) throws { try group.setPower(on) }
    public func close() { group.close() }
}
