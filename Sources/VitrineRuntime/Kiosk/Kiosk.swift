import Glibc
import Logging
import VitrineConfig
import VitrineCore
import VitrineSystem

/// The running kiosk: the display thread's loop around the carousel engine.
///
/// Each turn reads both clocks once (`KioskClock`, injected), brings the
/// engine up to that instant, asks the store for the slides it will need,
/// computes one `Presentation` (slides, offsets, transition, dots, screen
/// power), has the output draw it only if the picture changed, and goes back to
/// sleep in `epoll_wait` with the timer set to the engine's next deadline (or
/// one refresh ahead while animating). Decoding happens on the store's queue;
/// its completion wakes the loop through the eventfd.
///
/// The loop orchestrates; each concern has an owner of its own, testable alone:
/// `KioskContent` (what shows, its decoded slides, the programme and the apply
/// path), `KioskOutput` (the display: drawing, frame pacing, latency, which frame
/// first shows a slide for proof of play), `KioskInput` (touch devices, gestures,
/// tap actions and attract mode), `KioskPower` (the screen's power) and
/// `KioskLink` (commands in; status, events, metrics, recent errors and
/// systemd's lifecycle out). Rotation in step with a group is
/// `KioskProgramme`'s (`SyncedRotationFollower`).
public final class Kiosk {
    /// The configuration the carousel runs: the one applied, with the slides
    /// its schedule or an override puts on screen (`KioskProgramme`).
    public var configuration: KioskConfiguration { content.configuration }
    private let content: KioskContent
    private var programme: KioskProgramme { content.programme }
    private var store: SlideFrameStore { content.store }
    public var display: DisplayBackend { output.display }
    private let output: KioskOutput
    private let logger: Logger
    /// The display thread's sleep, and its stop request (SIGTERM, SIGINT or a `stopHandle`).
    private let loop: EventLoop
    private var engine: CarouselEngine
    private let input: KioskInput
    private let power: KioskPower
    private let link: KioskLink
    private let clock: KioskClock
    /// Where this kiosk is set up, as last sent (`KioskCommand.addressNotice`).
    private var addressNotice: ScreenNotice?
    /// Called on the display thread for every event (the API streams these).
    public var onEvent: ((KioskEvent) -> Void)? {
        get { link.onEvent }
        set { link.onEvent = newValue }
    }
    /// Commands in, status out, from any thread.
    public var control: KioskControl { link.control }
    /// Counters for monitoring, readable from any thread.
    public var metrics: KioskMetrics { link.metrics }

    /// - Parameter decoder: where slides' pictures are decoded: the composition
    ///   root hands the kiosk the sandboxed decoder (`SlideDecoder`).
    public init(configuration: KioskConfiguration, version: String? = nil, display: DisplayBackend, logger: Logger,
                decoder: any SlideDecoder, notifier: ServiceNotifier = ServiceNotifier(), metrics: KioskMetrics = KioskMetrics(),
                clock: KioskClock = .system, takesSignals: Bool = true, start: KioskInstant? = nil,
                textRasterizer: (any TextRasterizer)? = nil) throws(SystemError) {
        // Output groups started from one reading rotate on the same deadlines,
        // so their slides change within a frame of each other.
        let started = start ?? clock.now(), startedAt = started.monotonic
        let programme = KioskProgramme(configuration: configuration, version: version, logger: logger)
        let first = programme.start(at: started)
        self.clock = clock
        let applied = configuration
        let configuration = first.show?.configuration ?? applied
        self.output = KioskOutput(display: display, configuration: configuration, textRasterizer: textRasterizer)
        self.logger = logger
        // With several output groups only the first group's loop takes SIGTERM:
        // a signal read by one signalfd is gone for the others.
        self.loop = takesSignals ? try EventLoop() : try EventLoop(signals: [])
        self.power = KioskPower(wakeOnTouch: configuration.power.wakeOnTouch, logger: logger)
        if let request = first.power { power.request(request, by: "the schedule") }
        power.holdForOverride(programme.override != nil)
        self.content = KioskContent(programme: programme, configuration: configuration,
                                    shown: ShownIdentity(version: version, selection: first.show?.selection ?? .configuration),
                                    output: output.logicalSize, wakeup: loop.wakeup,
                                    metrics: metrics, decoder: decoder,
                                    frameMemory: { [weak display] transition in
                                        (display as? LayeredDisplay)?.slideFrameMemory(for: transition)
                                    }, logger: logger)
        self.engine = CarouselEngine(settings: configuration.carouselSettings, start: startedAt)
        programme.inStep.update(for: configuration)
        for descriptor in display.eventDescriptors { try loop.watch(descriptor) }
        let control = KioskControl(wakeup: loop.wakeup, initial: KioskStatus(
            currentSlide: nil, slideCount: configuration.slides.count, playing: false, pausedBecause: [],
            output: display.description, inputDevices: [], configurationVersion: version,
            startedAt: startedAt, recentErrors: []))
        link = KioskLink(control: control, metrics: metrics,
                         lifecycle: LifecycleReporter(notifier: notifier, logger: logger, startedAt: startedAt))
        input = KioskInput(configuration: configuration, output: output.logicalSize, loop: loop, logger: logger)
    }

