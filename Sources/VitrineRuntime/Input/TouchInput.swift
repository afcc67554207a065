import Logging
import VitrineCore
import VitrineEvdev

/// Which input devices to use, and how touches map onto the output.
public struct TouchInputSettings: Sendable {
    /// Only devices whose name contains one of these (case-insensitively); empty: all.
    public var include: [String]
    /// Devices whose name contains one of these are never used.
    public var exclude: [String]
    public var rotation: DisplayRotation
    public var calibration: [Double]
    /// The output in the orientation the carousel is drawn.
    public var output: PixelSize

    public init(include: [String] = [], exclude: [String] = [], rotation: DisplayRotation = .none,
                calibration: [Double] = TouchCoordinateMapper.identityCalibration, output: PixelSize) {
        self.include = include
        self.exclude = exclude
        self.rotation = rotation
        self.calibration = calibration
        self.output = output
    }

    /// Why a device is left out by name, or nil if its name is acceptable.
    public func exclusion(of name: String) -> String? {
        let lowered = name.lowercased()
        if let pattern = exclude.first(where: { lowered.contains($0.lowercased()) }) {
            return "excluded by touch.exclude (\"\(pattern)\")"
        }
        if !include.isEmpty, !include.contains(where: { lowered.contains($0.lowercased()) }) {
            return "not named in touch.include"
        }
        return nil
    }

    public func mapper(for device: InputDeviceDescription, kind: TouchDeviceKind) -> TouchCoordinateMapper {
        let multitouch = kind == .multitouchA || kind == .multitouchB
        let x = device.axes[multitouch ? EvdevCode.absMTPositionX : EvdevCode.absX] ?? AxisRange(minimum: 0, maximum: 1)
        let y = device.axes[multitouch ? EvdevCode.absMTPositionY : EvdevCode.absY] ?? AxisRange(minimum: 0, maximum: 1)
        return TouchCoordinateMapper(xAxis: x, yAxis: y, output: output, rotation: rotation, calibration: calibration)
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
                let classification = TouchDeviceClassification(evdev.description)
                guard let kind = classification.kind else { continue }
                if let why = settings.exclusion(of: evdev.description.name) {
                    if reported.insert(path).inserted { logger.info("not using \(path) \"\(evdev.description.name)\": \(why)") }
                    continue
                }
                let model = TouchDeviceModel(kind: kind, mapper: settings.mapper(for: evdev.description, kind: kind))
                devices[evdev.descriptor] = Device(evdev: evdev, kind: kind, model: model)
                added.append(evdev.descriptor)
                logger.notice("touch input: \(path) \"\(evdev.description.name)\", \(kind.rawValue)")
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
