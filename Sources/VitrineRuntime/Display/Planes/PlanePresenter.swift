import Logging
import VitrineCore
import VitrineDRM

/// Frames on the display's planes: each frame's scene as layers
/// (`LayerStack`), placed by `PlanePlanner` as the driver accepts
/// (`DRM_MODE_ATOMIC_TEST_ONLY`, once per shape of plan), drawn where the CPU
/// must (the dots into a buffer of their own; the layers the planes cannot
/// take into the scanout's back buffer, for the primary plane), and queued
/// for the next vblank as one atomic commit (`DRMPlaneCommitter.flip`).
///
/// Every frame of an output that uses planes goes through here, those the
/// CPU composes whole included: their commit switches off the overlays a
/// frame before used, which a primary-only page flip would leave on screen.
///
/// Buffers: each slide from the scan-out buffer it was decoded into, or a
/// copy of it (`SlideScanoutBuffers`),
/// the dots from two small ARGB ones (one drawn while the other shows), and
/// for a plan whose primary plane shows only the background, a still buffer
/// of that colour. Every buffer a plane shows, or will at the pending flip,
/// is held here until a later flip takes it off the screen.
final class PlanePresenter {
    let planes: [DisplayPlane]
    private var planner: PlanePlanner
    private let committer: DRMPlaneCommitter
    private let card: DRMCard
    private let slides: SlideScanoutBuffers<DRMLayerBuffer>
    private let logger: Logger
    /// The shapes of plan the driver accepted or refused, since the display was last set up.
    private var tested: [PlanShape: Bool] = [:]
    private var background: (buffer: DRMLayerBuffer, color: RGBAColor)?
    private var dots = DotsBuffers()
    /// The buffers the planes show, and those the pending flip will show.
    private var onScreen: [DRMLayerBuffer] = []
    private var pending: [DRMLayerBuffer]?
    /// The frame last queued: what a screenshot composes.
    private(set) var lastFrame: (plan: PlanePlan, stack: LayerStack)?
    /// The path of the frame before, so that a change of path is logged once.
    private var lastPath: FramePath?

    init(card: DRMCard, planes: [DisplayPlane], committer: DRMPlaneCommitter, planner: PlanePlanner, memoryBytes: Int,
         logger: Logger) {
        self.card = card
        self.planes = planes
        self.committer = committer
        self.planner = planner
        self.logger = logger
        let budget = ScanoutMemoryBudget(limitBytes: memoryBytes)
        slides = .uploading(to: card, budget: budget, logger: logger)
        slideMemory = ScanoutSlideMemorySource(card: card, budget: budget, logger: logger)
    }

    /// Where this output's still slides are decoded: into scan-out buffers, shown with no copy.
    private let slideMemory: ScanoutSlideMemorySource

    /// `slideMemory` for a playlist whose page changes are `transition`, or nil
    /// when the planner's model would not put that kind of frame on the planes
    /// at `output`: a crossfade needs plane alpha, and at 4K on vc4 two RGB
    /// slides read more than the fetch budget. Its frames would be composed on
    /// the CPU from the slides' buffers, reading scan-out memory (write-combined
    /// CMA on a Pi) back every refresh; such slides are decoded into ordinary
    /// memory instead, and copied for the frames the planes do take.
    func slideMemory(for transition: TransitionKind, output: PixelSize) -> ScanoutSlideMemorySource? {
        planner.carriesPageChanges(transition, at: output) ? slideMemory : nil
    }
    /// Slides shown from the buffer they were decoded into, and slides copied into one, since the start.
    var slideCounts: (direct: Int, copied: Int) { slides.counts }

    /// What a plane of this output shows, by framebuffer ID: never freed to make room.
    private var shownFramebuffers: Set<UInt32> { Set((onScreen + (pending ?? [])).map(\.framebufferID)) }