    /// Runs until SIGTERM or SIGINT, then restores the display.
    public func run() throws {
        defer { display.close() }
        logger.info("kiosk started", metadata: [
            "display": "\(display.description)", "slides": "\(configuration.slides.count)",
            "interval": "\(DurationSyntax.format(configuration.interval))",
        ])
        while !loop.stopRequest.isSet {
            turn(at: clock.now())
            for source in try loop.wait() {
                switch source {
                case .signal(let signal) where signal == SIGTERM || signal == SIGINT:
                    logger.info("stopping", metadata: ["signal": "\(signal == SIGTERM ? "SIGTERM" : "SIGINT")"])
                    loop.stopRequest.set()
                case .descriptor(let descriptor) where display.eventDescriptors.contains(descriptor):
                    try display.handleEvents(on: descriptor)
                    // Read through the injected clock, as the turn's is: the play's time when the driver gives no vblank's.
                    if let shown = output.flipCompleted(at: clock.now().monotonic, logger: logger) { link.send(.slideShown(shown)) }
                case .descriptor(let descriptor):
                    handleInput(on: descriptor)
                case .wallClock(let stepped):
                    programme.wallClockChanged(stepped: stepped)
                case .signal, .timer, .wakeup:
                    break
                }
            }
        }
        link.lifecycle.stopping()
        output.logSummaries(logger)
    }

    // MARK: Control

    private func handleCommands(at now: KioskInstant) {
        for command in control.takeCommands() {
            switch command {
            case .navigate(let navigation):
                engine.perform(navigation, at: now.monotonic)
            case .pause:
                engine.pause(.remote, at: now.monotonic)
                logger.info("paused by an operator")
            case .resume:
                engine.resume(.remote, at: now.monotonic)
                logger.info("resumed by an operator")
            case .setScreenPower(let request):
                power.request(request)
            case .setOverride(let override, let fallback):
                follow(programme.setOverride(override, fallback: fallback, at: now), version: content.currentVersion, at: now)
            case .apply(let next, let version):
                follow(programme.apply(next, version: version, at: now), version: version, at: now)
            case .updateDownloads(let downloads):
                if content.updateDownloads(downloads, engine: engine) { output.invalidate() }
            case .retryFailedPictures:
                content.retryFailedPictures()
                output.invalidate()
                logger.info("refused pictures are tried again, as an operator asked")
            case .addressNotice(let notice):
                addressNotice = notice
            }
        }
        if let change = programme.takeDueChange(at: now) {
            follow(change, version: content.currentVersion, at: now)
        }
    }

    /// Does what the schedule or an override asks: the screen on or off, and
    /// what to show, from the next slide boundary or (an override) at once.
    private func follow(_ change: Programme.Change, version: String?, at now: KioskInstant) {
        if let request = change.power { power.request(request, by: "the schedule") }
        if let ended = change.endedOverride { link.send(.overrideEnded(id: ended)) }
        power.holdForOverride(programme.override != nil)
        guard let show = change.show else { return }
        content.follow(show, version: version, immediate: change.immediate, engine: engine, at: now)
    }

