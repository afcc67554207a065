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
public final class Kiosk {
    public let configuration: KioskConfiguration
    public let display: DisplayBackend
    private let logger: Logger
    private let loop: EventLoop
    private let store: SlideFrameStore
    private var engine: CarouselEngine
    private let compositor: Compositor
    private var lastDrawn: (scene: Scene, version: Int)?
    private var lastPresent: MonotonicInstant?
    private var running = true
    private let stopRequest = StopRequest()
    /// Called on the display thread for every engine event (the API will stream these).
    public var onEvent: ((CarouselEvent) -> Void)?

    public init(configuration: KioskConfiguration, display: DisplayBackend, logger: Logger) throws(SystemError) {
        self.configuration = configuration
        self.display = display
        self.logger = logger
        self.loop = try EventLoop()
        let wakeup = loop.wakeup
        self.store = SlideFrameStore(
            slides: configuration.slideRequests(output: display.outputSize),
            placeholder: configuration.placeholderRequest(output: display.outputSize),
            capacity: configuration.decode.cacheSlides,
            onChange: { wakeup.signal() })
        self.engine = CarouselEngine(settings: configuration.carouselSettings, start: MonotonicClock.now())
        self.compositor = configuration.compositor
        if let descriptor = display.eventDescriptor { try loop.watch(descriptor) }
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
                case .descriptor(let descriptor) where descriptor == display.eventDescriptor:
                    try display.handleEvents()
                case .signal, .descriptor, .timer, .wakeup:
                    break
                }
            }
        }
    }

    /// A handle any thread may use to stop the loop, which then restores the display.
    public var stopHandle: KioskStopHandle { KioskStopHandle(request: stopRequest, wakeup: loop.wakeup) }

    private func turn(at now: MonotonicInstant) {
        for (slide, error) in store.takeNewFailures() {
            // Logged once per picture: the store reports each failure a single time.
            if let slide {
                let action = configuration.onImageError == .skip ? "skipping the slide" : "showing the placeholder"
                logger.error("cannot show slide \(slide): \(error); \(action)", metadata: ["file": "\(error.file)"])
                if configuration.onImageError == .skip { engine.markUnavailable(slide, at: now) }
            } else {
                logger.error("cannot show the placeholder: \(error); showing the background colour instead",
                             metadata: ["file": "\(error.file)"])
            }
        }
        let store = self.store
        for event in engine.advance(to: now, isReady: { store.isSettled($0) }) {
            report(event)
        }
        store.request(engine.slidesToPrefetch())
        draw(at: now)
        schedule()
    }

    private func report(_ event: CarouselEvent) {
        switch event {
        case .pageChanged(let from, let to, let cause):
            logger.info("page changed", metadata: ["from": "\(from)", "to": "\(to)", "cause": "\(cause.rawValue)"])
        }
        onEvent?(event)
    }

    private func draw(at now: MonotonicInstant) {
        let scene = engine.scene(at: now)
        let version = store.version
        if let lastDrawn, lastDrawn.scene == scene, lastDrawn.version == version { return }
        // No free buffer means a flip is pending; its completion wakes the loop.
        guard let canvas = display.acquireCanvas() else { return }
        compositor.compose(scene, into: canvas) { store.frame(for: $0) }
        do {
            try display.present(at: now)
            lastDrawn = (scene, version)
            lastPresent = now
        } catch {
            logger.error("cannot present a frame: \(error)")
        }
    }

    private func schedule() {
        switch engine.nextWakeup() {
        case .everyFrame:
            if display.pacesItself {
                loop.setTimer(nil)
            } else {
                loop.setTimer((lastPresent ?? MonotonicClock.now()) + display.refreshInterval)
            }
        case .at(let deadline):
            loop.setTimer(deadline)
        case .idle:
            loop.setTimer(nil)
        }
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
