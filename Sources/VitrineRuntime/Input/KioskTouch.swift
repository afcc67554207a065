import Logging
import VitrineConfig
import VitrineCore

/// The kiosk's touch side: the input devices and their hotplug, the gesture
/// recognizer, and tap actions that leave the process. Owned and driven by the
/// display thread; nothing here blocks (tap POSTs go to their own queue).
final class KioskTouch {
    let input: TouchInput
    private var recognizer: GestureRecognizer
    /// The thresholds in output pixels, which the engine needs to decide a release.
    var gestureSettings: GestureSettings { recognizer.settings }
    private let uevents: UeventMonitor?
    private let poster: TapActionPoster
    private var configuration: KioskConfiguration
    private var output: PixelSize
    private let logger: Logger

    init(configuration: KioskConfiguration, output: PixelSize, loop: EventLoop, logger: Logger) {
        self.configuration = configuration
        self.output = output
        self.logger = logger
        let rotation = DisplayRotation(rawValue: configuration.output.rotation) ?? .none
        input = TouchInput(settings: TouchInputSettings(configuration.touch, rotation: rotation, output: output), logger: logger)
        poster = TapActionPoster(logger: logger)
        uevents = try? UeventMonitor()
        for descriptor in input.scan() { try? loop.watch(descriptor) }
        if let uevents { try? loop.watch(uevents.descriptor) }
        recognizer = GestureRecognizer(settings: TouchReplay.gestureSettings(
            configuration.touch, output: output, pixelsPerMillimetre: input.pixelsPerMillimetre))
        if input.devices.isEmpty { logger.info("no touch input devices yet; new ones are picked up when plugged in") }
    }

    /// Handles readability of `descriptor` if it is one of ours: returns the
    /// gestures it produced, or nil when the descriptor belongs to someone else.
    func handle(descriptor: Int32, now: MonotonicInstant, loop: EventLoop) -> [GestureEvent]? {
        if let uevents, descriptor == uevents.descriptor {
            // A device leaving matters too when devices are bound to outputs: the
            // automatic rule may single out an output for one that is left.
            let changed = uevents.read().contains { uevent in
                uevent["SUBSYSTEM"] == "input" && (uevent["DEVNAME"] ?? "").contains("event")
                    && (uevent["ACTION"] == "add" || (uevent["ACTION"] == "remove" && input.bindsToOutputs))
            }
            guard changed else { return [] }
            let (added, removed, events) = input.rescan(now: now)
            for descriptor in removed { loop.unwatch(descriptor) }
            for descriptor in added { try? loop.watch(descriptor) }
            recognizer.settings = TouchReplay.gestureSettings(configuration.touch, output: output,
                                                               pixelsPerMillimetre: input.pixelsPerMillimetre)
            return events.flatMap { recognizer.handle($0) }
        }
        guard input.devices[descriptor] != nil else { return nil }
        let (events, removed) = input.handle(descriptor: descriptor, now: now)
        if let removed { loop.unwatch(removed) }
        var gestures: [GestureEvent] = []
        for event in events { gestures += recognizer.handle(event) }
        return gestures
    }

    /// The output took a new size: every device maps onto it, and the
    /// thresholds are in its pixels. Returns the cancelling of a touch in progress.
    func resize(output: PixelSize, now: MonotonicInstant) -> [GestureEvent] {
        guard output != self.output else { return [] }
        logger.info("touch input: mapped onto \(output) from now on, the output's new size")
        self.output = output
        let events = input.resize(output: output, now: now)
        recognizer.settings = TouchReplay.gestureSettings(configuration.touch, output: output,
                                                           pixelsPerMillimetre: input.pixelsPerMillimetre)
        return events.flatMap { recognizer.handle($0) }
    }

    /// Devices in use, for the status: "/dev/input/event2 Goodix Capacitive TouchScreen".
    var deviceNames: [String] {
        input.devices.values.map { "\($0.evdev.path) \($0.evdev.description.name)" }.sorted()
    }

    /// A new configuration: its slides' tap actions and its thresholds. Device
    /// selection (include/exclude) and rotation keep what they were at start.
    func update(configuration: KioskConfiguration) {
        self.configuration = configuration
        recognizer.settings = TouchReplay.gestureSettings(configuration.touch, output: output,
                                                           pixelsPerMillimetre: input.pixelsPerMillimetre)
    }

    /// Carries out slide `slide`'s tap action, if it has one; returns a command for the engine.
    func tapAction(slide: Int, point: TouchPoint) -> CarouselCommand? {
        guard configuration.slides.indices.contains(slide), let action = configuration.slides[slide].action else { return nil }
        switch action {
        case .goTo(let target):
            return .goTo(target)
        case .post(let url, let timeout):
            poster.post(slide: slide, point: point, to: url, timeout: timeout, policy: configuration.api.outbound)
            return nil
        }
    }
}