    /// Switches to a waiting configuration at its slide boundary (`KioskContent.switchIfDue`),
    /// and brings the loop's other owners to it.
    private func applyPendingConfigurationIfDue(at now: MonotonicInstant) {
        guard let switched = content.switchIfDue(at: now, engine: &engine) else { return }
        output.use(switched.configuration.compositor)
        if switched.picturesOnly { return }
        input.update(configuration: switched.configuration, engine: &engine, at: now)
        power.wakeOnTouch = switched.configuration.power.wakeOnTouch
        if let version = switched.appliedVersion { link.send(.configurationApplied(version: version)) }
    }

    private func publishStatus(_ presentation: Presentation) {
        link.control.publish(KioskStatus(
            currentSlide: engine.currentSlide, slideCount: configuration.slides.count, playing: engine.isPlaying,
            pausedBecause: engine.scheduler.pauseReasons.map(\.rawValue).sorted(), output: display.description,
            inputDevices: input.deviceNames, configurationVersion: content.shown.version,
            startedAt: link.lifecycle.startedAt, recentErrors: link.recentErrorMessages,
            screen: presentation.screen, screenRequested: power.power.requested,
            override: programme.override, schedule: programme.scheduleStatus, attract: input.attractStatus,
            video: VideoStatus.of(slide: engine.currentSlide, store: store, configuration: configuration)))
    }

    /// Touch input: device events through the recognizer into the engine.
    private func handleInput(on descriptor: Int32) {
        let now = clock.now().monotonic
        guard let outcomes = input.handle(descriptor: descriptor, at: now, loop: loop, power: power, engine: &engine) else { return }
        pass(outcomes)
    }

    /// What input did, passed on: the counters, latency, attract events, and the carousel's events.
    private func pass(_ outcomes: [InputOutcome]) {
        for outcome in outcomes {
            switch outcome {
            case .pressed: link.metrics.touched()
            case .pictureMoved(let at): output.pictureMoved(at: at)
            case .attract(let event): link.send(.attract(event))
            case .carousel(let event): report(event)
            }
        }
    }

    /// A handle any thread may use to stop the loop, which then restores the display.
    public var stopHandle: KioskStopHandle { KioskStopHandle(request: loop.stopRequest) }