    /// Plans, draws and queues one frame of `scene` on `scanout` (which must
    /// accept a plane frame): the path it took, and whether it was queued
    /// (false when the planes already show it).
    func present(_ scene: Scene, on scanout: DRMScanout, compositor: Compositor,
                 pictures: (Scene.Layer) -> LayerPicture?) throws(DRMError) -> (path: FramePath, queued: Bool) {
        slides.collect()
        let output = scanout.size
        let stack = LayerStack(scene: scene, output: output, indicator: compositor.indicator) { layer in
            pictures(layer).map { LayerStack.Picture(frameSize: $0.frame.size, region: $0.region) }
        }
        // Each slide layer's scan-out buffer, where one is ready (an upload starts otherwise). Each one
        // taken joins `shown`, so that making room for the next slide's never drops it.
        var shown = shownFramebuffers
        var buffers: [Int: DRMLayerBuffer] = [:]
        // A scaled layer (a Ken Burns slide) on a display that cannot scale is composed: not copied for nothing.
        for (index, layer) in stack.layers.enumerated() where planner.traits.scales || !layer.isScaled {
            // A video's frames are written in place in its ring: composed until the
            // helper decodes into scan-out buffers of its own (docs/architecture.md, "Video").
            if case .slide(let sceneLayer) = layer.content, let picture = pictures(sceneLayer), !picture.changesInPlace,
               let buffer = slides.buffer(for: picture.frame, shown: shown) {
                buffers[index] = buffer
                shown.insert(buffer.framebufferID)
            }
        }
        let dotsIndex = stack.layers.firstIndex { if case .indicator = $0.content { true } else { false } }
        if let dotsIndex {
            do {
                buffers[dotsIndex] = try dots.prepare(for: stack.layers[dotsIndex], card: card)
            } catch {
                // Without their buffers the dots are composed with the layers under them.
                warnOnce("cannot make the page dots' scan-out buffers: \(error); the dots are composed on the CPU")
            }
        }
        let back = scanout.backFramebufferID ?? 0
        /// `composition`: what a primary plane that shows no layer's own buffer shows.
        func settings(_ plan: PlanePlan, composition: UInt32) -> [DRMPlaneSetting] {
            DRMPlaneSetting.settings(for: plan, of: stack, planes: planes, composition: composition) { buffers[$0]?.framebufferID ?? 0 }
        }
        let plan = planner.plan(for: stack) { candidate in
            // A layer on a plane needs its buffer; one still being copied is composed meanwhile.
            let placed = candidate.overlays.map(\.layer) + { if case .layer(let index) = candidate.primary { [index] } else { [] } }()
            guard placed.allSatisfy({ buffers[$0] != nil }) else { return false }
            // A primary plane that shows the background alone shows a still buffer of it, made once.
            var composition = back
            if candidate.primary == .composition(composed: 0..<0) {
                guard let background = backgroundBuffer(output, color: compositor.background) else { return false }
                composition = background.framebufferID
            }
            let shape = PlanShape(candidate, stack)
            if let known = tested[shape] { return known }
            let accepted = committer.test(settings(candidate, composition: composition)) == nil
            tested[shape] = accepted
            return accepted
        }
        // The dots, drawn into the buffer not on screen when their overlay shows them anew.
        var dotsShown: DRMLayerBuffer?
        if let dotsIndex, plan.overlays.contains(where: { $0.layer == dotsIndex }), case .indicator(let state) = stack.layers[dotsIndex].content {
            dotsShown = dots.draw(state, layer: stack.layers[dotsIndex], style: compositor.indicator, output: output)
            buffers[dotsIndex] = dotsShown
        }
        // A primary that shows the background alone shows its still buffer: made now if no candidate
        // tested it (the CPU plan of a frame with no layers at all), and drawn into the back buffer
        // like any composition if it cannot be made.
        let showsBackground = plan.primary == .composition(composed: 0..<0)
        let background = showsBackground ? backgroundBuffer(output, color: compositor.background) : nil
        let composes = !plan.composedLayers.isEmpty || (showsBackground && background == nil)
        if composes, let canvas = scanout.backCanvas() {
            compositor.compose(stack.scene(composing: plan.composedLayers), into: canvas, picture: pictures)
        }
        let frameSettings = settings(plan, composition: background?.framebufferID ?? back)
        let queued: Bool
        do {
            queued = try scanout.presentPlanes(composedIntoBack: composes) { () throws(DRMError) -> Bool in
                try committer.flip(frameSettings)
            }
        } catch {
            // A driver that passed the test and refuses the commit: that shape is not offered again
            // until the display is set up anew, so the next frame takes the next plan, not the same failure.
            tested[PlanShape(plan, stack)] = false
            throw error
        }
        lastFrame = (plan, stack)
        let path = FramePath(rawValue: plan.path) ?? .cpu
        logChange(to: path, plan)
        guard queued else { return (path, false) }
        dots.queued(showing: dotsShown)
        let used = Set(frameSettings.map(\.framebuffer))
        pending = (Array(buffers.values) + (background.map { [$0] } ?? [])).filter { used.contains($0.framebufferID) }
        return (path, true)
    }

