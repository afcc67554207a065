import Testing
@testable import VitrineCore

@Suite("Touch device selection: include, exclude and calibration overrides")
struct TouchDeviceSelectionTests {
    /// A single-touch screen as the classification sees it.
    func screen(_ name: String, vendor: UInt16 = 0x1234, product: UInt16 = 0x0001) -> InputDeviceDescription {
        InputDeviceDescription(
            name: name, identity: InputDeviceIdentity(bus: 3, vendor: vendor, product: product),
            codes: [EvdevCode.key: [EvdevCode.buttonTouch], EvdevCode.absolute: [EvdevCode.absX, EvdevCode.absY]],
            axes: [EvdevCode.absX: AxisRange(minimum: 0, maximum: 4095), EvdevCode.absY: AxisRange(minimum: 0, maximum: 4095)])
    }

    @Test func patterns() {
        #expect(InputDevicePattern("0eef:0001").isIdentity)
        #expect(InputDevicePattern("0EEF:0001").isIdentity)
        #expect(!InputDevicePattern("eef:1").isIdentity, "vendor:product takes four hex digits each, as lsusb prints them")
        #expect(!InputDevicePattern("Goodix").isIdentity)
        let egalax = screen("eGalax Inc. USB TouchController Touchscreen", vendor: 0x0eef, product: 0x0001)
        #expect(InputDevicePattern("0eef:0001").matches(egalax))
        #expect(!InputDevicePattern("0eef:0002").matches(egalax))
        #expect(InputDevicePattern("egalax").matches(egalax))
        #expect(!InputDevicePattern("0eef:0001").matches(InputDeviceDescription(name: "no identity")))
    }

    @Test func namesFilter() {
        let selection = TouchDeviceSelection(include: [.init("goodix"), .init("ft5406")], exclude: [.init("Pen")])
        #expect(selection.decide(screen("Goodix Capacitive TouchScreen")).status == .used)
        let pen = selection.decide(screen("Goodix Pen"))
        #expect(pen.status == .leftOut)
        #expect(pen.reason == "excluded by touch.exclude (\"Pen\"); on its own it would be touchscreen: ABS_X/Y with BTN_TOUCH")
        let other = selection.decide(screen("QEMU Virtio Tablet"))
        #expect(other.status == .leftOut)
        #expect(other.reason.hasPrefix("not named in touch.include"))
        #expect(TouchDeviceSelection().decide(screen("anything")).status == .used)
    }

    @Test func excludeWinsOverInclude() {
        let selection = TouchDeviceSelection(include: [.init("0eef:0001")], exclude: [.init("0eef:0001")])
        #expect(selection.decide(screen("eGalax", vendor: 0x0eef, product: 0x0001)).status == .leftOut)
    }

    @Test func includeForcesOnlyWhatHasAPosition() {
        // Axes with no range: even when named, nothing can be read.
        var dead = screen("Dead Panel")
        dead.axes[EvdevCode.absX] = AxisRange(minimum: 0, maximum: 0)
        let decision = TouchDeviceSelection(include: [.init("dead")]).decide(dead)
        #expect(decision.kind == nil)
        #expect(decision.status == .unsupported)
        // A mouse-like absolute device without BTN_TOUCH or BTN_LEFT named in include: still nothing to read as a touch.
        let keyboard = InputDeviceDescription(name: "Some Keyboard", codes: [EvdevCode.key: [30, 31]])
        #expect(TouchDeviceSelection(include: [.init("keyboard")]).decide(keyboard).status == .notTouch)
    }

    @Test func calibrationFirstMatchWins() {
        let shift: [Double] = [1, 0, 0.1, 0, 1, 0], swap: [Double] = [0, 1, 0, 1, 0, 0]
        let selection = TouchDeviceSelection(
            calibrations: [.init(pattern: .init("0eef:0001"), matrix: shift), .init(pattern: .init("egalax"), matrix: swap)],
            defaultCalibration: [-1, 0, 1, 0, 1, 0])
        let egalax = selection.decide(screen("eGalax Touchscreen", vendor: 0x0eef, product: 0x0001))
        #expect(egalax.calibration == shift)
        #expect(egalax.calibratedBy == InputDevicePattern("0eef:0001"))
        let other = selection.decide(screen("eGalax Touchscreen", vendor: 0x0eef, product: 0x0002))
        #expect(other.calibration == swap)
        let plain = selection.decide(screen("Goodix"))
        #expect(plain.calibration == [-1, 0, 1, 0, 1, 0])
        #expect(plain.calibratedBy == nil)
    }

    /// Each rule of the classification, on descriptions built here.
    @Test func classificationRules() {
        let abs = EvdevCode.absolute, key = EvdevCode.key
        let range = AxisRange(minimum: 0, maximum: 1000)
        func device(_ properties: Set<UInt16> = [], keys: Set<UInt16>, axes: [UInt16]) -> InputDeviceDescription {
            InputDeviceDescription(name: "d", properties: properties, codes: [key: keys, abs: Set(axes)],
                                   axes: Dictionary(uniqueKeysWithValues: axes.map { ($0, range) }))
        }
        let xy = [EvdevCode.absX, EvdevCode.absY], mt = [EvdevCode.absMTPositionX, EvdevCode.absMTPositionY]
        // A Wacom-style pen tablet: on a kiosk, a single-touch source too (exclude it by name if unwanted).
        #expect(TouchDeviceClassification(device(keys: [EvdevCode.buttonTouch, EvdevCode.buttonToolPen, EvdevCode.buttonStylus], axes: xy)).kind == .singleTouch)
        // A touchpad: INPUT_PROP_POINTER, or BTN_TOOL_FINGER without a pen.
        #expect(TouchDeviceClassification(device([EvdevCode.propertyPointer], keys: [EvdevCode.buttonTouch], axes: xy + mt)).kind == nil)
        #expect(TouchDeviceClassification(device(keys: [EvdevCode.buttonTouch, EvdevCode.buttonToolFinger], axes: xy)).kind == nil)
        // Multitouch axes with BTN_TOUCH but no INPUT_PROP_DIRECT and nothing of a touchpad.
        #expect(TouchDeviceClassification(device(keys: [EvdevCode.buttonTouch], axes: mt + [EvdevCode.absMTSlot])).kind == .multitouchB)
        // INPUT_PROP_DIRECT with dead MT axes but good X/Y: single-touch.
        var deadMT = device([EvdevCode.propertyDirect], keys: [EvdevCode.buttonTouch], axes: xy + mt)
        deadMT.axes[EvdevCode.absMTPositionX] = AxisRange(minimum: 0, maximum: 0)
        #expect(TouchDeviceClassification(deadMT).kind == .singleTouch)
        // An absolute pointer with INPUT_PROP_DIRECT and BTN_LEFT, no BTN_TOUCH.
        #expect(TouchDeviceClassification(device([EvdevCode.propertyDirect], keys: [EvdevCode.buttonLeft], axes: xy)).kind == .absolutePointer)
        // INPUT_PROP_DIRECT with X/Y and no button at all: unsupported, said once.
        let silent = TouchDeviceClassification(device([EvdevCode.propertyDirect], keys: [], axes: xy))
        #expect(silent.kind == nil && silent.isUnsupported)
    }
}
