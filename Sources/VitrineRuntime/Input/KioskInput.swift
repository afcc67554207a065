import Logging
import VitrineConfig
import VitrineCore

/// What a turn of input did that the rest of the loop passes on.
enum InputOutcome {
    /// A finger came down (counted in the metrics).
    case pressed
    /// The picture moved under a finger: the next presented frame is the first
    /// to show it (input latency).
    case pictureMoved(at: MonotonicInstant)
    case attract(AttractEvent)
    case carousel(CarouselEvent)
}

/// The kiosk's input side on the display thread: touch devices and their
/// gestures (`KioskTouch`), the screen's power gate on them, attract mode
/// (`KioskAttract`), and slides' tap actions, applied to the engine.
final class KioskInput {
    private let touch: KioskTouch
    private let attract: KioskAttract
    private let logger: Logger

    init(configuration: KioskConfiguration, output: PixelSize, loop: EventLoop, logger: Logger) {
        touch = KioskTouch(configuration: configuration, output: output, loop: loop, logger: logger)
        attract = KioskAttract(settings: configuration.touch.attract, attractOnly: configuration.attractOnlySlides, logger: logger)
        self.logger = logger
    }

    /// Reads `descriptor` if it is an input device's (or the input hotplug
    /// monitor's) and feeds its gestures to the engine: a touch that finds the
    /// screen dark only wakes it; otherwise attract mode sees the gesture first,
    /// then the engine, and a tap runs its slide's action. Returns nil when the
    /// descriptor is not input's.
    func handle(descriptor: Int32, at now: MonotonicInstant, loop: EventLoop, power: KioskPower,
                engine: inout CarouselEngine) -> [InputOutcome]? {
        guard let gestures = touch.handle(descriptor: descriptor, now: now, loop: loop) else { return nil }
        return apply(gestures, at: now, power: power, engine: &engine)
    }

    /// The output took a new size (its mode set after a hotplug): touches map
    /// onto it, and swipe thresholds are in its pixels, from now on. A touch in
    /// progress is cancelled, since it began on the old size.
    func resize(to output: PixelSize, at now: MonotonicInstant, power: KioskPower, engine: inout CarouselEngine) -> [InputOutcome] {
        apply(touch.resize(output: output, now: now), at: now, power: power, engine: &engine)
    }

    private func apply(_ gestures: [GestureEvent], at now: MonotonicInstant, power: KioskPower,
                       engine: inout CarouselEngine) -> [InputOutcome] {
        var outcomes: [InputOutcome] = []
        for gesture in gestures {
            switch gesture {
            case .pressed(let point, _):
                outcomes.append(.pressed)
                logger.debug("touch down", metadata: ["x": "\(Int(point.x.rounded()))", "y": "\(Int(point.y.rounded()))"])
            case .released: logger.debug("touch released")
            // Only movement that moves the picture counts towards latency.
            case .dragMoved(_, let at): outcomes.append(.pictureMoved(at: at))
            default: break
            }
            guard power.admits(gesture, at: now) else { continue }
            if let event = attract.handle(gesture, engine: &engine, at: now) { outcomes.append(.attract(event)) }
            engine.handle(gesture, at: now, settings: touch.gestureSettings)
            for event in engine.takeEvents() {
                outcomes.append(.carousel(event))
                if case .tapped(let slide, let x, let y) = event,
                   let command = touch.tapAction(slide: slide, point: TouchPoint(x: x, y: y)) {
                    engine.perform(command, at: now)
                }
            }
        }
        return outcomes
    }

    /// Attract mode's return home, when its idle time has run out.
    func turn(engine: inout CarouselEngine, configuration: KioskConfiguration, at now: KioskInstant) -> AttractEvent? {
        attract.turn(engine: &engine, configuration: configuration, at: now)
    }

    /// A new configuration on screen: tap actions, thresholds and attract mode.
    func update(configuration: KioskConfiguration, engine: inout CarouselEngine, at now: MonotonicInstant) {
        touch.update(configuration: configuration)
        attract.update(settings: configuration.touch.attract, attractOnly: configuration.attractOnlySlides, engine: &engine, at: now)
    }

    /// When attract mode goes home if nobody touches the screen.
    var deadline: MonotonicInstant? { attract.deadline }
    var deviceNames: [String] { touch.deviceNames }
    var attractStatus: AttractStatus? { attract.status }
}