    /// The pending flip completed: what it queued is on screen; what it replaced may go.
    func flipCompleted() {
        guard let pending else { return }
        onScreen = pending
        self.pending = nil
        dots.flipped()
    }

    /// The display was set up anew (a modeset after a hotplug, the screen lit
    /// again, or a frame presented by a page flip of the primary plane): what
    /// the planes show is no longer known, so the next frame sends every
    /// plane's setting; at another size, the buffers made for the old one go.
    func displaySetAnew(size: PixelSize, refreshHz: Double) {
        committer.resendAll()
        // The fetch budget is per refresh: another mode's rate changes what fits.
        planner.refreshHz = refreshHz
        tested = [:]
        if background.map({ $0.buffer.size != size }) ?? false {
            // Held in `onScreen` if a plane still shows it, until the next flip.
            background = nil
            slides.removeAll()
        }
    }

    /// Switches off every plane but the primary (before the CRTC is given back:
    /// restoring the console sets the primary plane only), blocking.
    func switchOffOverlays() {
        let off = planes.filter { $0.kind != .primary }.map { DRMPlaneSetting.off($0.id) }
        do {
            try committer.commit(off)
        } catch {
            logger.warning("cannot switch the overlay planes off: \(error)")
        }
        onScreen = []
        pending = nil
        slides.removeAll()
    }

    /// The frame last queued, composed on the CPU as the planes show it.
    func screenshot(compositor: Compositor, pictures: (Scene.Layer) -> LayerPicture?) -> PixelImage? {
        guard let lastFrame else { return nil }
        let image = PixelImage(size: lastFrame.stack.output)
        PlaneStateCompositor(background: compositor.background, indicator: compositor.indicator)
            .compose(lastFrame.plan, of: lastFrame.stack, into: image.canvas, picture: pictures)
        return image
    }

    /// One line per change of path, at debug level (each frame's path is counted by `KioskOutput`).
    private func logChange(to path: FramePath, _ plan: PlanePlan) {
        guard path != lastPath else { return }
        lastPath = path
        logger.debug("frames on the planes path: \(path.rawValue)", metadata: [
            "overlays": "\(plan.overlays.count)", "composed_layers": "\(plan.composedLayers.count)",
        ])
    }

    private var warned: Set<String> = []

    /// Logs `message` once for the life of this output.
    private func warnOnce(_ message: String) {
        guard warned.insert(message).inserted else { return }
        logger.warning("\(message)")
    }

    /// A still buffer of the background colour, for a primary plane that
    /// shows nothing else; made when first needed (nil, logged, if it cannot be).
    private func backgroundBuffer(_ size: PixelSize, color: RGBAColor) -> DRMLayerBuffer? {
        if let background, background.buffer.size == size, background.color == color { return background.buffer }
        do {
            let buffer = try DRMLayerBuffer(card: card, size: size, format: .xrgb8888)
            buffer.canvas.fill(with: color)
            background = (buffer, color)
            return buffer
        } catch {
            warnOnce("cannot make the background's scan-out buffer: \(error); such frames are composed on the CPU")
            return nil
        }
    }
}
