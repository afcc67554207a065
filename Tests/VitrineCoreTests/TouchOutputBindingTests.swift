import Testing
@testable import VitrineCore

@Suite("Touch devices bound to outputs: configured, automatic by size or bus, default")
struct TouchOutputBindingTests {
    typealias Output = TouchOutputBinding.Output
    typealias Device = TouchOutputBinding.Device

    /// A protocol-B touchscreen `width`x`height` mm when `resolution` is given (axes in hundredths of a millimetre).
    static func device(_ name: String, bus: UInt16, vendor: UInt16 = 0, product: UInt16 = 0, phys: String? = nil,
                       millimetres: (Double, Double)? = nil) -> InputDeviceDescription {
        let resolution: Int32 = millimetres == nil ? 0 : 100
        let (w, h) = millimetres ?? (8, 4.8)
        return InputDeviceDescription(
            name: name, identity: InputDeviceIdentity(bus: bus, vendor: vendor, product: product), physicalPath: phys,
            properties: [EvdevCode.propertyDirect],
            codes: [EvdevCode.absolute: [EvdevCode.absMTSlot, EvdevCode.absMTPositionX, EvdevCode.absMTPositionY, EvdevCode.absMTTrackingID]],
            axes: [EvdevCode.absMTPositionX: AxisRange(minimum: 0, maximum: Int32((w * 100).rounded()), resolution: resolution),
                   EvdevCode.absMTPositionY: AxisRange(minimum: 0, maximum: Int32((h * 100).rounded()), resolution: resolution)])
    }

    /// The Raspberry Pi 7" panel's touch, as the firmware driver reports it (raspberrypi-ts, BUS_HOST).
    static func piPanel(sized: Bool = true) -> InputDeviceDescription {
        device("raspberrypi-ts", bus: InputBus.host, millimetres: sized ? (154.21, 85.92) : nil)
    }

    /// The same panel's FT5406 read over I2C by edt-ft5x06.
    static func ft5406(sized: Bool = true) -> InputDeviceDescription {
        device("generic ft5x06 (79)", bus: InputBus.i2c, millimetres: sized ? (154.21, 85.92) : nil)
    }

    /// A 21.5" HDMI monitor's USB touch (eGalax), its sensor a little past the picture.
    static func monitorTouch(sized: Bool = true, product: UInt16 = 0x0001, phys: String = "usb-0000:01:00.0-1.3/input0") -> InputDeviceDescription {
        device("eGalax Inc. eGalaxTouch EXC3000", bus: InputBus.usb, vendor: 0x0eef, product: product, phys: phys,
               millimetres: sized ? (479.5, 271) : nil)
    }

    static let dsi = Output(name: "DSI-1", size: MillimetreSize(width: 154, height: 86))
    static let hdmi = Output(name: "HDMI-A-1", size: MillimetreSize(width: 476, height: 268))

    func bind(_ devices: [InputDeviceDescription], _ outputs: [Output], defaultOutput: String? = nil) -> [TouchOutputBinding.Assignment] {
        TouchOutputBinding(devices: devices.map { Device($0, kind: .multitouchB) }, outputs: outputs, defaultOutput: defaultOutput).assignments
    }

    @Test func oneOutputTakesEveryDeviceAsBefore() {
        // No outputs section: the kiosk's one output, without a touch list.
        let result = bind([Self.monitorTouch(), Self.piPanel(sized: false)], [Output(name: "HDMI-A-1")])
        #expect(result.map(\.output) == ["HDMI-A-1", "HDMI-A-1"])
        // The monitor's USB touch is the output's by its bus, the panel's by default: the same output either way.
        #expect(result[0].reason == .sameBus(bus: InputBus.usb))
        #expect(result[1].reason == .firstOutput(notAutomatic: nil))
        // Even when its size and bus say so, one output with one device is still that output: automatic is the same answer.
        #expect(bind([Self.monitorTouch()], [Self.hdmi]).map(\.output) == ["HDMI-A-1"])
        #expect(bind([], [Self.hdmi]).isEmpty)
    }

