import Logging
import VitrineCore
import VitrineDRM

/// KMS/DRM scanout behind the display protocol: double-buffered page flips on
/// one connector, paced by the flip-complete events, and set up again when the
/// connector is unplugged and plugged back or its modes change.
public final class DRMDisplay: DisplayBackend {
    private let scanout: DRMScanout
    /// Frames on the overlay planes, where the output has them and `output.planes` allows.
    private let planes: PlanePresenter?
    private let modeRequest: DRMModeRequest?
    private let uevents: UeventMonitor?
    private let logger: Logger
    public private(set) var generation = 0
    /// The card's device number, to pick its hotplug uevents out of all others.
    private let cardDevice: (major: UInt32, minor: UInt32)?
    /// A hotplug arrived while a flip was pending: follow it when the flip completes.
    private var hotplugAfterFlip = false
    /// The vblank timestamps of the last completed flips (CLOCK_MONOTONIC ns), newest last.
    public private(set) var lastFlip: DRMFlipCompletion?
    public private(set) var framesPresented = 0

    public init(scanout: DRMScanout, modeRequest: DRMModeRequest?, planes options: PlaneOptions? = nil, logger: Logger) {
        self.scanout = scanout
        self.modeRequest = modeRequest
        self.logger = logger
        planes = options.flatMap { PlanePresenter.make(for: scanout, options: $0, logger: logger) }
        cardDevice = scanout.card.deviceNumber
        do {
            uevents = try UeventMonitor()
        } catch {
            uevents = nil
            logger.warning("no hotplug notifications (\(error)); a replugged display needs a restart")
        }
        // An output opened waiting for its display: one plugged in between the
        // plan and the uevent socket would send no event we could hear. Look once.
        if !scanout.isShowing { followHotplug() }
    }

    public var description: String {
        "drm \(scanout.card.path) (\(scanout.card.driver)) \(scanout.connector.name) \(scanout.mode) \(scanout.interfaceName)"
            + (scanout.isShowing ? "" : " (no display connected)") + (scanout.isPoweredOn ? "" : " (screen off)")
    }

    public var outputSize: PixelSize { scanout.size }
    public var connectorName: String? { scanout.connector.name }

    /// The card's number (the N of /dev/dri/cardN, its device minor) and the
    /// connector's KMS id: how an HDMI-CEC adapter names the connector it
    /// belongs to (`CEC_ADAP_G_CONNECTOR_INFO`).
    public var connectorReference: (card: UInt32, connector: UInt32)? {
        cardDevice.map { ($0.minor, scanout.connector.id) }
    }
    public var refreshInterval: Duration { scanout.mode.refreshInterval }
    public var pacesItself: Bool { true }
    public var lastScanout: MonotonicInstant? { lastFlip.map { MonotonicInstant(nanoseconds: $0.timestampNanoseconds) } }
    /// False while a flip is pending and while the display is away (unplugged,
    /// or back with no usable mode): nothing is drawn or presented then.
    public var isReadyForFrame: Bool { scanout.isShowing && scanout.isPoweredOn && !scanout.isFlipPending }
    public var isPoweredOn: Bool { scanout.isPoweredOn }
    public var isFlipPending: Bool { scanout.isFlipPending }

    /// Atomic `ACTIVE` or the legacy `DPMS` property (`DRMScanout.setPower`).
    public func setPower(_ on: Bool) throws {
        try scanout.setPower(on: on)
        // On again: the kiosk draws the present at once rather than leaving the
        // frame from before the screen went dark.
        if on { setAnew() }
        logger.notice("display \(on ? "on" : "off")", metadata: ["connector": "\(scanout.connector.name)", "frames_presented": "\(framesPresented)"])
    }
    public var isShowing: Bool { scanout.isShowing }
    public var eventDescriptors: [Int32] { [scanout.card.descriptor] + (uevents.map { [$0.descriptor] } ?? []) }

    public func acquireCanvas() -> PixelCanvas? { scanout.backCanvas() }

    public func present(at now: MonotonicInstant) throws {
        try scanout.present()
        framesPresented += 1
        // A page flip of the primary plane alone: the planes' state is no longer what the presenter sent.
        planes?.displaySetAnew(size: scanout.size, refreshHz: scanout.mode.refreshHertz)
    }

