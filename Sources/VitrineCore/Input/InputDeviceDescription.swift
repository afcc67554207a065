/// Linux input event codes the touch layer uses (linux/input-event-codes.h).
/// They are kernel ABI, so the pure core names them itself rather than import C.
public enum EvdevCode {
    public static let synchronization: UInt16 = 0x00  // EV_SYN
    public static let key: UInt16 = 0x01              // EV_KEY
    public static let absolute: UInt16 = 0x03         // EV_ABS

    public static let synReport: UInt16 = 0      // SYN_REPORT
    public static let synMTReport: UInt16 = 2    // SYN_MT_REPORT (protocol A)
    public static let synDropped: UInt16 = 3     // SYN_DROPPED

    public static let buttonLeft: UInt16 = 0x110   // BTN_LEFT
    public static let buttonToolPen: UInt16 = 0x140     // BTN_TOOL_PEN
    public static let buttonToolFinger: UInt16 = 0x145  // BTN_TOOL_FINGER
    public static let buttonTouch: UInt16 = 0x14A  // BTN_TOUCH

    public static let absX: UInt16 = 0x00
    public static let absY: UInt16 = 0x01
    public static let absMTSlot: UInt16 = 0x2F
    public static let absMTPositionX: UInt16 = 0x35
    public static let absMTPositionY: UInt16 = 0x36
    public static let absMTTrackingID: UInt16 = 0x39

    public static let propertyPointer: UInt16 = 0x00  // INPUT_PROP_POINTER
    public static let propertyDirect: UInt16 = 0x01  // INPUT_PROP_DIRECT
}

/// One evdev event with its time on the monotonic clock.
public struct RawInputEvent: Hashable, Sendable {
    public var type: UInt16
    public var code: UInt16
    public var value: Int32
    public var time: MonotonicInstant

    public init(type: UInt16, code: UInt16, value: Int32, time: MonotonicInstant) {
        self.type = type
        self.code = code
        self.value = value
        self.time = time
    }
}

/// An absolute axis as the device reports it (`struct input_absinfo`).
public struct AxisRange: Hashable, Sendable {
    public var minimum: Int32
    public var maximum: Int32
    /// Units per millimetre; 0 when the device does not say.
    public var resolution: Int32

    public init(minimum: Int32, maximum: Int32, resolution: Int32 = 0) {
        self.minimum = minimum
        self.maximum = maximum
        self.resolution = resolution
    }

    /// 0...1 across the axis.
    public func normalized(_ value: Int32) -> Double {
        guard maximum > minimum else { return 0 }
        return Double(value - minimum) / Double(maximum - minimum)
    }

    /// The axis's length in millimetres, when the resolution is known.
    public var lengthMillimetres: Double? {
        resolution > 0 ? Double(maximum - minimum) / Double(resolution) : nil
    }
}

/// What an input device can do, as far as classification needs: its name, its
/// properties, the codes it sends, and its absolute axes.
public struct InputDeviceDescription: Hashable, Sendable {
    public var name: String
    public var properties: Set<UInt16>
    /// Event codes by event type: `codes[EvdevCode.absolute]` holds its ABS_* codes.
    public var codes: [UInt16: Set<UInt16>]
    public var axes: [UInt16: AxisRange]

    public init(name: String, properties: Set<UInt16> = [], codes: [UInt16: Set<UInt16>] = [:], axes: [UInt16: AxisRange] = [:]) {
        self.name = name
        self.properties = properties
        self.codes = codes
        self.axes = axes
    }

    public func has(_ type: UInt16, _ code: UInt16) -> Bool { codes[type]?.contains(code) ?? false }
}

/// How a device delivers touches, and so how its events are decoded.
public enum TouchDeviceKind: String, Hashable, Sendable {
    /// Multitouch protocol B: slots, tracking IDs.
    case multitouchB = "multitouch (protocol B, slots)"
    /// Multitouch protocol A: anonymous contacts separated by SYN_MT_REPORT.
    case multitouchA = "multitouch (protocol A)"
    /// One contact: BTN_TOUCH with ABS_X/ABS_Y.
    case singleTouch = "single-touch"
    /// An absolute pointer such as QEMU's tablet: BTN_LEFT with ABS_X/ABS_Y.
    case absolutePointer = "absolute pointer"
}

/// The classification of a device: what kind it is, or why it is not used.
public struct TouchDeviceClassification: Hashable, Sendable {
    public var kind: TouchDeviceKind?
    public var reason: String

    /// Classifies by capabilities, in the order the input layer prefers them.
    public init(_ device: InputDeviceDescription) {
        let abs = EvdevCode.absolute, key = EvdevCode.key
        let direct = device.properties.contains(EvdevCode.propertyDirect)
        let hasMT = device.has(abs, EvdevCode.absMTPositionX) && device.has(abs, EvdevCode.absMTPositionY)
        let hasXY = device.has(abs, EvdevCode.absX) && device.has(abs, EvdevCode.absY)
        if direct && hasMT {
            if device.has(abs, EvdevCode.absMTSlot) {
                kind = .multitouchB
                reason = "touchscreen: INPUT_PROP_DIRECT with ABS_MT_POSITION_X/Y and ABS_MT_SLOT"
            } else {
                kind = .multitouchA
                reason = "touchscreen: INPUT_PROP_DIRECT with ABS_MT_POSITION_X/Y and no slots"
            }
        } else if !direct && (device.properties.contains(EvdevCode.propertyPointer) || device.has(key, EvdevCode.buttonToolFinger)) {
            // Checked before single-touch, as udev's input_id does: a touchpad also
            // has ABS_X/Y and BTN_TOUCH, but moves a pointer rather than touching the picture.
            kind = nil
            reason = "ignored: a touchpad (INPUT_PROP_POINTER or BTN_TOOL_FINGER, no INPUT_PROP_DIRECT), not a screen"
        } else if !direct && device.has(key, EvdevCode.buttonToolPen) {
            kind = nil
            reason = "ignored: a pen tablet (BTN_TOOL_PEN, no INPUT_PROP_DIRECT), not a screen"
        } else if hasXY && device.has(key, EvdevCode.buttonTouch) {
            kind = .singleTouch
            reason = "touchscreen: ABS_X/Y with BTN_TOUCH"
        } else if hasXY && device.has(key, EvdevCode.buttonLeft) {
            kind = .absolutePointer
            reason = "absolute pointer: ABS_X/Y with BTN_LEFT"
        } else if hasMT {
            kind = nil
            reason = "ignored: multitouch axes without INPUT_PROP_DIRECT (a touchpad, not a screen)"
        } else if hasXY {
            kind = nil
            reason = "ignored: absolute axes with neither BTN_TOUCH nor BTN_LEFT"
        } else {
            kind = nil
            reason = "ignored: no absolute position axes (keyboard, mouse or buttons)"
        }
    }
}
