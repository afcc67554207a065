import VitrineCore

/// Where frames go: KMS/DRM scanout, or memory (headless).
///
/// The display thread owns the backend. Drawing happens only into a canvas the
/// backend hands out, and only until `present()`; a backend with scanout
/// hands out a buffer that is not on screen and not waiting to be.
public protocol DisplayBackend: AnyObject {
    /// For logs and the status API: "headless", "drm /dev/dri/card0 HDMI-A-1 1920x1080@60".
    var description: String { get }
    var outputSize: PixelSize { get }
    /// One refresh period: the pace of animation frames.
    var refreshInterval: Duration { get }
    /// Descriptors the event loop must watch for readability (DRM flip events, hotplug).
    var eventDescriptors: [Int32] { get }
    /// Changes whenever the output was set up anew (a hotplug, a new mode): the
    /// kiosk then redraws, and re-decodes if the size changed.
    var generation: Int { get }
    /// Whether presentation is paced by the display's own events (a page flip
    /// completing); if not, the loop paces animation frames with its timer.
    var pacesItself: Bool { get }

    /// When the last presented frame reached the screen: the vblank of its flip
    /// on DRM, the moment of presenting when headless.
    var lastScanout: MonotonicInstant? { get }

    /// Whether a frame can be drawn now: false while a flip is pending (its
    /// completion event will wake the loop) or while the display is unplugged.
    var isReadyForFrame: Bool { get }

    /// Whether there is a display to show frames on: false from a DRM
    /// connector's unplug until its replug (or when it came back with no usable
    /// mode). Nothing is presented meanwhile, and no flip event will come to
    /// wake the loop, so the loop must keep its timeline on its own timer.
    var isShowing: Bool { get }

    /// The buffer to draw the next frame into, or nil while none is free (a flip is still pending).
    func acquireCanvas() -> PixelCanvas?
    /// Shows what was drawn into the last acquired canvas.
    func present(at now: MonotonicInstant) throws
    /// Handles readability of one of `eventDescriptors`.
    func handleEvents(on descriptor: Int32) throws
    /// Whether the panel is lit: false from `setPower(false)` until
    /// `setPower(true)`. Nothing is drawn or presented while it is off.
    var isPoweredOn: Bool { get }
    /// Whether a presented frame has not reached the screen yet (a DRM page flip).
    var isFlipPending: Bool { get }
    /// Turns the panel off or on, keeping the mode and buffers so that waking
    /// is fast. Call it only when `isReadyForFrame` or `!isShowing` (no flip pending).
    func setPower(_ on: Bool) throws
    /// Restores what was on the display before, and frees every buffer.
    func close()
    /// Whether a part of the display skipped the last frame presented and can
    /// take it now: a slower screen of a canvas or a mirror group, whose own
    /// flip was still pending then (`CompositeDisplay`). The kiosk then calls
    /// `catchUp(at:)` unless it has a newer frame to present.
    var canCatchUp: Bool { get }
    /// Presents the last frame presented to the parts that skipped it.
    func catchUp(at now: MonotonicInstant) throws
    /// The connector it drives, by its kernel name (`HDMI-A-1`); nil when headless.
    var connectorName: String? { get }
    /// The card's number and the connector's KMS id, as an HDMI-CEC adapter
    /// names the connector it sits on; nil when headless.
    var connectorReference: (card: UInt32, connector: UInt32)? { get }
}

extension DisplayBackend {
    /// A display that cannot be unplugged (headless) always shows.
    public var isShowing: Bool { true }
    /// Frames that are presented are on screen at once.
    public var isFlipPending: Bool { false }
    /// One display takes every frame it is given.
    public var canCatchUp: Bool { false }
    public func catchUp(at now: MonotonicInstant) throws {}
    /// No connector: a display in memory.
    public var connectorName: String? { nil }
    public var connectorReference: (card: UInt32, connector: UInt32)? { nil }
}

/// A display that can put a frame's layers on planes of its own rather than
/// take a composed canvas (`DRMDisplay` on an output with overlay planes).
public protocol LayeredDisplay: DisplayBackend {
    /// Whether frames go through `present(_:compositor:pictures:at:)`; false:
    /// the output has no overlay planes, or `output.planes` is `cpu`.
    var takesLayers: Bool { get }
    /// Presents `scene`, on the planes as the driver accepts, the rest
    /// composed on the CPU; returns the path it took. Call it only when `isReadyForFrame`.
    func present(_ scene: Scene, compositor: Compositor, pictures: (Scene.Layer) -> LayerPicture?,
                 at now: MonotonicInstant) throws -> FramePath
    /// The frame last presented as the planes show it, composed on the CPU; nil before one.
    func screenshot(compositor: Compositor, pictures: (Scene.Layer) -> LayerPicture?) -> PixelImage?
    /// Where the slides of a playlist whose page changes are `transition` are
    /// decoded so that the planes show them with no copy; nil when frames are
    /// composed, or when the planes would not carry that kind of frame here
    /// (its frames would then be composed from scan-out memory, reading it back).
    func slideFrameMemory(for transition: TransitionKind) -> (any SlideFrameMemorySource)?
    /// For the log at the end: slides shown from the buffer they were decoded
    /// into, and slides copied into a scan-out buffer.
    var slideCounts: (direct: Int, copied: Int) { get }
}

/// What `output.planes` and `output.planeMemory` ask of a DRM output.
public struct PlaneOptions: Hashable, Sendable {
    public var mode: PlanePlanner.Mode
    public var memoryBytes: Int
    /// The panel is turned (`rotation`): its frames are composed upright and
    /// turned on the CPU, as the planes are not asked to turn them.
    public var turned: Bool

    public init(mode: PlanePlanner.Mode, memoryBytes: Int, turned: Bool = false) {
        self.mode = mode
        self.memoryBytes = memoryBytes
        self.turned = turned
    }
}