    @Test func twoOutputsConfiguredByNameVendorProductAndPhysicalPath() {
        let left = Self.monitorTouch(product: 0x0001, phys: "usb-0000:01:00.0-1.1/input0")
        let right = Self.monitorTouch(product: 0x0002, phys: "usb-0000:01:00.0-1.2/input0")
        let goodix = Self.device("Goodix Capacitive TouchScreen", bus: InputBus.i2c)
        // Without configuration the two identical monitors cannot be told apart...
        let unconfigured = bind([left, right], [Output(name: "HDMI-A-1"), Output(name: "HDMI-A-2")])
        #expect(unconfigured.map(\.output) == ["HDMI-A-1", "HDMI-A-1"])
        // ...by vendor:product they can,
        let byIdentity = bind([left, right], [Output(name: "HDMI-A-1", touch: [.init("0eef:0002")]), Output(name: "HDMI-A-2", touch: [.init("0eef:0001")])])
        #expect(byIdentity.map(\.output) == ["HDMI-A-2", "HDMI-A-1"])
        #expect(byIdentity[0].reason == .configured(matcher: .init("0eef:0001"), alsoListedBy: []))
        // by the USB port they are plugged into (a prefix of the physical path),
        let byPort = bind([left, right], [Output(name: "HDMI-A-1", touch: [.init(physicalPathPrefix: "usb-0000:01:00.0-1.2")]),
                                          Output(name: "HDMI-A-2", touch: [.init(physicalPathPrefix: "usb-0000:01:00.0-1.1")])])
        #expect(byPort.map(\.output) == ["HDMI-A-2", "HDMI-A-1"])
        #expect(byPort[1].reason.description == #"configured: its touch list has "phys: usb-0000:01:00.0-1.2""#)
        // and by a part of the name, ignoring case.
        let byName = bind([goodix, left], [Output(name: "HDMI-A-1", touch: [.init("egalax")]), Output(name: "DSI-1", touch: [.init("goodix")])])
        #expect(byName.map(\.output) == ["DSI-1", "HDMI-A-1"])
    }

    @Test func theFirstListedOutputWinsAndTheOthersAreReported() {
        let outputs = [Output(name: "HDMI-A-1", touch: [.init("Goodix"), .init("touch")]), Output(name: "HDMI-A-2", touch: [.init("0eef:0001")]),
                       Output(name: "DSI-1", touch: [.init("eGalax")])]
        let result = bind([Self.monitorTouch()], outputs)
        #expect(result[0].output == "HDMI-A-1")
        #expect(result[0].reason == .configured(matcher: .init("touch"), alsoListedBy: ["HDMI-A-2", "DSI-1"]))
        #expect(result[0].reason.description
            == #"configured: its touch list has "touch"; also listed by HDMI-A-2, DSI-1, which come later: the first listed wins"#)
    }

    @Test func aPiPanelBesideAnHDMIMonitorBindsBySize() {
        // The 7" panel's sensor is 154.21x85.92 mm, its connector reports 154x86; the monitor's sensor is 3.5 mm wider than its picture.
        let result = bind([Self.monitorTouch(), Self.piPanel()], [Self.hdmi, Self.dsi])
        #expect(result.map(\.output) == ["HDMI-A-1", "DSI-1"])
        #expect(result[1].reason == .sameSize(device: MillimetreSize(width: 154.21, height: 85.92), output: MillimetreSize(width: 154, height: 86)))
        #expect(result[1].reason.description == "automatic by size: 154.2x85.9 mm is within 10 mm of the display's 154x86 mm")
        // Listed the other way round, the same.
        #expect(bind([Self.piPanel(), Self.monitorTouch()], [Self.dsi, Self.hdmi]).map(\.output) == ["DSI-1", "HDMI-A-1"])
    }

