import Logging
import VitrineConfig
import VitrineCore
import VitrineSystem

/// The display side of the loop: the display, and when and what goes on it.
///
/// It draws a scene only when it differs from the one on screen, no sooner
/// than the frame pacing allows and never while a flip is pending; it pairs
/// presented frames with the input they show (latency) and with the slides
/// they show at rest (proof of play), and notices when the display was set up
/// anew (a hotplug, another mode).
final class KioskOutput {
    let display: DisplayBackend
    private let renderer: SceneRenderer
    /// How the panel is mounted: the carousel is laid out at the size turned back.
    private let rotation: ExifOrientation
    private var pacing: FramePacing
    private var latency = InputLatencyTracker()
    /// Frames drawn by path, for the log at the end when the display has planes.
    private var framesByPath: [FramePath: Int] = [:]
    /// Which slide a presented frame first shows at rest, for proof of play.
    private var plays = PlayReporter()
    private var displayGeneration: Int
    /// The picture changed but could not be drawn yet (pacing, or a pending flip).
    private var needsRedraw = false
    /// A Ken Burns picture on screen moves on at the next refresh: a frame is
    /// wanted at every refresh, through the same pacing as a transition's.
    private var kenBurnsMoving = false

    /// A frame that went to the display.
    struct Presented {
        /// A slide this frame shows at rest for the first time, when the frame is on
        /// screen already (headless; DRM reports it at the flip's completion).
        var slideShown: SlideShown?
        /// The time since the frame before, when both were drawn for the same motion.
        var frameGap: FrameGap?
        /// The path the frame took, and the display thread's CPU time to draw and present it.
        var work: FrameWork
    }

    /// The notice over the slides (`showAddress`), drawn for this output.
    let notice: NoticeOverlay

    init(display: DisplayBackend, configuration: KioskConfiguration, textRasterizer: (any TextRasterizer)? = nil) {
        self.display = display
        notice = NoticeOverlay(rasterizer: textRasterizer)
        rotation = ExifOrientation(turningClockwise: DisplayRotation(rawValue: configuration.output.rotation) ?? .none)
        renderer = SceneRenderer(compositor: configuration.compositor, rotation: rotation)
        pacing = FramePacing(refreshInterval: display.refreshInterval)
        displayGeneration = display.generation
    }

    /// The size the carousel is drawn at: the panel's, turned back by the rotation.
    var logicalSize: PixelSize { rotation.swapsAxes ? display.outputSize.transposed : display.outputSize }

    /// The picture must be drawn again even if the scene is the same (a new store, the screen lit again).
    func invalidate() { renderer.invalidate() }

    /// The display's planes, when frames go there: an upright panel only (the
    /// planes are not asked to turn a frame; vc4 cannot turn by 90°).
    private var layered: LayeredDisplay? {
        guard rotation == .up, let layered = display as? LayeredDisplay, layered.takesLayers else { return nil }
        return layered
    }

    /// A new configuration's dots and colours, drawn from the next frame.
    func use(_ compositor: Compositor) {
        renderer.compositor = compositor
        renderer.invalidate()
    }

    /// Whether the display was set up anew since the last call (its size may
    /// have changed); the next frame is drawn whatever it shows.
    func takeDisplayChange() -> Bool {
        guard display.generation != displayGeneration else { return false }
        displayGeneration = display.generation
        renderer.invalidate()
        pacing.refreshInterval = display.refreshInterval
        return true
    }

    /// Draws and presents `presentation`'s scene if it is not on screen already
    /// and a frame may go now. Nil: nothing was presented (nothing changed, too
    /// soon, a flip pending, no display or a dark one, or the present failed,
    /// which is logged).
    func draw(_ presentation: Presentation, store: SlideFrameStore, configuration: KioskConfiguration,
              logger: Logger) -> Presented? {
        // A dark screen shows nothing, so nothing is chosen for it either: a
        // video slide's frame is chosen in drawnScene, and choosing one is what
        // has its helper decode more. Lit again, `invalidate` redraws.
        guard display.isPoweredOn else { return nil }
        // Only the motion a picture shows counts: a still picture's scene is the same however long it rests.
        let scene = withNotice(store.drawnScene(presentation.scene), logger: logger), now = presentation.instant
        let version = store.version
        kenBurnsMoving = store.kenBurnsMoves(in: scene)
        if renderer.shows(scene, version: version) {
            needsRedraw = false
            catchUp(at: now, logger: logger)
            return nil
        }
        needsRedraw = true
        if pacing.isTooSoon(now) { return nil }
        // Not ready means a flip is pending (its completion wakes the loop), or
        // the display is away (a hotplug brings it back).
        guard display.isReadyForFrame else { return nil }
        let started = ThreadCPUClock.now()
        let path: FramePath
        do {
            if let layered {
                path = try layered.present(scene, compositor: renderer.compositor, pictures: { store.picture(for: $0) }, at: now)
            } else {
                guard let canvas = display.acquireCanvas() else { return nil }
                renderer.render(scene, size: logicalSize, into: canvas) { store.picture(for: $0) }
                try display.present(at: now)
                path = .cpu
            }
        } catch {
            logger.error("cannot present a frame: \(error)")
            return nil
        }
        framesByPath[path, default: 0] += 1
        let gap = pacing.presented(at: now, animating: presentation.isAnimating, kenBurns: kenBurnsMoving)
        renderer.presented(scene, version: version)
        needsRedraw = false
        latency.framePresented()
        let shown = plays.presented(scene, configuration: configuration, decoded: { store.frame(of: $0) != nil },
                                    flipPending: display.isFlipPending, at: now)
        return Presented(slideShown: shown, frameGap: gap, work: FrameWork(path: path, cpu: ThreadCPUClock.now() - started))
    }

