import Testing
import VitrineConfig
import VitrineCore
import VitrineEvdev
import VitrineRuntime

@Suite("evemu recordings: device classification")
struct ClassificationTests {
    @Test(arguments: [
        ("b-tap.evemu", TouchDeviceKind.multitouchB,
         "touchscreen: INPUT_PROP_DIRECT with ABS_MT_POSITION_X/Y and ABS_MT_SLOT"),
        ("a-tap.evemu", TouchDeviceKind.multitouchA,
         "touchscreen: INPUT_PROP_DIRECT with ABS_MT_POSITION_X/Y and no slots"),
        ("st-tap.evemu", TouchDeviceKind.singleTouch, "touchscreen: ABS_X/Y with BTN_TOUCH"),
        ("qemu-tablet.evemu", TouchDeviceKind.absolutePointer, "absolute pointer: ABS_X/Y with BTN_LEFT"),
    ])
    func touchDevices(name: String, kind: TouchDeviceKind, reason: String) throws {
        let classification = TouchDeviceClassification(try Recordings.load(name).device)
        #expect(classification.kind == kind)
        #expect(classification.reason == reason)
    }

    /// A laptop touchpad has ABS_X/Y and BTN_TOUCH like a single-touch screen, and
    /// MT axes like a protocol-B one, but no INPUT_PROP_DIRECT (and BTN_TOOL_FINGER):
    /// it must not drive the carousel.
    @Test func touchpadIsIgnored() throws {
        let recording = try Recordings.load("touchpad-description.evemu")
        let classification = TouchDeviceClassification(recording.device)
        #expect(classification.kind == nil, "classified as \(String(describing: classification.kind)): \(classification.reason)")
        #expect(classification.reason == "ignored: a touchpad (INPUT_PROP_POINTER or BTN_TOOL_FINGER, no INPUT_PROP_DIRECT), not a screen")
        #expect(throws: TouchReplay.Failure.self) { try TouchReplay().run(recording) }
    }

    /// The axes each kind maps with, and the millimetre scale the thresholds use.
    @Test func mappers() throws {
        let settings = TouchInputSettings(output: PixelSize(width: 1920, height: 1080))

        let b = try Recordings.load("b-tap.evemu").device
        let bMapper = settings.mapper(for: b, kind: .multitouchB)
        #expect(bMapper.xAxis == AxisRange(minimum: 0, maximum: 4095, resolution: 16))
        #expect(bMapper.yAxis == AxisRange(minimum: 0, maximum: 2303, resolution: 16))
        // 1920 px over 255.94 mm and 1080 px over 143.94 mm.
        let ppm = try #require(bMapper.pixelsPerMillimetre)
        #expect(abs(ppm - 7.5025) < 0.001)
        let centre = bMapper.map(x: 2048, y: 1152)
        #expect(abs(centre.x - 960.234) < 0.001 && abs(centre.y - 540.234) < 0.001)

        let a = try Recordings.load("a-tap.evemu").device
        let aMapper = settings.mapper(for: a, kind: .multitouchA)
        #expect(aMapper.xAxis == AxisRange(minimum: 0, maximum: 3840))
        #expect(aMapper.pixelsPerMillimetre == nil)
        let aPoint = aMapper.map(x: 1000, y: 600)
        #expect(abs(aPoint.x - 500) < 1e-9 && abs(aPoint.y - 300) < 1e-9)

        let single = try Recordings.load("st-tap.evemu").device
        let singleMapper = settings.mapper(for: single, kind: .singleTouch)
        #expect(singleMapper.pixelsPerMillimetre == nil)
        let singlePoint = singleMapper.map(x: 300, y: 200)
        #expect(abs(singlePoint.x - 600) < 1e-9 && abs(singlePoint.y - 400) < 1e-9)

        // Without a resolution, the thresholds assume 96 dpi.
        let gestures = TouchReplay.gestureSettings(.init(), output: settings.output, pixelsPerMillimetre: nil)
        #expect(abs(gestures.tapSlop - 5 * 96 / 25.4) < 1e-9)
        #expect(abs(gestures.flickVelocity - 150 * 96 / 25.4) < 1e-9)
        #expect(gestures.pageDistance == 480)
        let withResolution = TouchReplay.gestureSettings(.init(), output: settings.output, pixelsPerMillimetre: ppm)
        #expect(abs(withResolution.tapSlop - 37.51) < 0.01)
        #expect(abs(withResolution.flickVelocity - 1125.4) < 0.1)
    }
}

