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

/// The classification of a device by its capabilities alone: what kind of
/// touch source it is, or why it is not one.
///
/// The rules are a kiosk's, not a desktop's. udev's input_id and libinput call
/// any absolute device with BTN_TOOL_PEN a tablet, and a desktop then drives a
/// pen cursor with it. A kiosk has no cursor, and the common USB touch monitors
/// with resistive or surface-acoustic-wave controllers (eGalax/EETI, usbtouchscreen,
/// hid-generic) report exactly that: BTN_TOUCH with BTN_TOOL_PEN on ABS_X/ABS_Y,
/// and no INPUT_PROP_DIRECT. So an absolute device with BTN_TOUCH and a usable
/// X/Y pair is a touch source here, whatever tool bits it also reports. Only a
/// touchpad, which moves a pointer rather than touching the picture, is left out;
/// `touch.include` can bring any device back (`TouchDeviceSelection`).
public struct TouchDeviceClassification: Hashable, Sendable {
    public var kind: TouchDeviceKind?
    public var reason: String
    /// The device looks like a touch source, but its position arrives on axes
    /// Vitrine cannot use: worth one warning line, unlike a keyboard.
    public var isUnsupported: Bool

    /// Classifies by capabilities, in the order the input layer prefers them.
    public init(_ device: InputDeviceDescription) {
        isUnsupported = false
        let abs = EvdevCode.absolute, key = EvdevCode.key
        let direct = device.properties.contains(EvdevCode.propertyDirect)
        let hasMT = device.has(abs, EvdevCode.absMTPositionX) && device.has(abs, EvdevCode.absMTPositionY)
        let usableMT = device.hasUsablePair(EvdevCode.absMTPositionX, EvdevCode.absMTPositionY)
        let hasXY = device.has(abs, EvdevCode.absX) && device.has(abs, EvdevCode.absY)
        let usableXY = device.hasUsablePair(EvdevCode.absX, EvdevCode.absY)
        let touch = device.has(key, EvdevCode.buttonTouch)
        let pen = device.has(key, EvdevCode.buttonToolPen) || device.has(key, EvdevCode.buttonStylus)
        if direct && usableMT {
            (kind, reason) = Self.multitouch(device, "touchscreen: INPUT_PROP_DIRECT with ABS_MT_POSITION_X/Y")
        } else if !direct && device.properties.contains(EvdevCode.propertyPointer) {
            // Checked before single-touch, as udev's input_id does: a touchpad also
            // has ABS_X/Y and BTN_TOUCH, but moves a pointer rather than touching the picture.
            (kind, reason) = (nil, Self.touchpad)
        } else if !direct && device.has(key, EvdevCode.buttonToolFinger) && !pen {
            (kind, reason) = (nil, Self.touchpad)
        } else if touch && usableXY {
            kind = .singleTouch
            reason = pen
                ? "touchscreen: ABS_X/Y with BTN_TOUCH; it also reports a pen (BTN_TOOL_PEN), as USB touch monitors "
                    + "with resistive or SAW controllers (eGalax/EETI) do, so it is used as a single-touch screen"
                : "touchscreen: ABS_X/Y with BTN_TOUCH"
        } else if touch && usableMT {
            // No INPUT_PROP_DIRECT, but nothing of a touchpad either (ruled out above).
            (kind, reason) = Self.multitouch(device, "touchscreen: BTN_TOUCH with ABS_MT_POSITION_X/Y, no INPUT_PROP_DIRECT")
        } else if usableXY && device.has(key, EvdevCode.buttonLeft) {
            kind = .absolutePointer
            reason = "absolute pointer: ABS_X/Y with BTN_LEFT"
        } else if touch || (direct && (hasMT || hasXY)) {
            kind = nil
            isUnsupported = true
            reason = "unsupported: it reports touches, but its position arrives on axes Vitrine cannot use ("
                + Self.positionAxes(device) + "); Vitrine reads ABS_X/ABS_Y or ABS_MT_POSITION_X/Y with a range"
        } else if hasMT {
            kind = nil
            reason = "ignored: multitouch axes without BTN_TOUCH or INPUT_PROP_DIRECT, not a screen"
        } else if hasXY {
            kind = nil
            reason = "ignored: absolute axes with neither BTN_TOUCH nor BTN_LEFT"
        } else {
            kind = nil
            reason = "ignored: no absolute position axes (keyboard, mouse or buttons)"
        }
    }

    /// Classifies a device that the configuration names in `touch.include`: used
    /// whenever it has a position Vitrine can read, whatever it looks like.
    init(forcing device: InputDeviceDescription, pattern: String, otherwise: TouchDeviceClassification) {
        isUnsupported = false
        let abs = EvdevCode.absolute, key = EvdevCode.key
        let why = "used because touch.include names it (\"\(pattern)\"), though on its own it would be \(otherwise.reason)"
        if device.hasUsablePair(EvdevCode.absMTPositionX, EvdevCode.absMTPositionY) {
            (kind, reason) = Self.multitouch(device, why)
        } else if device.hasUsablePair(EvdevCode.absX, EvdevCode.absY)
                    && (device.has(key, EvdevCode.buttonTouch) || device.has(key, EvdevCode.buttonLeft)) {
            kind = device.has(key, EvdevCode.buttonTouch) ? .singleTouch : .absolutePointer
            reason = why
        } else {
            kind = nil
            isUnsupported = device.has(abs, EvdevCode.absX) || device.has(abs, EvdevCode.absMTPositionX)
                || device.has(key, EvdevCode.buttonTouch)
            reason = "unsupported: touch.include names it (\"\(pattern)\"), but it has no position Vitrine can read ("
                + Self.positionAxes(device) + ")"
        }
    }

    private static let touchpad = "ignored: a touchpad (INPUT_PROP_POINTER or BTN_TOOL_FINGER, no INPUT_PROP_DIRECT), not a screen"

    private static func multitouch(_ device: InputDeviceDescription, _ because: String) -> (TouchDeviceKind, String) {
        device.has(EvdevCode.absolute, EvdevCode.absMTSlot)
            ? (.multitouchB, because + " and ABS_MT_SLOT")
            : (.multitouchA, because + " and no slots")
    }

    /// "ABS_X 0...0, ABS_Y 0...0" or "absolute axes 0x28, 0x29": what the device offers instead.
    private static func positionAxes(_ device: InputDeviceDescription) -> String {
        let names: [UInt16: String] = [EvdevCode.absX: "ABS_X", EvdevCode.absY: "ABS_Y",
                                       EvdevCode.absMTPositionX: "ABS_MT_POSITION_X", EvdevCode.absMTPositionY: "ABS_MT_POSITION_Y"]
        let codes = (device.codes[EvdevCode.absolute] ?? []).sorted()
        guard !codes.isEmpty else { return "no absolute axes" }
        return codes.map { code in
            let name = names[code] ?? "ABS 0x" + String(code, radix: 16)
            guard let range = device.axes[code] else { return name }
            return "\(name) \(range.minimum)...\(range.maximum)"
        }.joined(separator: ", ")
    }
}
