import VitrineConfig
import VitrineCore
import VitrineEvdev

/// Runs a recorded device's events through the same device model, gesture
/// recognizer and carousel engine as the kiosk, against a virtual output, and
/// reports what they recognise: what `vitrine touch replay` prints and the
/// replay tests check.
public struct TouchReplay {
    /// One recognised event, as a JSON object line.
    public struct Line: Hashable, Sendable, CustomStringConvertible {
        /// `tap`, `dragStart`, `dragEnd`, `swipe` or `pageChanged`.
        public let event: String
        /// Every key with its JSON value, `event` first.
        public let fields: [(String, String)]

        init(_ event: String, _ fields: [(String, String)]) {
            self.event = event
            self.fields = [("event", "\"\(event)\"")] + fields
        }

        public static func == (lhs: Line, rhs: Line) -> Bool { lhs.description == rhs.description }
        public func hash(into hasher: inout Hasher) { hasher.combine(description) }

        /// `{"event":"tap","slide":0,"x":512,"y":300,"t":1.25}` with keys in a fixed order.
        public var description: String {
            "{" + fields.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}"
        }
    }

    public var output: PixelSize
    public var slideCount: Int
    public var touch: TouchConfiguration
    public var rotation: DisplayRotation

    public init(output: PixelSize = PixelSize(width: 1920, height: 1080), slideCount: Int = 5,
                touch: TouchConfiguration = TouchConfiguration(), rotation: DisplayRotation = .none) {
        self.output = output
        self.slideCount = slideCount
        self.touch = touch
        self.rotation = rotation
    }

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    public func run(_ recording: EvemuRecording) throws(Failure) -> [Line] {
        let settings = TouchInputSettings(touch, rotation: rotation, output: output)
        let (usable, decision) = settings.model(for: recording.device)
        guard var model = usable else {
            throw Failure(description: "\"\(recording.device.name)\" is not used as a touch device: \(decision.reason)")
        }
        var recognizer = GestureRecognizer(settings: Self.gestureSettings(touch, output: output,
                                                                          pixelsPerMillimetre: model.mapper.pixelsPerMillimetre))
        // Autoplay off: a replay shows what the finger did, not what the clock did.
        let settingsForEngine = CarouselSettings.uniform(
            count: slideCount, rotation: RotationPolicy(autoplay: false, interval: .seconds(5), resumeDelayAfterTouch: touch.resumeDelay))
        let start = recording.events.first?.time ?? .zero
        var engine = CarouselEngine(settings: settingsForEngine, start: start)
        var lines: [Line] = []
        func seconds(_ time: MonotonicInstant) -> String { format((time - start).secondsValue, decimals: 3) }
        func record(_ events: [CarouselEvent], at time: MonotonicInstant) {
            for event in events {
                switch event {
                case .pageChanged(let from, let to, let cause):
                    lines.append(Line("pageChanged", [("from", "\(from)"), ("to", "\(to)"),
                                               ("cause", "\"\(cause.rawValue)\""), ("t", seconds(time))]))
                case .swiped(let from, let direction):
                    lines.append(Line("swipe", [("direction", "\"\(direction.rawValue)\""),
                                               ("from", "\(from)"), ("t", seconds(time))]))
                case .dragBegan(let slide):
                    lines.append(Line("dragStart", [("slide", "\(slide)"), ("t", seconds(time))]))
                case .dragEnded(let slide, let paged):
                    lines.append(Line("dragEnd", [("slide", "\(slide)"), ("paged", "\(paged)"), ("t", seconds(time))]))
                case .tapped(let slide, let x, let y):
                    lines.append(Line("tap", [("slide", "\(slide)"), ("x", format(x, decimals: 1)),
                                               ("y", format(y, decimals: 1)), ("t", seconds(time))]))
                }
            }
        }
        // Virtual time advances in 5 ms steps, so an animation's page change is
        // stamped within 5 ms of when it ended rather than at the next event.
        var clock = start
        func advance(to time: MonotonicInstant) {
            while clock < time {
                clock = min(clock + .milliseconds(5), time)
                record(engine.advance(to: clock), at: clock)
            }
        }
        for raw in recording.events {
            advance(to: raw.time)
            for touchEvent in model.handle(raw) {
                for gesture in recognizer.handle(touchEvent) {
                    engine.handle(gesture, at: raw.time, settings: recognizer.settings)
                    record(engine.takeEvents(), at: raw.time)
                }
            }
        }
        // Let the last animation finish, so its page change is reported.
        advance(to: (recording.events.last?.time ?? start) + .seconds(2))
        return lines
    }

    /// The recognizer's thresholds in output pixels: millimetres converted with
    /// the device's resolution, or 96 dpi when it reports none.
    public static func gestureSettings(_ touch: TouchConfiguration, output: PixelSize, pixelsPerMillimetre: Double?) -> GestureSettings {
        let scale = pixelsPerMillimetre ?? TouchConfiguration.assumedPixelsPerMillimetre
        var settings = GestureSettings(outputWidth: output.width)
        settings.tapMaxDuration = touch.tapMaxDuration
        settings.tapSlop = touch.tapSlopMillimetres * scale
        settings.pageFraction = touch.swipeFraction
        settings.flickVelocity = touch.flickVelocityMillimetresPerSecond * scale
        return settings
    }
}

func format(_ value: Double, decimals: Int) -> String {
    var scale = 1.0
    for _ in 0..<decimals { scale *= 10 }
    let rounded = (value * scale).rounded() / scale
    return rounded == rounded.rounded() ? "\(Int(rounded))" : "\(rounded)"
}