    @Test func aPiPanelBesideAnHDMIMonitorBindsByBusWhenNoSizeIsKnown() {
        // raspberrypi-ts reports no resolution, the DSI connector may report no size: the buses still tell them apart.
        for panel in [Self.piPanel(sized: false), Self.ft5406(sized: false)] {
            let result = bind([Self.monitorTouch(sized: false), panel], [Output(name: "HDMI-A-1"), Output(name: "DSI-1")])
            #expect(result.map(\.output) == ["HDMI-A-1", "DSI-1"], "\(panel.name)")
            #expect(result[0].reason == .sameBus(bus: InputBus.usb))
            #expect(result[1].reason == .sameBus(bus: panel.identity!.bus))
        }
        #expect(TouchOutputBinding.Reason.sameBus(bus: InputBus.i2c).description
            == "automatic by bus: a touch controller on I2C, the only one where this kind of display has its touch")
        // The panel alone (the monitor has no touch): still the panel's.
        #expect(bind([Self.ft5406(sized: false)], [Output(name: "HDMI-A-1"), Output(name: "DSI-1")]).map(\.output) == ["DSI-1"])
        // Size comes first: a size that singles out the panel wins over a bus that points elsewhere.
        let usbPanel = Self.device("USB panel touch", bus: InputBus.usb, millimetres: (154.21, 85.92))
        #expect(bind([usbPanel], [Self.hdmi, Self.dsi])[0].reason == .sameSize(device: MillimetreSize(width: 154.21, height: 85.92),
                                                                               output: MillimetreSize(width: 154, height: 86)))
    }

    @Test func ambiguityFallsBackToTheFirstOutputAndSaysWhy() {
        // Two identical monitors and their identical touches: size and bus each fit both ways.
        let second = Output(name: "HDMI-A-2", size: MillimetreSize(width: 476, height: 268))
        let result = bind([Self.monitorTouch(product: 1), Self.monitorTouch(product: 2)], [Self.hdmi, second])
        #expect(result.map(\.output) == ["HDMI-A-1", "HDMI-A-1"])
        #expect(result[0].reason == .firstOutput(notAutomatic: "its size fits HDMI-A-1 and HDMI-A-2; its bus fits HDMI-A-1 and HDMI-A-2"))
        #expect(result[0].reason.description == "default: no touch list names it, and no size or bus singles out an output"
            + " (its size fits HDMI-A-1 and HDMI-A-2; its bus fits HDMI-A-1 and HDMI-A-2)")
        // Two devices of one output's size, one output: neither is singled out.
        let twoPanels = bind([Self.piPanel(), Self.ft5406()], [Self.hdmi, Self.dsi])
        #expect(twoPanels.map(\.output) == ["HDMI-A-1", "HDMI-A-1"])
        #expect(twoPanels[0].reason == .firstOutput(notAutomatic: "DSI-1's size fits 2 devices; DSI-1's bus fits 2 devices"))
        // One USB device, two HDMI outputs of unknown size: the bus fits both.
        #expect(bind([Self.monitorTouch(sized: false)], [Output(name: "HDMI-A-1"), Output(name: "HDMI-A-2")])[0].reason
            == .firstOutput(notAutomatic: "its bus fits HDMI-A-1 and HDMI-A-2"))
    }

    @Test func sizesAgreeWithinTenMillimetresEachWayOrTurned() {
        let display = MillimetreSize(width: 476, height: 268)
        #expect(MillimetreSize(width: 486, height: 258).matches(display, within: TouchOutputBinding.sizeTolerance))
        #expect(!MillimetreSize(width: 486.5, height: 268).matches(display, within: TouchOutputBinding.sizeTolerance))
        #expect(!MillimetreSize(width: 476, height: 278.5).matches(display, within: TouchOutputBinding.sizeTolerance))
        #expect(MillimetreSize(width: 268, height: 476).matches(display, within: TouchOutputBinding.sizeTolerance))
        // 23" and 24" monitors are told apart; the 7" and 10.1" panels too.
        #expect(!MillimetreSize(width: 509, height: 286).matches(MillimetreSize(width: 531, height: 299), within: TouchOutputBinding.sizeTolerance))
        #expect(!MillimetreSize(width: 154, height: 86).matches(MillimetreSize(width: 217, height: 136), within: TouchOutputBinding.sizeTolerance))
        #expect(MillimetreSize(reportedWidth: 0, height: 268) == nil)
        // A sensor 11 mm off the display is not that display's: the device falls to the default.
        let off = Self.device("big sensor", bus: InputBus.virtual, millimetres: (165.5, 86))
        #expect(bind([off], [Self.hdmi, Self.dsi])[0].reason == .firstOutput(notAutomatic: nil))
    }

    @Test func outputsWithATouchListTakeNothingElse() {
        // `touch: []`: the lobby television has no touch, so the panel's bus need not be guessed.
        let outputs = [Output(name: "HDMI-A-1", touch: []), Output(name: "DSI-1")]
        let result = bind([Self.monitorTouch(sized: false)], outputs)
        #expect(result[0].output == "DSI-1")
        #expect(result[0].reason == .firstOutput(notAutomatic: nil))
        // Every output lists its own: a device none lists is not used.
        let listed = bind([Self.monitorTouch()], [Output(name: "HDMI-A-1", touch: [.init("Goodix")]), Output(name: "DSI-1", touch: [])])
        #expect(listed[0].output == nil && listed[0].reason == .listedByNone)
        #expect(bind([Self.monitorTouch()], [])[0].reason == .noOutput)
    }

    @Test func outputsNotDrivenKeepTheirDevicesAndGetNoOthers() {
        let outputs = [Output(name: "HDMI-A-1", isDriven: false), Output(name: "HDMI-A-2", touch: [.init("0eef:0002")], isDriven: false),
                       Output(name: "DSI-1")]
        let result = bind([Self.monitorTouch(sized: false, product: 1), Self.monitorTouch(sized: false, product: 2)], outputs)
        // The first would go to HDMI-A-1 by bus if it were there; it is not, so the default: the first driven output.
        #expect(result[0].output == "DSI-1" && result[0].reason == .firstOutput(notAutomatic: nil))
        // The second is configured for an output that is not there: it pages nothing.
        #expect(result[1].output == "HDMI-A-2")
        #expect(bind([Self.monitorTouch()], [Output(name: "HDMI-A-1", isDriven: false)])[0].reason == .noOutput)
    }

    @Test func anExplicitDefaultTakesWhatNoRuleBinds() {
        let result = bind([Self.monitorTouch(product: 1), Self.ft5406(sized: false)], [Output(name: "HDMI-A-1"), Output(name: "HDMI-A-2"), Output(name: "DSI-1")],
                          defaultOutput: "HDMI-A-2")
        #expect(result.map(\.output) == ["HDMI-A-2", "DSI-1"])
    }

    @Test func physicalPathPatterns() {
        let pattern = InputDevicePattern(physicalPathPrefix: "usb-0000:01:00.0-1.3")
        #expect(pattern.matches(Self.monitorTouch(phys: "usb-0000:01:00.0-1.3/input0")))
        #expect(!pattern.matches(Self.monitorTouch(phys: "usb-0000:01:00.0-1.2/input0")))
        #expect(!pattern.matches(Self.piPanel()), "a device without a physical path is at no known place")
        #expect(!InputDevicePattern(physicalPathPrefix: "").matches(Self.device("empty phys", bus: 3, phys: "")))
        #expect(!pattern.isIdentity && pattern.isPhysicalPath)
        #expect(pattern.description == "phys: usb-0000:01:00.0-1.3")
        // A name part spelled like a path is another pattern.
        #expect(InputDevicePattern("usb-0000:01:00.0-1.3") != pattern)
        #expect(!InputDevicePattern("usb-0000:01:00.0-1.3").matches(Self.monitorTouch(phys: "usb-0000:01:00.0-1.3/input0")))
        #expect(InputBus.name(InputBus.i2c) == "I2C" && InputBus.name(0x10) == "bus 0x10")
    }

    @Test func theContextDefaultsToItsOwnOutputUntilPlanned() throws {
        var context = TouchOutputContext(taken: ["DSI-1"], outputs: [Output(name: "HDMI-A-1"), Output(name: "DSI-1")])
        let devices = [Device(Self.device("virtio tablet", bus: InputBus.virtual), kind: .multitouchB)]
        // Not planned: HDMI-A-1 may not be there; the kiosk of DSI-1 takes the device as before.
        #expect(context.binding(devices).assignments[0].output == "DSI-1")
        // Planned with HDMI-A-1 driven: the first output's.
        let connectors = [OutputPlan.Connector(name: "HDMI-A-1", status: .connected, widthMillimetres: 476, heightMillimetres: 268,
                                               modes: [OutputMode(width: 1920, height: 1080, refreshMillihertz: 60_000, isPreferred: true)],
                                               possibleCRTCs: [0, 1]),
                          OutputPlan.Connector(name: "DSI-1", status: .connected, modes: [OutputMode(width: 800, height: 480, refreshMillihertz: 60_000, isPreferred: true)],
                                               possibleCRTCs: [0, 1])]
        let layout = OutputLayout([ConfiguredOutput(name: "HDMI-A-1"), ConfiguredOutput(name: "DSI-1")])
        context.plan(OutputPlan(layout: layout, single: .init(), connectors: connectors, crtcCount: 2), connectors: connectors)
        #expect(context.isPlanned)
        #expect(context.outputs.map(\.size) == [MillimetreSize(width: 476, height: 268), nil])
        let planned = context.binding(devices).assignments[0]
        #expect(planned.output == "HDMI-A-1" && !context.takes(planned))
        // The monitor's touch by size once sizes are known.
        let monitor = context.binding([Device(Self.monitorTouch(), kind: .multitouchB)]).assignments[0]
        #expect(monitor.reason == .sameSize(device: MillimetreSize(width: 479.5, height: 271), output: MillimetreSize(width: 476, height: 268)))
        // HDMI-A-1 unplugged: not driven, so the default goes to DSI-1.
        var unplugged = connectors
        unplugged[0].status = .disconnected
        context.plan(OutputPlan(layout: layout, single: .init(), connectors: unplugged, crtcCount: 2), connectors: unplugged)
        let alone = context.binding(devices).assignments[0]
        #expect(alone.output == "DSI-1" && context.takes(alone))
    }
}
