import Glibc
import Logging
import VitrineConfig
import VitrineCore

/// The running kiosk: the display thread's loop around the carousel engine.
///
/// Each turn reads the monotonic clock once, brings the engine up to that
/// instant, asks the store for the slides it will need, draws only if the
/// picture changed, and goes back to sleep in `epoll_wait` with the timer set to
/// the engine's next deadline (or one refresh ahead while animating). Decoding
/// happens on the store's queue; its completion wakes the loop through the
/// eventfd.
///
/// The loop orchestrates; each concern has an owner of its own, testable alone:
/// `KioskTouch` (devices and gestures), `SceneRenderer` (composing, rotation,
/// what is on screen), `FramePacing` (when the next frame may go, and the pacing
/// statistics), `InputLatencyTracker`, `KioskContent` (what shows, its decoded
/// slides, the programme and the apply path), `LifecycleReporter` (systemd READY,
/// watchdog, the first-frame line), `RecentErrors` and `PlayReporter` (which
/// presented frame first shows a slide at rest, for proof of play). Rotation in
/// step with a group is `KioskProgramme`'s (`SyncedRotationFollower`).
public final class Kiosk {
    /// The configuration the carousel runs: the one applied, with the slides
    /// its schedule or an override puts on screen (`KioskProgramme`).
    public var configuration: KioskConfiguration { content.configuration }
    private let content: KioskContent
    private var programme: KioskProgramme { content.programme }
    private var store: SlideFrameStore { content.store }
    public let display: DisplayBackend
    private let logger: Logger
    private let loop: EventLoop
    private var engine: CarouselEngine
    private var displayGeneration: Int
    private let touch: KioskTouch
    private let renderer: SceneRenderer
    /// How the panel is mounted: the carousel is laid out at the size turned back.
    private let rotation: ExifOrientation
    private var pacing: FramePacing
    private var latency = InputLatencyTracker()
    private let lifecycle: LifecycleReporter
    private let power: KioskPower
    private var recentErrors = RecentErrors()
    /// Which slide a presented frame first shows at rest, for proof of play.
    private var plays = PlayReporter()
    /// The picture changed but could not be drawn yet (pacing, or a pending flip).
    private var needsRedraw = false
    private var running = true
    private let stopRequest = StopRequest()
    /// Called on the display thread for every event (the API will stream these).
    public var onEvent: ((KioskEvent) -> Void)?
    /// Commands in, status out, from any thread.
    public let control: KioskControl
    /// Counters for monitoring, readable from any thread.
    public let metrics: KioskMetrics

    public init(configuration: KioskConfiguration, version: String? = nil, display: DisplayBackend, logger: Logger,
                notifier: ServiceNotifier = ServiceNotifier(), metrics: KioskMetrics = KioskMetrics()) throws(SystemError) {
        let startedAt = MonotonicClock.now()
        let programme = KioskProgramme(configuration: configuration, version: version, logger: logger)
        let first = programme.start(at: startedAt)
        let applied = configuration
        let configuration = first.show?.configuration ?? applied
        self.metrics = metrics
        self.display = display
        self.logger = logger
        self.loop = try EventLoop()
        let rotation = ExifOrientation(turningClockwise: DisplayRotation(rawValue: configuration.output.rotation) ?? .none)
        self.rotation = rotation
        self.renderer = SceneRenderer(compositor: configuration.compositor, rotation: rotation)
        self.pacing = FramePacing(refreshInterval: display.refreshInterval)
        self.lifecycle = LifecycleReporter(notifier: notifier, logger: logger, startedAt: startedAt)
        self.power = KioskPower(wakeOnTouch: configuration.power.wakeOnTouch, logger: logger)
        if let request = first.power { power.request(request, by: "the schedule") }
        power.holdForOverride(programme.override != nil)
        self.content = KioskContent(programme: programme, configuration: configuration,
                                    shown: ShownIdentity(version: version, selection: first.show?.selection ?? .configuration),
                                    output: Self.logicalSize(of: display, rotation: rotation), wakeup: loop.wakeup,
                                    metrics: metrics, logger: logger)
        self.displayGeneration = display.generation
        self.engine = CarouselEngine(settings: configuration.carouselSettings, start: startedAt)
        programme.inStep.update(for: configuration)
        for descriptor in display.eventDescriptors { try loop.watch(descriptor) }
        control = KioskControl(wakeup: loop.wakeup, initial: KioskStatus(
            currentSlide: nil, slideCount: configuration.slides.count, playing: false, pausedBecause: [],
            output: display.description, inputDevices: [], configurationVersion: version,
            startedAt: startedAt, recentErrors: []))
        touch = KioskTouch(configuration: configuration, output: Self.logicalSize(of: display, rotation: rotation), loop: loop, logger: logger)
    }

