import Logging
import VitrineConfig
import VitrineCore
import VitrineEvdev

/// Which input devices to use, and how touches map onto the output.
public struct TouchInputSettings: Sendable {
    /// The configuration's include, exclude and per-device calibrations.
    public var selection: TouchDeviceSelection
    public var rotation: DisplayRotation
    /// The output in the orientation the carousel is drawn.
    public var output: PixelSize
    /// With `outputs`, which outputs' touch devices this kiosk takes
    /// (`KioskConfiguration.shown(onOutput:)`); nil: every touch device.
    public var outputs: TouchOutputContext?

    public init(selection: TouchDeviceSelection = TouchDeviceSelection(), rotation: DisplayRotation = .none, output: PixelSize,
                outputs: TouchOutputContext? = nil) {
        self.selection = selection
        self.rotation = rotation
        self.output = output
        self.outputs = outputs
    }

    /// The settings of the configuration's `touch` section, and its output context.
    public init(_ touch: TouchConfiguration, rotation: DisplayRotation = .none, output: PixelSize) {
        self.init(selection: touch.deviceSelection, rotation: rotation, output: output, outputs: touch.outputContext)
    }

    /// For each of `devices` (every touch device the board has, in the
    /// order of their event numbers, so that every kiosk binds the same set
    /// the same way): whether this kiosk takes it, and its output and why.
    /// Without an output context, every device, bound to nothing.
    public func outputChoice(_ devices: [TouchOutputBinding.Device]) -> [(takes: Bool, assignment: TouchOutputBinding.Assignment?)] {
        guard let outputs else { return devices.map { _ in (true, nil) } }
        return outputs.binding(devices).assignments.map { (outputs.takes($0), $0) }
    }

    /// How touches on a device bound so turn: with its output's panel (a
    /// mirror may be mounted another way than the output it mirrors), else
    /// with the kiosk's output.
    public func rotation(for assignment: TouchOutputBinding.Assignment?) -> DisplayRotation {
        assignment?.output.flatMap { outputs?.rotations[$0] } ?? rotation
    }

    /// Where touches on a device bound so land: its output's part of a canvas
    /// (`TouchOutputContext.region(for:)`), else the whole output.
    public func region(for assignment: TouchOutputBinding.Assignment?) -> PixelRect? {
        outputs?.region(for: assignment)
    }

    /// Maps the device's position axes for its kind, with `calibration` (the
    /// matrix its `Decision` chose), onto `region` of the output (all of it when nil).
    public func mapper(for device: InputDeviceDescription, kind: TouchDeviceKind,
                       calibration: [Double] = TouchCoordinateMapper.identityCalibration,
                       rotation: DisplayRotation? = nil, region: PixelRect? = nil) -> TouchCoordinateMapper {
        let axes = device.positionAxes(for: kind)
        let x = axes.x ?? AxisRange(minimum: 0, maximum: 1), y = axes.y ?? AxisRange(minimum: 0, maximum: 1)
        return TouchCoordinateMapper(xAxis: x, yAxis: y, output: output, rotation: rotation ?? self.rotation, calibration: calibration,
                                     region: region)
    }

    /// The decoder for a device the selection uses, or nil with the decision's
    /// reason; its touches turned by `rotation`, else the output's, and landing on `region`.
    public func model(for device: InputDeviceDescription, rotation: DisplayRotation? = nil, region: PixelRect? = nil)
        -> (model: TouchDeviceModel?, decision: TouchDeviceSelection.Decision) {
        let decision = selection.decide(device)
        guard let kind = decision.kind else { return (nil, decision) }
        let mapper = mapper(for: device, kind: kind, calibration: decision.calibration, rotation: rotation, region: region)
        return (TouchDeviceModel(kind: kind, mapper: mapper), decision)
    }
}

