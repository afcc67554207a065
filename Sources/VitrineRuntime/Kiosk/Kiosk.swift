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
    private var store: SlideFrameStore
    private var displayGeneration: Int
    private var engine: CarouselEngine
    private let compositor: Compositor
    private var lastDrawn: (scene: Scene, version: Int)?
    private var lastPresent: MonotonicInstant?
    /// The picture changed but could not be drawn yet (pacing, or a pending flip).
    private var needsRedraw = false
    private var running = true
    private let startedAt = MonotonicClock.now()
    private var firstFrameReported = false
    private let stopRequest = StopRequest()
    /// Called on the display thread for every engine event (the API will stream these).
    public var onEvent: ((CarouselEvent) -> Void)?

    public init(configuration: KioskConfiguration, display: DisplayBackend, logger: Logger) throws(SystemError) {
        self.configuration = configuration
        self.display = display
        self.logger = logger
        self.loop = try EventLoop()
        self.store = Self.makeStore(configuration, output: display.outputSize, wakeup: loop.wakeup)
        self.displayGeneration = display.generation
        self.engine = CarouselEngine(settings: configuration.carouselSettings, start: MonotonicClock.now())
        self.compositor = configuration.compositor
        for descriptor in display.eventDescriptors { try loop.watch(descriptor) }
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
                case .signal, .descriptor, .timer, .wakeup:
                    break
                }
            }
        }
    }

    /// A handle any thread may use to stop the loop, which then restores the display.
    public var stopHandle: KioskStopHandle { KioskStopHandle(request: stopRequest, wakeup: loop.wakeup) }

    private static func makeStore(_ configuration: KioskConfiguration, output: PixelSize, wakeup: WakeupSignal) -> SlideFrameStore {
        SlideFrameStore(
            slides: configuration.slideRequests(output: output),
            placeholder: configuration.placeholderRequest(output: output),
            capacity: configuration.decode.cacheSlides,
            onChange: { wakeup.signal() })
    }

    private func turn(at now: MonotonicInstant) {
        if display.generation != displayGeneration {
            // The output was set up anew: redraw, and decode again for a new size.
            displayGeneration = display.generation
            lastDrawn = nil
            if display.outputSize != store.outputSize {
                logger.notice("output size is now \(display.outputSize): decoding the slides again")
                store = Self.makeStore(configuration, output: display.outputSize, wakeup: loop.wakeup)
            }
        }
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

    /// Frames are at least this far apart: a little under one refresh period, so
    /// that on hardware the next frame is always ready for the next vblank, while
    /// drivers that complete flips at once (bochs, virtio-gpu have no real
    /// vblank) cannot make the loop draw hundreds of frames a second, or draw
    /// into a buffer the emulator may still be reading.
    private var minimumFrameGap: Duration {
        max(display.refreshInterval - .milliseconds(2), .milliseconds(1))
    }

    private func draw(at now: MonotonicInstant) {
        let scene = engine.scene(at: now)
        let version = store.version
        if let lastDrawn, lastDrawn.scene == scene, lastDrawn.version == version {
            needsRedraw = false
            return
        }
        needsRedraw = true
        if let lastPresent, now < lastPresent + minimumFrameGap { return }
        // Not ready means a flip is pending; its completion wakes the loop.
        guard display.isReadyForFrame, let canvas = display.acquireCanvas() else { return }
        compositor.compose(scene, into: canvas) { store.frame(for: $0) }
        do {
            try display.present(at: now)
            lastDrawn = (scene, version)
            lastPresent = now
            needsRedraw = false
            reportFirstFrame(scene, at: now)
        } catch {
            logger.error("cannot present a frame: \(error)")
        }
    }

    /// Logs, once, when the first frame with every visible picture decoded is
    /// presented: what boot-to-first-frame measurements and the VM tests wait for.
    private func reportFirstFrame(_ scene: Scene, at now: MonotonicInstant) {
        guard !firstFrameReported else { return }
        let complete = scene.layers.allSatisfy { layer in
            switch layer.content {
            case .placeholder: return configuration.placeholder == nil || store.placeholderFrame != nil
            case .slide(let index): return store.isSettled(index)
            }
        }
        guard complete else { return }
        firstFrameReported = true
        let elapsed = Double((now - startedAt).nanoseconds) / 1e6
        logger.notice("first frame on screen", metadata: [
            "ms_since_start": "\(Int(elapsed))", "process_uptime_ms": "\(Self.processUptimeMilliseconds())",
        ])
    }

    /// Milliseconds since the process started (from /proc/self/stat), so that
    /// the first-frame line also counts runtime start-up.
    static func processUptimeMilliseconds() -> Int {
        guard let stat = try? FileIO.read("/proc/self/stat"), let uptime = try? FileIO.read("/proc/uptime") else { return -1 }
        // Field 22 (starttime, in clock ticks since boot) follows the ")" of the command name.
        let text = String(decoding: stat, as: UTF8.self)
        guard let close = text.lastIndex(of: ")") else { return -1 }
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 19, let start = Double(fields[19]),
              let boot = Double(String(decoding: uptime, as: UTF8.self).split(separator: " ").first ?? "") else { return -1 }
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        return Int((boot - start / ticks) * 1000)
    }

    private func schedule() {
        var wake: MonotonicInstant?
        let wakeup = engine.nextWakeup()
        if case .at(let deadline) = wakeup { wake = deadline }
        var wantsFrame = needsRedraw
        if case .everyFrame = wakeup { wantsFrame = true }
        // While a flip is pending, its completion event wakes the loop instead.
        if wantsFrame, display.isReadyForFrame {
            let next = (lastPresent ?? MonotonicClock.now()) + minimumFrameGap
            wake = min(wake ?? next, next)
        }
        loop.setTimer(wake)
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