/// The touch devices kiosks meet that a desktop's rules would drop.
@Suite("evemu recordings: kiosk touch devices")
struct KioskTouchDeviceTests {
    /// eGalax/EETI and other resistive or SAW controllers report BTN_TOOL_PEN
    /// with BTN_TOUCH and no INPUT_PROP_DIRECT: a pen tablet to udev, a screen here.
    @Test func penReportingTouchMonitorIsASingleTouchScreen() throws {
        let device = try Recordings.load("egalax-tap.evemu").device
        #expect(device.identity == InputDeviceIdentity(bus: 3, vendor: 0x0eef, product: 0x0001, version: 0x0210))
        #expect(device.identity?.description == "0eef:0001")
        let classification = TouchDeviceClassification(device)
        #expect(classification.kind == .singleTouch)
        #expect(classification.reason == "touchscreen: ABS_X/Y with BTN_TOUCH; it also reports a pen (BTN_TOOL_PEN), as USB touch "
            + "monitors with resistive or SAW controllers (eGalax/EETI) do, so it is used as a single-touch screen")
        #expect(!classification.isUnsupported)
    }

    @Test func penReportingTouchMonitorTaps() throws {
        let lines = try Recordings.replay("egalax-tap.evemu")
        try #require(lines.map(\.event) == ["tap"], "\(lines)")
        // (2035, 2047) on 30...4040 x 60...4035 is (960.0, 540.0) on 1920x1080.
        expectTap(lines[0], slide: 0, x: 960, y: 540)
    }

    @Test func penReportingTouchMonitorSwipes() throws {
        // BTN_TOOL_PEN toggling with BTN_TOUCH changes nothing.
        let lines = try Recordings.replay("egalax-swipe-left.evemu")
        expectSwipe(lines[...], from: 0, to: 1, direction: "next")
    }

    @Test(arguments: [
        ("unsupported-zero-range-description.evemu", "ABS_X 0...0, ABS_Y 0...0"),
        ("unsupported-rx-ry-description.evemu", "ABS 0x3 0...4095, ABS 0x4 0...4095"),
    ])
    func positionOnUnusableAxesIsUnsupported(name: String, axes: String) throws {
        let recording = try Recordings.load(name)
        let classification = TouchDeviceClassification(recording.device)
        #expect(classification.kind == nil)
        #expect(classification.isUnsupported)
        #expect(classification.reason == "unsupported: it reports touches, but its position arrives on axes Vitrine cannot use ("
            + axes + "); Vitrine reads ABS_X/ABS_Y or ABS_MT_POSITION_X/Y with a range")
        // The replay says so instead of crashing; so does `vitrine touch list` (same decision).
        #expect(throws: TouchReplay.Failure.self) { try TouchReplay().run(recording) }
        let decision = TouchDeviceSelection().decide(recording.device)
        #expect(decision.status == .unsupported)
    }

    /// A touchpad stays out unless the configuration names it; then it drives.
    @Test func includeBringsBackAnIgnoredDevice() throws {
        let touchpad = try Recordings.load("touchpad-description.evemu").device
        var touch = TouchConfiguration()
        #expect(TouchDeviceSelection().decide(touchpad).status == .notTouch)
        touch.include = ["touchpad"]
        let decision = touch.deviceSelection.decide(touchpad)
        #expect(decision.status == .used)
        #expect(decision.kind == .multitouchB)
        #expect(decision.reason.hasPrefix("used because touch.include names it"))
    }

    /// Calibration by vendor:product reaches the mapper of a replay.
    @Test func perDeviceCalibrationByIdentity() throws {
        var touch = TouchConfiguration()
        // Shift x by a quarter of the width on the eGalax only: x' = x + 0.25.
        touch.devices = [TouchDeviceCalibration(pattern: InputDevicePattern("0eef:0001"), matrix: [1, 0, 0.25, 0, 1, 0])]
        let lines = try TouchReplay(touch: touch).run(Recordings.load("egalax-tap.evemu"))
        try #require(lines.map(\.event) == ["tap"], "\(lines)")
        expectTap(lines[0], slide: 0, x: 1440, y: 540)
        // Another device keeps the default calibration.
        let other = try TouchReplay(touch: touch).run(Recordings.load("st-tap.evemu"))
        expectTap(other[0], slide: 0, x: 600, y: 400)
    }
}