    /// `scene` with the notice over it, drawn for this output.
    private func withNotice(_ scene: Scene, logger: Logger) -> Scene {
        var scene = scene
        scene.notice = notice.image(for: logicalSize, indicator: renderer.compositor.indicator.position, logger: logger)
        return scene
    }

    /// Shows `wanted` over the slides from the next frame (nil: none).
    func show(notice wanted: ScreenNotice?, logger: Logger) {
        if notice.want(wanted, logger: logger) { renderer.invalidate() }
    }

    /// A slower screen of a composite display that skipped the frame on
    /// screen (its flip was pending then) gets it now that its flip is done:
    /// only when the picture is unchanged, for a new frame would reach it anyway.
    private func catchUp(at now: MonotonicInstant, logger: Logger) {
        guard display.canCatchUp else { return }
        do {
            try display.catchUp(at: now)
        } catch {
            logger.error("cannot present a frame: \(error)")
        }
    }

    /// A flip completed: the input it shows reached the screen (latency), and
    /// the slide it shows at rest, if it is the first frame to.
    func flipCompleted(at now: MonotonicInstant, logger: Logger) -> SlideShown? {
        if let sample = latency.scanoutCompleted(at: display.lastScanout) {
            logger.trace("input-to-scanout sample", metadata: ["ms": "\(Double(sample.nanoseconds) / 1e6)"])
        }
        return plays.scanoutCompleted(at: display.lastScanout, now: now)
    }

    /// A finger moved the picture at `instant`: the next frame presented shows it.
    func pictureMoved(at instant: MonotonicInstant) { latency.pictureMoved(at: instant) }

    func screenWentDark() { plays.screenWentDark() }

    /// The scene on screen composed again into memory of its own (a screenshot).
    /// With planes, the frame as they show it (`PlaneStateCompositor`): copying
    /// the primary plane's buffer would miss the overlays.
    func screenshot(fallback: Scene, store: SlideFrameStore, logger: Logger) -> PixelImage {
        if let layered, renderer.lastDrawn != nil,
           let image = layered.screenshot(compositor: renderer.compositor, pictures: { store.picture(for: $0) }) {
            return image
        }
        return renderer.screenshot(size: logicalSize, fallback: withNotice(fallback, logger: logger)) { store.picture(for: $0) }
    }

    /// When the loop must wake for the next frame, if it wants one: a redraw
    /// waiting, an animation (`engineWakeup` is `.everyFrame`), or a Ken Burns
    /// picture moving on.
    func nextFrame(for engineWakeup: CarouselWakeup, after now: MonotonicInstant) -> MonotonicInstant? {
        let animating = { if case .everyFrame = engineWakeup { return true } else { return false } }()
        // While a flip is pending, its completion event wakes the loop instead.
        if needsRedraw || animating || kenBurnsMoving, display.isReadyForFrame { return pacing.nextFrame(after: now) }
        // No display connected: no flip event will wake the loop, so the timer
        // keeps an animation's timeline going, undrawn, and its page change
        // happens (and is reported) on time.
        if !display.isShowing, animating { return pacing.nextFrame(after: now) }
        return nil
    }

    /// The latency and pacing summaries, for the log at the end.
    func logSummaries(_ logger: Logger) {
        if let summary = latency.latencies.summary { logger.notice("input-to-scanout latency: \(summary)") }
        if let summary = pacing.transitionFrameGaps.summary { logger.notice("frame pacing during transitions: \(summary)") }
        if let summary = pacing.kenBurnsFrameGaps.summary { logger.notice("frame pacing during Ken Burns motion: \(summary)") }
        // The pacing above is of the frames drawn for the group; each screen of
        // a composite flips on its own vblank, and a slower one skips some.
        if let layered {
            let counts = FramePath.allCases.map { "\(framesByPath[$0] ?? 0) \($0.rawValue)" }
            logger.notice("frames by path on the display's planes: \(counts.joined(separator: ", "))")
            let slides = layered.slideCounts
            logger.notice("slides on the display's planes: \(slides.direct) shown from the buffer they were decoded into, \(slides.copied) copied into one")
        }
        if let composite = display as? CompositeDisplay {
            logger.notice("frames per screen: \(composite.memberFrameCounts.map(\.summary).joined(separator: "; "))")
        }
    }
}