    /// Runs until SIGTERM or SIGINT, then restores the display.
    public func run() throws {
        defer { display.close() }
        logger.info("kiosk started", metadata: [
            "display": "\(display.description)", "slides": "\(configuration.slides.count)",
            "interval": "\(DurationSyntax.format(configuration.interval))",
        ])
        while running && !stopRequest.isSet {
            let now = MonotonicClock.now()
            turn(at: now)
            for source in try loop.wait() {
                switch source {
                case .signal(let signal) where signal == SIGTERM || signal == SIGINT:
                    logger.info("stopping", metadata: ["signal": "\(signal == SIGTERM ? "SIGTERM" : "SIGINT")"])
                    running = false
                case .descriptor(let descriptor) where display.eventDescriptors.contains(descriptor):
                    try display.handleEvents(on: descriptor)
                    measureLatency()
                    if let shown = plays.scanoutCompleted(at: display.lastScanout) { onEvent?(.slideShown(shown)) }
                case .descriptor(let descriptor):
                    handleInput(on: descriptor)
                case .wallClock(let stepped):
                    programme.wallClockChanged(stepped: stepped)
                case .signal, .timer, .wakeup:
                    break
                }
            }
        }
        lifecycle.stopping()
        if let summary = latency.latencies.summary { logger.notice("input-to-scanout latency: \(summary)") }
        if let summary = pacing.transitionFrameGaps.summary { logger.notice("frame pacing during transitions: \(summary)") }
    }

    // MARK: Control

    private func handleCommands(at now: MonotonicInstant) {
        for command in control.takeCommands() {
            switch command {
            case .navigate(let navigation):
                engine.perform(navigation, at: now)
            case .pause:
                engine.pause(.remote, at: now)
                logger.info("paused by an operator")
            case .resume:
                engine.resume(.remote, at: now)
                logger.info("resumed by an operator")
            case .setScreenPower(let request):
                power.request(request)
            case .setOverride(let override):
                follow(programme.setOverride(override, at: now), version: content.currentVersion)
            case .apply(let next, let version):
                follow(programme.apply(next, version: version, at: now), version: version)
            case .updateDownloads(let downloads):
                if content.updateDownloads(downloads, engine: engine) { renderer.invalidate() }
            }
        }
        if let change = programme.takeDueChange(at: now) {
            follow(change, version: content.currentVersion)
        }
    }

    /// Does what the schedule or an override asks: the screen on or off, and
    /// what to show, from the next slide boundary or (an override) at once.
    private func follow(_ change: Programme.Change, version: String?) {
        if let request = change.power { power.request(request, by: "the schedule") }
        if let ended = change.endedOverride { onEvent?(.overrideEnded(id: ended)) }
        power.holdForOverride(programme.override != nil)
        guard let show = change.show else { return }
        content.follow(show, version: version, immediate: change.immediate, engine: engine)
    }

    /// Switches to a waiting configuration at its slide boundary (`KioskContent.switchIfDue`),
    /// and brings the loop's other owners to it.
    private func applyPendingConfigurationIfDue(at now: MonotonicInstant) {
        guard let switched = content.switchIfDue(at: now, engine: &engine) else { return }
        renderer.compositor = switched.configuration.compositor
        renderer.invalidate()
        if switched.picturesOnly { return }
        touch.update(configuration: switched.configuration)
        power.wakeOnTouch = switched.configuration.power.wakeOnTouch
        if let version = switched.appliedVersion { onEvent?(.configurationApplied(version: version)) }
    }

    private func publishStatus() {
        control.publish(KioskStatus(
            currentSlide: engine.currentSlide, slideCount: configuration.slides.count, playing: engine.isPlaying,
            pausedBecause: engine.scheduler.pauseReasons.map(\.rawValue).sorted(), output: display.description,
            inputDevices: touch.deviceNames, configurationVersion: content.shown.version,
            startedAt: lifecycle.startedAt, recentErrors: recentErrors.messages,
            screen: power.power.state(at: MonotonicClock.now()), screenRequested: power.power.requested,
            override: programme.override, schedule: programme.scheduleStatus))
    }

