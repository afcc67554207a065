/// A device pattern from the configuration: `"0eef:0001"` (vendor:product in
/// hex, as `lsusb` prints it) matches by identity; a physical path prefix
/// (`{phys: "usb-0000:01:00.0-1.3"}` in `outputs[].touch`) matches the
/// devices plugged in at that place; anything else is a part of the device's
/// name, compared case-insensitively.
public struct InputDevicePattern: Hashable, Sendable, CustomStringConvertible {
    /// The name part, the vendor:product, or the physical path prefix, as written.
    public let text: String
    private let identity: (vendor: UInt16, product: UInt16)?
    /// Whether `text` is a prefix of the physical path rather than a name part.
    public let isPhysicalPath: Bool

    public init(_ text: String) {
        self.text = text
        identity = Self.parseIdentity(text)
        isPhysicalPath = false
    }

    /// Matches the devices whose physical path (EVIOCGPHYS) begins with `prefix`.
    public init(physicalPathPrefix prefix: String) {
        text = prefix
        identity = nil
        isPhysicalPath = true
    }

    /// Whether `text` has the vendor:product form, so is matched by identity.
    public var isIdentity: Bool { identity != nil }

    public func matches(_ device: InputDeviceDescription) -> Bool {
        if isPhysicalPath {
            // A device without one (a recording, a driver that sets none) is at no known place.
            guard let phys = device.physicalPath, !phys.isEmpty else { return false }
            return phys.hasPrefix(text)
        }
        if let identity {
            guard let id = device.identity else { return false }
            return id.vendor == identity.vendor && id.product == identity.product
        }
        return device.name.lowercased().contains(text.lowercased())
    }

    /// `Goodix`, `0eef:0001`, or `phys: usb-0000:01:00.0-1.3`.
    public var description: String { isPhysicalPath ? "phys: \(text)" : text }

    public static func == (a: Self, b: Self) -> Bool { a.text == b.text && a.isPhysicalPath == b.isPhysicalPath }
    public func hash(into hasher: inout Hasher) {
        hasher.combine(text)
        hasher.combine(isPhysicalPath)
    }

    /// Exactly four hex digits, a colon, four hex digits.
    private static func parseIdentity(_ text: String) -> (UInt16, UInt16)? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, parts.allSatisfy({ $0.count == 4 }),
              let vendor = UInt16(parts[0], radix: 16), let product = UInt16(parts[1], radix: 16) else { return nil }
        return (vendor, product)
    }
}

/// A calibration for the devices one pattern matches (`touch.devices`).
public struct TouchDeviceCalibration: Hashable, Sendable {
    public var pattern: InputDevicePattern
    /// libinput's 3x2 matrix on normalised coordinates.
    public var matrix: [Double]

    public init(pattern: InputDevicePattern, matrix: [Double]) {
        self.pattern = pattern
        self.matrix = matrix
    }
}

/// Which input devices drive the carousel, and with which calibration: the
/// capability classification, then the configuration's overrides on top.
///
/// - `exclude`: a matching device is never used, whatever it is.
/// - `include`: when not empty, only matching devices are used; and a matching
///   device is used even where the classification alone would leave it out
///   (a touchpad, say), as long as it reports a position Vitrine can read.
/// - `calibrations`: the first matching entry's matrix, else the default.
public struct TouchDeviceSelection: Hashable, Sendable {
    public var include: [InputDevicePattern]
    public var exclude: [InputDevicePattern]
    public var calibrations: [TouchDeviceCalibration]
    public var defaultCalibration: [Double]

    public init(include: [InputDevicePattern] = [], exclude: [InputDevicePattern] = [],
                calibrations: [TouchDeviceCalibration] = [],
                defaultCalibration: [Double] = TouchCoordinateMapper.identityCalibration) {
        self.include = include
        self.exclude = exclude
        self.calibrations = calibrations
        self.defaultCalibration = defaultCalibration
    }

    /// What the kiosk does with one device, and why, in words for `vitrine touch list` and the log.
    public struct Decision: Hashable, Sendable {
        public enum Status: Hashable, Sendable {
            /// It drives the carousel.
            case used
            /// Not a touch source (a keyboard, a mouse, a touchpad): not worth a log line.
            case notTouch
            /// Looks like a touch source but cannot be used: worth a warning.
            case unsupported
            /// `touch.include` or `touch.exclude` leaves it out.
            case leftOut
        }

        /// How its events are decoded; nil when the device is not used.
        public var kind: TouchDeviceKind?
        public var reason: String
        public var status: Status
        public var calibration: [Double]
        /// The `touch.devices` pattern whose calibration applies, if any.
        public var calibratedBy: InputDevicePattern?
    }

    public func decide(_ device: InputDeviceDescription) -> Decision {
        let classified = TouchDeviceClassification(device)
        let calibration = calibrations.first { $0.pattern.matches(device) }
        func decision(_ c: TouchDeviceClassification) -> Decision {
            Decision(kind: c.kind, reason: c.reason, status: c.kind != nil ? .used : c.isUnsupported ? .unsupported : .notTouch,
                     calibration: calibration?.matrix ?? defaultCalibration, calibratedBy: calibration?.pattern)
        }
        if let pattern = exclude.first(where: { $0.matches(device) }) {
            return Decision(kind: nil, reason: "excluded by touch.exclude (\"\(pattern)\"); on its own it would be \(classified.reason)",
                            status: .leftOut, calibration: defaultCalibration, calibratedBy: nil)
        }
        guard !include.isEmpty else { return decision(classified) }
        guard let pattern = include.first(where: { $0.matches(device) }) else {
            return Decision(kind: nil, reason: "not named in touch.include; on its own it would be \(classified.reason)",
                            status: .leftOut, calibration: defaultCalibration, calibratedBy: nil)
        }
        if classified.kind != nil { return decision(classified) }
        return decision(TouchDeviceClassification(forcing: device, pattern: pattern.text, otherwise: classified))
    }
}