/// The touch devices under /dev/input: found at start, picked up when plugged
/// in, dropped quietly when unplugged; each decoded by its own
/// `TouchDeviceModel`. One finger on one device drives at a time.
public final class TouchInput {
    public struct Device {
        public let evdev: EvdevDevice
        public let kind: TouchDeviceKind
        var model: TouchDeviceModel
        public var pixelsPerMillimetre: Double? { model.mapper.pixelsPerMillimetre }
    }

    private var settings: TouchInputSettings
    private let logger: Logger
    private let directory: String
    public private(set) var devices: [Int32: Device] = [:]
    /// The device whose finger drives, while one does.
    private var driving: Int32?
    /// Paths already reported as not usable, so a re-scan does not log them again.
    private var reported: Set<String> = []
    /// Touch devices bound to another kiosk's output, with what was logged of it.
    private var boundElsewhere: [String: String] = [:]

    public init(settings: TouchInputSettings, directory: String = "/dev/input", logger: Logger) {
        self.settings = settings
        self.directory = directory
        self.logger = logger
    }

    /// The first look, at start: opens every usable device (this kiosk's,
    /// with an output context); returns the descriptors added. Nothing is
    /// held yet, so nothing is closed and no touch cancelled.
    @discardableResult
    public func scan() -> [Int32] { rescan(now: MonotonicInstant(nanoseconds: 0)).added }

    /// Opens every usable device not open yet. With an output context, binds
    /// every touch device the board has again (`TouchOutputBinding`, whose
    /// automatic rule depends on all of them): opens those bound to this
    /// kiosk's outputs, and closes those it holds that are now bound to
    /// another, cancelling their touch at `now`. Returns the descriptors
    /// added and removed, and the driving finger's events.
    public func rescan(now: MonotonicInstant) -> (added: [Int32], removed: [Int32], events: [TouchEvent]) {
        let held = Dictionary(devices.map { ($1.evdev.path, $0) }, uniquingKeysWith: { first, _ in first })
        var present: [(path: String, device: TouchOutputBinding.Device, found: (evdev: EvdevDevice, decision: TouchDeviceSelection.Decision)?)] = []
        for path in EvdevDevice.devicePaths(in: directory) {
            if let descriptor = held[path], let device = devices[descriptor] {
                present.append((path, TouchOutputBinding.Device(device.evdev.description, kind: device.kind), nil))
                continue
            }
            do {
                let evdev = try EvdevDevice(path: path)
                let decision = settings.selection.decide(evdev.description)
                guard let kind = decision.kind else {
                    // A keyboard or a mouse is not worth a line; a device that looks
                    // like a touch source but cannot be used, or one the
                    // configuration left out, is: once per plug-in.
                    switch decision.status {
                    case .unsupported where reported.insert(path).inserted:
                        logger.warning("touch input: \(path) \"\(evdev.description.name)\" \(decision.reason)")
                    case .leftOut where reported.insert(path).inserted:
                        logger.info("not using \(path) \"\(evdev.description.name)\": \(decision.reason)")
                    case .used, .notTouch, .unsupported, .leftOut:
                        break
                    }
                    continue
                }
                present.append((path, TouchOutputBinding.Device(evdev.description, kind: kind), (evdev, decision)))
            } catch {
                if reported.insert(path).inserted { logger.warning("\(error)") }
            }
        }
        var added: [Int32] = [], removed: [Int32] = [], events: [TouchEvent] = []
        for (entry, choice) in zip(present, settings.outputChoice(present.map(\.device))) {
            let bound = choice.assignment.map { " for \($0.output ?? "no output") (\($0.reason))" } ?? ""
            guard let (evdev, decision) = entry.found else {
                // Held already: kept while it is still this kiosk's.
                guard !choice.takes, let descriptor = held[entry.path], var device = devices[descriptor] else { continue }
                logger.notice("touch input: \(entry.path) \"\(device.evdev.description.name)\" is no longer this output's: it is\(bound)")
                events += filterDriving(device.model.deviceRemoved(at: now), from: descriptor)
                devices[descriptor] = nil
                removed.append(descriptor)
                continue
            }
            guard choice.takes else {
                // Another kiosk's: said once for each output it goes to (the device closes here).
                if boundElsewhere.updateValue(bound, forKey: entry.path) != bound {
                    logger.info("not using \(entry.path) \"\(evdev.description.name)\": another output's touch device,\(bound)")
                }
                continue
            }
            boundElsewhere[entry.path] = nil
            let region = settings.region(for: choice.assignment)
            guard let model = settings.model(for: evdev.description, rotation: settings.rotation(for: choice.assignment), region: region).model
            else { continue }
            devices[evdev.descriptor] = Device(evdev: evdev, kind: model.kind, model: model)
            added.append(evdev.descriptor)
            let calibrated = decision.calibratedBy.map { ", calibrated by touch.devices (\"\($0)\")" } ?? ""
            let part = region.map { ", onto \($0) of the canvas" } ?? ""
            logger.notice("touch input: \(entry.path) \"\(evdev.description.name)\", \(model.kind.rawValue)\(calibrated)\(bound)\(part): \(decision.reason)")
        }
        return (added, removed, events)
    }