    /// Touch input: device events through the recognizer into the engine.
    private func handleInput(on descriptor: Int32) {
        let now = MonotonicClock.now()
        guard let gestures = touch.handle(descriptor: descriptor, now: now, loop: loop) else { return }
        for gesture in gestures {
            switch gesture {
            case .pressed(let point, _):
                metrics.touched()
                logger.debug("touch down", metadata: ["x": "\(Int(point.x.rounded()))", "y": "\(Int(point.y.rounded()))"])
            case .released: logger.debug("touch released")
            // Only movement that moves the picture counts towards latency: the
            // frame presented next is the first to show it.
            case .dragMoved(_, let at): latency.pictureMoved(at: at)
            default: break
            }
            // A touch that finds the screen dark wakes it, and does nothing else.
            guard power.admits(gesture, at: now) else { continue }
            engine.handle(gesture, at: now, settings: touch.gestureSettings)
            for event in engine.takeEvents() { report(event, at: now) }
        }
    }

    /// When a flip completes, the frame it shows carries the input that was
    /// newest when it was composed: their distance is the latency a finger feels.
    private func measureLatency() {
        if let sample = latency.scanoutCompleted(at: display.lastScanout) {
            logger.trace("input-to-scanout sample", metadata: ["ms": "\(Double(sample.nanoseconds) / 1e6)"])
        }
    }

    /// A handle any thread may use to stop the loop, which then restores the display.
    public var stopHandle: KioskStopHandle { KioskStopHandle(request: stopRequest, wakeup: loop.wakeup) }

    /// The size the carousel is drawn at: the panel's, turned back by the rotation.
    private static func logicalSize(of display: DisplayBackend, rotation: ExifOrientation) -> PixelSize {
        rotation.swapsAxes ? display.outputSize.transposed : display.outputSize
    }

    private var logicalSize: PixelSize { Self.logicalSize(of: display, rotation: rotation) }

    private func turn(at now: MonotonicInstant) {
        defer { publishStatus() }
        // From the display loop itself, so that a hung loop stops the pings.
        lifecycle.pingIfDue(at: now)
        handleCommands(at: now)
        applyPendingConfigurationIfDue(at: now)
        if display.generation != displayGeneration {
            // The output was set up anew: redraw, and decode again for a new size.
            displayGeneration = display.generation
            renderer.invalidate()
            pacing.refreshInterval = display.refreshInterval
            content.resize(to: logicalSize)
        }
        for (slide, error) in store.takeNewFailures() {
            // Logged once per picture: the store reports each failure a single time.
            let message: String
            if let slide {
                let action = configuration.onImageError == .skip ? "skipping the slide" : "showing the placeholder"
                message = "cannot show slide \(slide): \(error); \(action)"
                if configuration.onImageError == .skip { engine.markUnavailable(slide, at: now) }
            } else {
                message = "cannot show the placeholder: \(error); showing the background colour instead"
            }
            logger.error("\(message)", metadata: ["file": "\(error.file)"])
            recentErrors.append(message)
            onEvent?(.error(message))
        }
        switch power.apply(at: now, display: display, engine: &engine) {
        case .cameOn?:
            // The frame from before the screen went dark is stale.
            renderer.invalidate()
            onEvent?(.screenChanged(lit: true))
        case .wentDark?:
            plays.screenWentDark()
            onEvent?(.screenChanged(lit: false))
        case nil:
            break
        }
        metrics.screenLit(display.isPoweredOn)
        let store = self.store
        // Rotation in step: before advancing, a kiosk out of step jumps to the
        // group's slide when the group's instant has come; after it, a slide
        // that has just come to rest gets its next change on the group's instant.
        programme.inStep.keep(&engine)
        for event in engine.advance(to: now, isReady: { store.isSettled($0) }) {
            report(event, at: now)
        }
        programme.inStep.keep(&engine)
        store.request(engine.slidesToPrefetch())
        draw(at: now)
        answerQueries(at: now)
        schedule()
    }

    /// Screenshots and liveness pings from other threads.
    private func answerQueries(at now: MonotonicInstant) {
        let queries = control.takeQueries()
        guard !queries.isEmpty else { return }
        var frame: PixelImage?
        for query in queries {
            switch query {
            case .ping(let reply):
                reply()
            case .frame(let reply):
                if frame == nil {
                    let store = self.store
                    frame = renderer.screenshot(size: logicalSize, fallback: engine.scene(at: now)) { store.frame(for: $0) }
                }
                reply(frame!)
            }
        }
    }