    private func turn(at reading: KioskInstant) {
        let now = reading.monotonic
        // From the display loop itself, so that a hung loop stops the pings.
        link.lifecycle.pingIfDue(at: now)
        handleCommands(at: reading)
        applyPendingConfigurationIfDue(at: now)
        // The address shows while the configuration on screen asks for it (the starter's does).
        output.show(notice: configuration.showAddress ? addressNotice : nil, logger: logger)
        // The output set up anew: redrawn, and decoded again for a new size.
        if output.takeDisplayChange() {
            content.resize(to: output.logicalSize)
            pass(input.resize(to: output.logicalSize, at: now, power: power, engine: &engine))
        }
        VideoSlideTiming.apply(store: store, configuration: configuration, refreshInterval: display.refreshInterval, engine: &engine)
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
            link.reportError(message)
        }
        switch power.apply(at: now, display: display, engine: &engine) {
        case .cameOn?:
            // The frame from before the screen went dark is stale.
            output.invalidate()
            link.send(.screenChanged(lit: true, at: now))
        case .wentDark?:
            output.screenWentDark()
            link.send(.screenChanged(lit: false, at: now))
        case nil:
            break
        }
        link.metrics.screenLit(display.isPoweredOn)
        let store = self.store
        // Rotation in step: before advancing, a kiosk out of step jumps to the
        // group's slide when the group's instant has come; after it, a slide
        // that has just come to rest gets its next change on the group's instant.
        if let event = input.turn(engine: &engine, configuration: configuration, at: reading) { link.send(.attract(event)) }
        programme.inStep.keep(&engine, at: reading)
        for event in engine.advance(to: now, isReady: { store.isSettled($0) }) {
            report(event)
        }
        programme.inStep.keep(&engine, at: reading)
        store.request(engine.slidesToPrefetch())
        let presentation = Presentation(engine: engine, power: power.power, at: now)
        draw(presentation)
        answerQueries(showing: presentation)
        schedule(after: presentation)
        publishStatus(presentation)
    }

    /// Screenshots and liveness pings from other threads.
    private func answerQueries(showing presentation: Presentation) {
        let queries = control.takeQueries()
        guard !queries.isEmpty else { return }
        var frame: PixelImage?
        for query in queries {
            switch query {
            case .ping(let reply):
                reply()
            case .frame(let reply):
                if frame == nil {
                    frame = output.screenshot(fallback: presentation.scene, store: store, logger: logger)
                }
                reply(frame!)
            }
        }
    }

    private func report(_ event: CarouselEvent) {
        switch event {
        case .pageChanged(let from, let to, let cause):
            link.metrics.slideChanged()
            logger.info("page changed", metadata: ["from": "\(from)", "to": "\(to)", "cause": "\(cause.rawValue)"])
            if let played = VideoPlayReport.log(leaving: from, store: store, configuration: configuration, metrics: link.metrics, logger: logger) {
                link.send(.videoPlayed(slide: from, played: played))
            }
        case .tapped(let slide, let x, let y):
            // Its action, if any, was carried out by `KioskInput`.
            logger.debug("tap", metadata: ["slide": "\(slide)", "x": "\(Int(x.rounded()))", "y": "\(Int(y.rounded()))"])
        case .swiped(let from, let direction):
            logger.debug("swipe", metadata: ["from": "\(from)", "direction": "\(direction.rawValue)"])
        case .dragBegan(let slide):
            logger.debug("drag started", metadata: ["slide": "\(slide)"])
        case .dragEnded(let slide, let paged):
            logger.debug("drag ended", metadata: ["slide": "\(slide)", "paged": "\(paged)"])
        }
        link.send(.carousel(event))
    }

    private func draw(_ presentation: Presentation) {
        guard let presented = output.draw(presentation, store: store, configuration: configuration, logger: logger) else { return }
        link.metrics.framePresented()
        if let gap = presented.frameGap { link.metrics.frameGap(gap) }
        link.metrics.frameWork(presented.work)
        reportFirstFrame(presentation.scene, at: presentation.instant)
        if let shown = presented.slideShown { link.send(.slideShown(shown)) }
    }

    /// Tells the lifecycle reporter when the first frame with every visible
    /// picture decoded (or finally failed) is presented.
    private func reportFirstFrame(_ scene: Scene, at now: MonotonicInstant) {
        guard !link.lifecycle.firstFrameReported else { return }
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
        link.lifecycle.firstCompleteFrame(at: now, status: "showing \(configuration.slides.count) slides on \(display.description)")
    }

    private func schedule(after presentation: Presentation) {
        var wake: MonotonicInstant?
        let wakeup = engine.nextWakeup()
        // Read again: drawing took time, and the next frame is timed from now.
        let now = clock.now().monotonic
        if case .at(let deadline) = wakeup { wake = deadline }
        // An animated picture's next frame, timed from the turn's instant its playback is of.
        if power.power.state(at: now).isLit,
           let change = store.nextMotionChange(in: presentation.scene, at: presentation.instant) {
            wake = min(wake ?? change, change)
        }
        if let frame = output.nextFrame(for: wakeup, after: now) { wake = min(wake ?? frame, frame) }
        if let ping = link.lifecycle.nextWatchdogPing { wake = min(wake ?? ping, ping) }
        if let home = input.deadline { wake = min(wake ?? home, home) }
        // A touch's wake ending turns the screen off again on time.
        if let change = power.nextChange(after: now) { wake = min(wake ?? change, change) }
        loop.setTimer(wake)
        // The schedule's next change, or the override's end, on the wall clock.
        loop.setWallTimer(programme.nextWallDeadline)
    }
}