    /// The output took a new size (a mode set after a hotplug): every device,
    /// and each plugged in later, maps onto it. A touch in progress is
    /// cancelled at `now`: it began on the old size, and the rest of it would
    /// jump. Returns the driving finger's cancel, if any.
    public func resize(output: PixelSize, now: MonotonicInstant) -> [TouchEvent] {
        guard output != settings.output else { return [] }
        settings.output = output
        var events: [TouchEvent] = []
        for descriptor in devices.keys.sorted() {
            guard var device = devices[descriptor] else { continue }
            device.model.mapper.output = output
            if descriptor == driving { events += filterDriving(device.model.deviceRemoved(at: now), from: descriptor) }
            devices[descriptor] = device
        }
        return events
    }

    /// The size touches map onto.
    public var output: PixelSize { settings.output }

    /// Whether devices are bound to outputs, so one leaving can change where the others go.
    public var bindsToOutputs: Bool { settings.outputs != nil }

    public var descriptors: [Int32] { Array(devices.keys) }

    /// Millimetres to output pixels for the device that drives (or any open
    /// device); nil when no device reports its resolution.
    public var pixelsPerMillimetre: Double? {
        if let driving, let device = devices[driving] { return device.pixelsPerMillimetre }
        return devices.values.lazy.compactMap(\.pixelsPerMillimetre).first
    }

    /// Reads the device on `descriptor`. A device that went away is closed with
    /// one log line and its touch, if any, cancelled. Returns the driving finger's events.
    public func handle(descriptor: Int32, now: MonotonicInstant) -> (events: [TouchEvent], removed: Int32?) {
        guard var device = devices[descriptor] else { return ([], nil) }
        var output: [TouchEvent] = []
        do {
            for raw in try device.evdev.readEvents() {
                output += device.model.handle(raw)
            }
            devices[descriptor] = device
        } catch {
            logger.notice("touch input: \(device.evdev.path) \"\(device.evdev.description.name)\" went away")
            output += device.model.deviceRemoved(at: now)
            devices[descriptor] = nil
            reported.remove(device.evdev.path)
            return (filterDriving(output, from: descriptor), descriptor)
        }
        return (filterDriving(output, from: descriptor), nil)
    }

    /// Only one device drives: while a finger is down on one, the others are ignored.
    private func filterDriving(_ events: [TouchEvent], from descriptor: Int32) -> [TouchEvent] {
        var passed: [TouchEvent] = []
        for event in events {
            if driving == nil, case .down = event { driving = descriptor }
            guard driving == descriptor else { continue }
            passed.append(event)
            switch event {
            case .up, .cancel: driving = nil
            case .down, .move: break
            }
        }
        return passed
    }
}
