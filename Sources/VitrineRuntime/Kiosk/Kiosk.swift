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
/// statistics), `InputLatencyTracker`, `PendingConfiguration` (a pushed
/// configuration until its slide boundary), `LifecycleReporter` (systemd READY,
/// watchdog, the first-frame line), `RecentErrors` and `PlayReporter` (which
/// presented frame first shows a slide at rest, for proof of play). Rotation in
/// step with a group is `KioskProgramme`'s (`SyncedRotationFollower`).
public final class Kiosk {
    /// The configuration the carousel runs: the one applied, with the slides
    /// its schedule or an override puts on screen (`KioskProgramme`).
    public private(set) var configuration: KioskConfiguration
    /// Its version, and which of its playlists (or an override) it is.
    private var shown: ShownIdentity
    /// The schedule and the override: what to show by the wall clock.
    private let programme: KioskProgramme
    public let display: DisplayBackend
    private let logger: Logger
    private let loop: EventLoop
    private var engine: CarouselEngine
    private var store: SlideFrameStore
    private var displayGeneration: Int
    private let touch: KioskTouch
    private let renderer: SceneRenderer
    /// How the panel is mounted: the carousel is laid out at the size turned back.
    private let rotation: ExifOrientation
    private var pacing: FramePacing
    private var latency = InputLatencyTracker()
    private let lifecycle: LifecycleReporter
    private let power: KioskPower
    /// A configuration waiting for its slide boundary, with its pictures decoding.
    private var pending: PendingConfiguration?
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
        self.programme = programme
        self.configuration = configuration
        self.shown = ShownIdentity(version: version, selection: first.show?.selection ?? .configuration)
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
        self.store = Self.makeStore(configuration, output: Self.logicalSize(of: display, rotation: rotation), wakeup: loop.wakeup,
                                    metrics: metrics)
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
                follow(programme.setOverride(override, at: now), version: pending?.identity.version ?? shown.version)
            case .apply(let next, let version):
                follow(programme.apply(next, version: version, at: now), version: version)
            case .updateDownloads(let downloads):
                updateDownloads(downloads)
            }
        }
        if let change = programme.takeDueChange(at: now) {
            follow(change, version: pending?.identity.version ?? shown.version)
        }
    }

    /// Does what the schedule or an override asks: the screen on or off, and
    /// what to show, from the next slide boundary or (an override) at once.
    private func follow(_ change: Programme.Change, version: String?) {
        if let request = change.power { power.request(request, by: "the schedule") }
        if let ended = change.endedOverride { onEvent?(.overrideEnded(id: ended)) }
        power.holdForOverride(programme.override != nil)
        guard let show = change.show else { return }
        let next = show.configuration, identity = ShownIdentity(version: version, selection: show.selection)
        // Decode the new playlist's first pictures now, into a store of its
        // own; the switch waits for them, so it never shows a black frame.
        let store = Self.makeStore(next, output: logicalSize, wakeup: loop.wakeup, metrics: metrics)
        // The same playlist with a picture newly downloaded, or a change that
        // leaves the picture on screen in the playlist: keep the position, and
        // have the slides around it ready for the swap.
        let sameShow = identity == shown && next.carouselSettings == configuration.carouselSettings
        let continuity: SlideContinuity = sameShow ? .unchanged
            : next.continuity(from: configuration, showing: engine.currentSlide).joiningGroup(at: groupSlide(of: next, immediate: change.immediate))
        if continuity == .unchanged {
            store.request(engine.slidesToPrefetch())
        } else if !next.slides.isEmpty {
            let first = continuity.firstSlide(current: engine.currentSlide)
            store.request(next.slides.count > 1 ? [first, (first + 1) % next.slides.count] : [first])
        }
        pending = PendingConfiguration(configuration: next, identity: identity, store: store, continuity: continuity,
                                       sameShow: sameShow, immediate: change.immediate)
        let what = identity.selection == .configuration ? "configuration \(version ?? "")" : "\(identity.selection)"
        logger.info(sameShow ? "pictures of \(what) changed; they show from the next slide boundary"
                             : change.immediate ? "\(what) shows as soon as its first picture is ready"
                             : "\(what) received; it applies at the next slide boundary (\(continuity))")
    }

    /// A URL's downloaded copy arrived or changed: the slides that show it decode
    /// the new file and change in place; the slide on screen, its deadline and
    /// every other frame are left alone. A placeholder that is such a URL is
    /// the one case that makes its store anew.
    private func updateDownloads(_ downloads: [String: String]) {
        programme.updateDownloads(downloads)
        /// Updates `configuration`'s downloads and `store`; true when the store was made anew.
        func updated(_ configuration: inout KioskConfiguration, _ store: inout SlideFrameStore) -> Bool {
            let change = configuration.change(toDownloads: downloads)
            configuration.downloads = downloads
            if change.placeholder {
                store = Self.makeStore(configuration, output: store.outputSize, wakeup: loop.wakeup, metrics: metrics)
                return true
            }
            let requests = configuration.slideRequests(output: store.outputSize)
            store.replace(Dictionary(uniqueKeysWithValues: change.slides.map { ($0, requests[$0]) }))
            return false
        }
        if updated(&configuration, &store) {
            renderer.invalidate()
            store.request(engine.slidesToPrefetch())
        }
        if var waiting = pending {
            if updated(&waiting.configuration, &waiting.store), !waiting.configuration.slides.isEmpty {
                let first = waiting.continuity.firstSlide(current: engine.currentSlide)
                waiting.store.request(waiting.sameShow || waiting.continuity == .unchanged ? engine.slidesToPrefetch()
                                      : [first, (first + 1) % waiting.configuration.slides.count])
            }
            pending = waiting
        }
    }

    /// With `sync`, the slide the group shows when `next` switches in: at once
    /// (`immediate`), or at the rotation deadline, which is the next slide boundary.
    private func groupSlide(of next: KioskConfiguration, immediate: Bool) -> Int? {
        let (now, wallNow) = SyncedRotationFollower.systemClocks()
        let switchAt = immediate ? now : max(engine.scheduler.deadline ?? now, now)
        return SyncedRotationFollower.groupSlide(for: next, atWallNanoseconds: wallNow + (switchAt - now).nanoseconds)
    }

    /// Switches to a pending configuration once its first picture is ready and
    /// the carousel is at a slide boundary: resting with its rotation deadline
    /// come, or not rotating at all. Never mid-transition or under a finger.
    private func applyPendingConfigurationIfDue(at now: MonotonicInstant) {
        guard let pending, pending.isReady(currentSlide: engine.currentSlide),
              pending.immediate || PendingConfiguration.isAtSlideBoundary(engine, at: now) else { return }
        let next = pending.configuration, version = pending.identity.version ?? "", previous = shown
        configuration = next
        shown = pending.identity
        store = pending.store
        renderer.compositor = next.compositor
        self.pending = nil
        renderer.invalidate()
        if pending.sameShow {
            logger.info("downloaded pictures now showing")
            return
        }
        switch pending.continuity {
        case .unchanged:
            break
        case .keeps(let slide):
            engine = engine.continuing(with: next.carouselSettings, atSlide: slide, at: now)
        case .restarts:
            let pauses = engine.scheduler.pauseReasons
            engine = CarouselEngine(settings: next.carouselSettings, start: now)
            for reason in pauses { engine.pause(reason, at: now) }
        case .joinsGroup(let slide):
            // The follower (updated below) puts its deadline on the group's next instant at the next turn.
            let pauses = engine.scheduler.pauseReasons
            engine = CarouselEngine(settings: next.carouselSettings, start: now, atSlide: slide)
            for reason in pauses { engine.pause(reason, at: now) }
        }
        programme.inStep.update(for: next)
        touch.update(configuration: next)
        power.wakeOnTouch = next.power.wakeOnTouch
        if shown.version != previous.version {
            logger.notice("configuration \(version) applied", metadata: ["slides": "\(next.slides.count)"])
            onEvent?(.configurationApplied(version: version))
        }
        if shown.selection != previous.selection {
            logger.notice("now showing \(shown.selection)", metadata: ["slides": "\(next.slides.count)"])
        }
    }

    private func publishStatus() {
        control.publish(KioskStatus(
            currentSlide: engine.currentSlide, slideCount: configuration.slides.count, playing: engine.isPlaying,
            pausedBecause: engine.scheduler.pauseReasons.map(\.rawValue).sorted(), output: display.description,
            inputDevices: touch.deviceNames, configurationVersion: shown.version,
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

    private static func makeStore(_ configuration: KioskConfiguration, output: PixelSize, wakeup: WakeupSignal,
                                  metrics: KioskMetrics) -> SlideFrameStore {
        SlideFrameStore(
            slides: configuration.slideRequests(output: output),
            placeholder: configuration.placeholderRequest(output: output),
            capacity: configuration.decode.cacheSlides,
            metrics: metrics,
            onChange: { wakeup.signal() })
    }

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
            if logicalSize != store.outputSize {
                logger.notice("output size is now \(display.outputSize): decoding the slides again")
                store = Self.makeStore(configuration, output: logicalSize, wakeup: loop.wakeup, metrics: metrics)
            }
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
