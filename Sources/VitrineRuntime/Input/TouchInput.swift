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

    public init(selection: TouchDeviceSelection = TouchDeviceSelection(), rotation: DisplayRotation = .none, output: PixelSize) {
        self.selection = selection
        self.rotation = rotation
        self.output = output
    }

    /// The settings of the configuration's `touch` section.
    public init(_ touch: TouchConfiguration, rotation: DisplayRotation = .none, output: PixelSize) {
        self.init(selection: touch.deviceSelection, rotation: rotation, output: output)
    }

    /// Maps the device's position axes for its kind, with `calibration` (the
    /// matrix its `Decision` chose).
    public func mapper(for device: InputDeviceDescription, kind: TouchDeviceKind,
                       calibration: [Double] = TouchCoordinateMapper.identityCalibration) -> TouchCoordinateMapper {
        let axes = device.positionAxes(for: kind)
        let x = axes.x ?? AxisRange(minimum: 0, maximum: 1), y = axes.y ?? AxisRange(minimum: 0, maximum: 1)
        return TouchCoordinateMapper(xAxis: x, yAxis: y, output: output, rotation: rotation, calibration: calibration)
    }

    /// The decoder for a device the selection uses, or nil with the decision's reason.
    public func model(for device: InputDeviceDescription) -> (model: TouchDeviceModel?, decision: TouchDeviceSelection.Decision) {
        let decision = selection.decide(device)
        guard let kind = decision.kind else { return (nil, decision) }
        return (TouchDeviceModel(kind: kind, mapper: mapper(for: device, kind: kind, calibration: decision.calibration)), decision)
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

    private let settings: TouchInputSettings
    private let logger: Logger
    private let directory: String
    public private(set) var devices: [Int32: Device] = [:]
    /// The device whose finger drives, while one does.
    private var driving: Int32?
    /// Paths already reported as not usable, so a re-scan does not log them again.
    private var reported: Set<String> = []

    public init(settings: TouchInputSettings, directory: String = "/dev/input", logger: Logger) {
        self.settings = settings
        self.directory = directory
        self.logger = logger
    }

    /// Opens every usable device not open yet; returns the descriptors added.
    @discardableResult
    public func scan() -> [Int32] {
        let open = Set(devices.values.map(\.evdev.path))
        var added: [Int32] = []
        for path in EvdevDevice.devicePaths(in: directory) where !open.contains(path) {
            do {
                let evdev = try EvdevDevice(path: path)
                let (model, decision) = settings.model(for: evdev.description)
                guard let model else {
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
                devices[evdev.descriptor] = Device(evdev: evdev, kind: model.kind, model: model)
                added.append(evdev.descriptor)
                let calibrated = decision.calibratedBy.map { ", calibrated by touch.devices (\"\($0)\")" } ?? ""
                logger.notice("touch input: \(path) \"\(evdev.description.name)\", \(model.kind.rawValue)\(calibrated): \(decision.reason)")
            } catch {
                if reported.insert(path).inserted { logger.warning("\(error)") }
            }
        }
        return added
    }

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