    /// A display that set the CRTC up anew draws again at once (and, with planes, sends every plane's setting).
    private func setAnew() {
        generation += 1
        planes?.displaySetAnew(size: scanout.size, refreshHz: scanout.mode.refreshHertz)
    }

    public func handleEvents(on descriptor: Int32) throws {
        if descriptor == scanout.card.descriptor {
            if let completion = try scanout.handleEvents().last {
                lastFlip = completion
                planes?.flipCompleted()
            }
            if hotplugAfterFlip, !scanout.isFlipPending {
                hotplugAfterFlip = false
                followHotplug()
            }
            return
        }
        guard let uevents, descriptor == uevents.descriptor else { return }
        let events = uevents.read()
        let connectorID = scanout.connector.id
        let relevant = events.contains { event in
            guard let device = cardDevice else {
                // Without the card's device number, any DRM hotplug means a look
                // at the connector: a probe that finds nothing changed does nothing.
                return event["SUBSYSTEM"] == "drm" && (event["HOTPLUG"] == "1" || event["SYNTH_UUID"] != nil)
            }
            return DRMHotplugFilter.concerns(event, device: device, connectorID: connectorID)
        }
        // Dropped uevents may have been hotplugs: look again, to be sure.
        if relevant || uevents.lostEvents { followHotplug() }
    }

    /// Probes the connector after a hotplug and follows it. Never throws: a
    /// display that cannot be used is logged, the kiosk runs on drawing
    /// nothing, and the next hotplug tries again.
    private func followHotplug() {
        // A flip queued before the event completes first (its event always
        // comes): the scanout must not set a mode behind a pending flip.
        guard !scanout.isFlipPending else {
            hotplugAfterFlip = true
            return
        }
        let connector = scanout.connector.name
        do {
            switch try scanout.followHotplug(mode: modeRequest) {
            case .unchanged:
                logger.debug("hotplug event: nothing changed for \(connector)")
            case .disconnected:
                // The buffers, the CRTC and the frame on it stay; the kiosk keeps
                // its timeline, so that the replugged display shows the present.
                logger.warning("\(connector) was disconnected; presenting nothing until it comes back", metadata: [
                    "frames_presented": "\(framesPresented)",
                ])
            case .modeSet(let previous, let resized):
                // A new generation makes the kiosk draw again straight away, and
                // decode again for a new size.
                setAnew()
                logger.notice("\(connector) is connected: mode set again", metadata: [
                    "mode": "\(scanout.mode)", "previous": "\(previous)", "resized": "\(resized)",
                    "frames_presented": "\(framesPresented)",
                ])
            }
        } catch {
            logger.error("\(connector): cannot show anything after a hotplug: \(error); waiting for the next one")
        }
    }

    public func close() {
        // Giving the CRTC back sets its primary plane only: overlays would stay over the console.
        planes?.switchOffOverlays()
        scanout.restore()
    }
}

// MARK: Planes

extension DRMDisplay: LayeredDisplay {
    public var takesLayers: Bool { planes != nil }

    public func present(_ scene: Scene, compositor: Compositor, pictures: (Scene.Layer) -> LayerPicture?,
                        at now: MonotonicInstant) throws -> FramePath {
        guard let planes, scanout.acceptsPlaneFrame else {
            // The first frame sets the mode (a modeset of the primary plane): composed on the CPU.
            guard let canvas = scanout.backCanvas() else { throw DRMError.unsupported(card: scanout.card.path, reason: "no buffer to draw into") }
            compositor.compose(scene, into: canvas, picture: pictures)
            try present(at: now)
            return .cpu
        }
        let frame = try planes.present(scene, on: scanout, compositor: compositor, pictures: pictures)
        if frame.queued { framesPresented += 1 }
        return frame.path
    }

    public func screenshot(compositor: Compositor, pictures: (Scene.Layer) -> LayerPicture?) -> PixelImage? {
        planes?.screenshot(compositor: compositor, pictures: pictures)
    }

    public func slideFrameMemory(for transition: TransitionKind) -> (any SlideFrameMemorySource)? {
        planes?.slideMemory(for: transition, output: scanout.size)
    }

    public var slideCounts: (direct: Int, copied: Int) { planes?.slideCounts ?? (0, 0) }
}
