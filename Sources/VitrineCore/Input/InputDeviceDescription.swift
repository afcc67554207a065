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
    public static let buttonToolRubber: UInt16 = 0x141  // BTN_TOOL_RUBBER
    public static let buttonStylus: UInt16 = 0x14B      // BTN_STYLUS
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

/// Who made a device: `struct input_id` (the evemu `I:` line).
public struct InputDeviceIdentity: Hashable, Sendable, CustomStringConvertible {
    public var bus: UInt16
    public var vendor: UInt16
    public var product: UInt16
    public var version: UInt16

    public init(bus: UInt16, vendor: UInt16, product: UInt16, version: UInt16 = 0) {
        self.bus = bus
        self.vendor = vendor
        self.product = product
        self.version = version
    }

    /// "0eef:0001", the form `lsusb` prints and the configuration's device patterns use.
    public var description: String { Self.hex(vendor) + ":" + Self.hex(product) }

    /// The bus as the kernel's `BUS_*` names it, for people: `USB`, `I2C`, `host`; else its number.
    public var busName: String { InputBus.name(bus) }

    private static func hex(_ value: UInt16) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}

/// The buses a device can be on (`BUS_*` in linux/input.h): kernel ABI, named
/// here as `EvdevCode` names event codes. Only those a touch screen is found on.
public enum InputBus {
    public static let usb: UInt16 = 0x03        // BUS_USB: USB touch monitors
    public static let virtual: UInt16 = 0x06    // BUS_VIRTUAL: uinput, virtio
    public static let bluetooth: UInt16 = 0x05  // BUS_BLUETOOTH
    public static let rs232: UInt16 = 0x13      // BUS_RS232: serial touch controllers (inputattach)
    public static let i2c: UInt16 = 0x18        // BUS_I2C: a panel's own controller (FT5x06, Goodix)
    public static let host: UInt16 = 0x19       // BUS_HOST: a platform device (the Pi's raspberrypi-ts)
    public static let spi: UInt16 = 0x1C        // BUS_SPI: resistive controllers on small panels (ADS7846)

    /// `USB`, `I2C`, `host`, ... or `bus 0x10` for one not named here.
    public static func name(_ bus: UInt16) -> String {
        switch bus {
        case usb: return "USB"
        case virtual: return "virtual"
        case bluetooth: return "Bluetooth"
        case rs232: return "RS-232"
        case i2c: return "I2C"
        case host: return "host"
        case spi: return "SPI"
        default: return "bus 0x" + String(bus, radix: 16)
        }
    }
}

/// What an input device can do, as far as classification needs: its name, its
/// properties, the codes it sends, and its absolute axes; and where it is, for
/// binding it to an output.
public struct InputDeviceDescription: Hashable, Sendable {
    public var name: String
    /// Bus, vendor and product; nil when unknown (a recording without an `I:` line).
    public var identity: InputDeviceIdentity?
    /// Where it is plugged in, as its driver says (EVIOCGPHYS: `usb-0000:01:00.0-1.3/input0`);
    /// nil when unknown (a recording, a driver that sets none).
    public var physicalPath: String?
    public var properties: Set<UInt16>
    /// Event codes by event type: `codes[EvdevCode.absolute]` holds its ABS_* codes.
    public var codes: [UInt16: Set<UInt16>]
    public var axes: [UInt16: AxisRange]

    public init(name: String, identity: InputDeviceIdentity? = nil, physicalPath: String? = nil, properties: Set<UInt16> = [],
                codes: [UInt16: Set<UInt16>] = [:], axes: [UInt16: AxisRange] = [:]) {
        self.name = name
        self.identity = identity
        self.physicalPath = physicalPath
        self.properties = properties
        self.codes = codes
        self.axes = axes
    }

    public func has(_ type: UInt16, _ code: UInt16) -> Bool { codes[type]?.contains(code) ?? false }

    /// The axes a device of `kind` reports its position on: the multitouch
    /// ones for protocols A and B, ABS_X/ABS_Y otherwise; nil where it has none.
    public func positionAxes(for kind: TouchDeviceKind) -> (x: AxisRange?, y: AxisRange?) {
        let multitouch = kind == .multitouchA || kind == .multitouchB
        return (axes[multitouch ? EvdevCode.absMTPositionX : EvdevCode.absX], axes[multitouch ? EvdevCode.absMTPositionY : EvdevCode.absY])
    }

    /// Both axes are there and each spans more than one value: a position can be read from them.
    func hasUsablePair(_ x: UInt16, _ y: UInt16) -> Bool {
        guard has(EvdevCode.absolute, x), has(EvdevCode.absolute, y) else { return false }
        // A recording or device without axis ranges (no A: line) is taken at its word.
        guard let xRange = axes[x], let yRange = axes[y] else { return true }
        return xRange.maximum > xRange.minimum && yRange.maximum > yRange.minimum
    }
}