    private func report(_ event: CarouselEvent, at now: MonotonicInstant) {
        switch event {
        case .pageChanged(let from, let to, let cause):
            metrics.slideChanged()
            logger.info("page changed", metadata: ["from": "\(from)", "to": "\(to)", "cause": "\(cause.rawValue)"])
        case .tapped(let slide, let x, let y):
            logger.debug("tap", metadata: ["slide": "\(slide)", "x": "\(Int(x.rounded()))", "y": "\(Int(y.rounded()))"])
            if let command = touch.tapAction(slide: slide, point: TouchPoint(x: x, y: y)) {
                engine.perform(command, at: now)
            }
        case .swiped(let from, let direction):
            logger.debug("swipe", metadata: ["from": "\(from)", "direction": "\(direction.rawValue)"])
        case .dragBegan(let slide):
            logger.debug("drag started", metadata: ["slide": "\(slide)"])
        case .dragEnded(let slide, let paged):
            logger.debug("drag ended", metadata: ["slide": "\(slide)", "paged": "\(paged)"])
        }
        onEvent?(.carousel(event))
    }

    private func draw(at now: MonotonicInstant) {
        let scene = engine.scene(at: now)
        let version = store.version
        if renderer.shows(scene, version: version) {
            needsRedraw = false
            return
        }
        needsRedraw = true
        if pacing.isTooSoon(now) { return }
        // Not ready means a flip is pending (its completion wakes the loop), or
        // the display is away (a hotplug brings it back).
        guard display.isReadyForFrame, let canvas = display.acquireCanvas() else { return }
        let store = self.store
        renderer.render(scene, size: logicalSize, into: canvas) { store.frame(for: $0) }
        do {
            try display.present(at: now)
            metrics.framePresented()
            let animating = { if case .animating = engine.phase { return true } else { return false } }()
            pacing.presented(at: now, animating: animating)
            renderer.presented(scene, version: version)
            needsRedraw = false
            latency.framePresented()
            reportFirstFrame(scene, at: now)
            if let shown = plays.presented(scene, configuration: configuration, decoded: { store.frame(of: $0) != nil },
                                           flipPending: display.isFlipPending) {
                onEvent?(.slideShown(shown))
            }
        } catch {
            logger.error("cannot present a frame: \(error)")
        }
    }

    /// Tells the lifecycle reporter when the first frame with every visible
    /// picture decoded (or finally failed) is presented.
    private func reportFirstFrame(_ scene: Scene, at now: MonotonicInstant) {
        guard !lifecycle.firstFrameReported else { return }
        let complete = scene.layers.allSatisfy { layer in
            switch layer.content {
            case .placeholder:
                // A placeholder that failed shows the background: that is final too.
                switch store.placeholder {
                case .ready, .failed: return true
                case .absent: return configuration.placeholder == nil
                case .pending: return false
                }
            case .slide(let index): return store.isSettled(index)
            }
        }
        guard complete else { return }
        lifecycle.firstCompleteFrame(at: now, status: "showing \(configuration.slides.count) slides on \(display.description)")
    }

    private func schedule() {
        var wake: MonotonicInstant?
        let wakeup = engine.nextWakeup()
        if case .at(let deadline) = wakeup { wake = deadline }
        var wantsFrame = needsRedraw
        if case .everyFrame = wakeup { wantsFrame = true }
        // While a flip is pending, its completion event wakes the loop instead.
        if wantsFrame, display.isReadyForFrame {
            let next = pacing.nextFrame(after: MonotonicClock.now())
            wake = min(wake ?? next, next)
        } else if !display.isShowing, case .everyFrame = wakeup {
            // No display connected: no flip event will wake the loop, so the
            // timer keeps an animation's timeline going, undrawn, and its page
            // change happens (and is reported) on time.
            let next = pacing.nextFrame(after: MonotonicClock.now())
            wake = min(wake ?? next, next)
        }
        if let ping = lifecycle.nextWatchdogPing { wake = min(wake ?? ping, ping) }
        // A touch's wake ending turns the screen off again on time.
        if let change = power.nextChange(after: MonotonicClock.now()) { wake = min(wake ?? change, change) }
        loop.setTimer(wake)
        // The schedule's next change, or the override's end, on the wall clock.
        loop.setWallTimer(programme.nextWallDeadline)
    }
}

/// Stops a running kiosk from any thread (tests, and later the API's shutdown).
public struct KioskStopHandle: Sendable {
    fileprivate let request: StopRequest
    fileprivate let wakeup: WakeupSignal

    public func stop() {
        request.set()
        wakeup.signal()
    }
}

/// A flag set once from any thread.
private final class StopRequest: Sendable {
    private let mutex = Mutex()
    nonisolated(unsafe) private var value = false

    var isSet: Bool { mutex.withLock { value } }
    func set() { mutex.withLock { value = true } }
}
