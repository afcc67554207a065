import Testing
import VitrineConfig
import VitrineCore
@testable import VitrineRuntime

/// What `TouchInput` opens on each scan: the devices `TouchInputSettings.outputChoice`
/// gives this kiosk, from the configuration as its output shows it.
@Suite("Touch input: each output's kiosk takes its own devices")
struct TouchOutputChoiceTests {
    static func screen(_ name: String, bus: UInt16, vendor: UInt16 = 0, product: UInt16 = 0, phys: String? = nil) -> TouchOutputBinding.Device {
        let description = InputDeviceDescription(
            name: name, identity: InputDeviceIdentity(bus: bus, vendor: vendor, product: product), physicalPath: phys,
            properties: [EvdevCode.propertyDirect],
            codes: [EvdevCode.absolute: [EvdevCode.absMTSlot, EvdevCode.absMTPositionX, EvdevCode.absMTPositionY, EvdevCode.absMTTrackingID]],
            axes: [EvdevCode.absMTPositionX: AxisRange(minimum: 0, maximum: 4095), EvdevCode.absMTPositionY: AxisRange(minimum: 0, maximum: 4095)])
        return TouchOutputBinding.Device(description, kind: .multitouchB)
    }

    static let panel = screen("raspberrypi-ts", bus: InputBus.host)
    static let monitor = screen("eGalax Inc. eGalaxTouch EXC3000", bus: InputBus.usb, vendor: 0x0eef, product: 0x0001,
                                phys: "usb-0000:01:00.0-1.3/input0")
    static let tablet = screen("QEMU Virtio Tablet", bus: InputBus.virtual)
    static let output = PixelSize(width: 1920, height: 1080)

    func settings(_ configuration: KioskConfiguration) -> TouchInputSettings {
        TouchInputSettings(configuration.touch, rotation: DisplayRotation(rawValue: configuration.output.rotation) ?? .none, output: Self.output)
    }

    @Test func withoutOutputsEveryDeviceIsTakenAsBefore() throws {
        let plain = try ConfigLoader.parse("slides: [a.jpg]")
        for c in [plain, plain.shown(onOutput: "HDMI-A-1")] {
            let chosen = settings(c).outputChoice([Self.panel, Self.monitor, Self.tablet])
            #expect(chosen.map(\.takes) == [true, true, true])
            #expect(chosen.allSatisfy { $0.assignment == nil })
        }
        #expect(settings(plain).outputs == nil)
    }

    @Test func eachKioskTakesOnlyItsOutputsDevices() throws {
        let c = try ConfigLoader.parse("""
            schedule: {playlists: {lobby: [a.jpg], menu: [b.jpg]}, otherwise: lobby}
            output: {rotation: 180}
            outputs:
              - {name: HDMI-A-1, playlist: lobby, touch: ["0eef:0001"]}
              - {name: DSI-1, playlist: menu, rotation: 90}
              - {name: HDMI-A-2, mirror: DSI-1, rotation: 0}
            """)
        let devices = [Self.panel, Self.monitor]
        let lobby = settings(c.shown(onOutput: "HDMI-A-1")), menu = settings(c.shown(onOutput: "DSI-1"))
        // The monitor is configured for HDMI-A-1; the panel is the only device left for DSI-1 and its mirror.
        #expect(lobby.outputChoice(devices).map(\.takes) == [false, true])
        #expect(menu.outputChoice(devices).map(\.takes) == [true, false])
        // Every kiosk binds the same way: each device is taken exactly once.
        #expect(menu.outputChoice(devices).map(\.assignment) == lobby.outputChoice(devices).map(\.assignment))
        #expect(menu.outputChoice(devices)[0].assignment?.output == "DSI-1")
        // The panel's touches turn with the panel; the monitor's with its output (output.rotation).
        #expect(menu.rotation(for: menu.outputChoice(devices)[0].assignment) == .quarter)
        #expect(lobby.rotation(for: lobby.outputChoice(devices)[1].assignment) == .half)
        // A touch on the mirror, mounted upright, turns with the mirror.
        var mirrored = menu
        mirrored.outputs?.outputs[2].touch = [InputDevicePattern("Virtio")]
        let onMirror = mirrored.outputChoice([Self.tablet])[0]
        #expect(onMirror.takes && onMirror.assignment?.output == "HDMI-A-2" && mirrored.rotation(for: onMirror.assignment) == DisplayRotation.none)
        #expect(menu.rotation(for: nil) == .quarter)
    }

    @Test func aDeviceLeavingOrComingCanMoveAnother() throws {
        let c = try ConfigLoader.parse("outputs: [{name: HDMI-A-1}, {name: HDMI-A-2}, {name: DSI-1}]")
        let panel = settings(c.shown(onOutput: "DSI-1"))
        // Not planned yet: the tablet (no bus hint) goes to this kiosk's own output, the panel to DSI-1 by bus.
        #expect(panel.outputChoice([Self.tablet, Self.panel]).map(\.takes) == [true, true])
        // The second HDMI kiosk does not take the panel.
        #expect(settings(c.shown(onOutput: "HDMI-A-2")).outputChoice([Self.tablet, Self.panel]).map(\.takes) == [true, false])
        // A second host-bus device: neither is singled out by bus, so both fall to the default: this kiosk's own output until planned.
        let second = Self.screen("another panel", bus: InputBus.i2c)
        var planned = panel
        planned.outputs?.plan(OutputPlan(layout: c.outputs, single: .init(), connectors: Self.connectors, crtcCount: 3), connectors: Self.connectors)
        #expect(planned.outputChoice([Self.panel]).map(\.takes) == [true])
        #expect(planned.outputChoice([Self.panel, second]).map(\.takes) == [false, false], "both go to HDMI-A-1, the first output, once planned")
        #expect(planned.outputChoice([Self.panel, second])[0].assignment?.reason == .firstOutput(notAutomatic: "DSI-1's bus fits 2 devices"))
    }

    static let connectors = ["HDMI-A-1", "HDMI-A-2", "DSI-1"].map {
        OutputPlan.Connector(name: $0, status: .connected, modes: [OutputMode(width: 800, height: 480, refreshMillihertz: 60_000, isPreferred: true)],
                             possibleCRTCs: [0, 1, 2])
    }
}
