/// Which output each touch device pages, and why: a pure decision on the
/// touch devices found and the outputs a board drives (docs/configuration.md,
/// `outputs[].touch`). Every kiosk of a board makes it from the same inputs,
/// so each takes the devices bound to its own outputs and no other.
///
/// In this order, for each device:
/// 1. **configured**: the first output (in the configuration's order) whose
///    `touch` list has a matcher for it (a name part, vendor:product or a
///    physical path prefix: `InputDevicePattern`, the rules `touch.include`
///    uses). Later outputs that list it too lose, and are reported. An
///    output that is not driven keeps the devices it lists: touches on a
///    screen that is not there page nothing;
/// 2. **automatic, by size**: among the devices not configured and the
///    driven outputs without a `touch` list, a device and an output whose
///    physical sizes agree within `sizeTolerance`, when neither agrees with
///    any other of them;
/// 3. **automatic, by bus**: then, among those still left, a device on a bus
///    the output's connector suggests (a DSI or eDP panel's controller on
///    I2C, SPI or the host; an HDMI or DisplayPort monitor's on USB or
///    RS-232), when neither suggests another of them;
/// 4. **default**: `defaultOutput`, else the first driven output without a
///    `touch` list: with one output, every device, which is what the kiosk
///    did before outputs had touch. When every driven output lists its own,
///    a device none lists is not used.
public struct TouchOutputBinding: Hashable, Sendable {
    /// How far apart, in millimetres on each side, a sensor's size and a
    /// display's may be and still be the same screen. A display's size comes
    /// from its EDID, in whole millimetres in a detailed timing, or in whole
    /// centimetres in the base block when there is none (up to 10 mm off);
    /// a touch sensor's active area often reaches a few millimetres past the
    /// picture, under the frame. Screens one size step apart differ by more:
    /// 7" (154x86) and 10.1" (217x136), 23" (509x286) and 24" (531x299).
    public static let sizeTolerance = 10.0

    /// An output as the binding sees it.
    public struct Output: Hashable, Sendable {
        /// The connector's kernel name: `HDMI-A-1`, `DSI-1`.
        public var name: String
        /// Its `touch` list; nil when the configuration gives none.
        public var touch: [InputDevicePattern]?
        /// Its display's size, as the connector reports it; nil when unknown.
        public var size: MillimetreSize?
        /// Whether the board drives it now. Automatic and default binding go
        /// to driven outputs only.
        public var isDriven: Bool

        public init(name: String, touch: [InputDevicePattern]? = nil, size: MillimetreSize? = nil, isDriven: Bool = true) {
            self.name = name
            self.touch = touch
            self.size = size
            self.isDriven = isDriven
        }

        /// The buses a touch controller for its connector's kind of display is
        /// found on; nil when the kind says nothing (Virtual, composite TV).
        public var expectedBuses: Set<UInt16>? {
            guard let dash = name.lastIndex(of: "-") else { return nil }
            switch name[..<dash] {
            case "DSI", "DPI", "eDP", "LVDS", "SPI":
                // A panel built in: its controller sits on the board's I2C or SPI
                // (FT5x06, Goodix, ADS7846), or is read by firmware (raspberrypi-ts, BUS_HOST).
                return [InputBus.i2c, InputBus.spi, InputBus.host]
            case "HDMI-A", "HDMI-B", "DP", "DVI-I", "DVI-D", "DVI-A", "VGA", "USB":
                // A monitor with a cable: its touch comes back over USB, or a serial line on old ones.
                return [InputBus.usb, InputBus.rs232]
            default:
                return nil
            }
        }
    }

    /// A touch device as the binding sees it.
    public struct Device: Hashable, Sendable {
        public var description: InputDeviceDescription
        /// The sensor's size from its position axes' resolution; nil when it reports none.
        public var size: MillimetreSize?

        public init(_ description: InputDeviceDescription, size: MillimetreSize?) {
            self.description = description
            self.size = size
        }

        /// A device decoded as `kind`: its size from the axes that kind reads.
        public init(_ description: InputDeviceDescription, kind: TouchDeviceKind) {
            let axes = description.positionAxes(for: kind)
            let size = axes.x?.lengthMillimetres.flatMap { width in
                axes.y?.lengthMillimetres.flatMap { MillimetreSize(reportedWidth: width, height: $0) }
            }
            self.init(description, size: size)
        }
    }

    /// Why a device goes where it goes.
    public enum Reason: Hashable, Sendable, CustomStringConvertible {
        /// Its output's `touch` list has `matcher`; `alsoListedBy`: the outputs
        /// listed after it whose lists match it too, which lose.
        case configured(matcher: InputDevicePattern, alsoListedBy: [String])
        /// Its size and the output's agree within `sizeTolerance`, and no other's do.
        case sameSize(device: MillimetreSize, output: MillimetreSize)
        /// It is on `bus`, which the output's connector suggests, and no other's is.
        case sameBus(bus: UInt16)
        /// No rule bound it; `notAutomatic` says why a size or bus did not, when one was near.
        case firstOutput(notAutomatic: String?)
        /// Every driven output lists its own touch devices, and none lists it.
        case listedByNone
        /// No output is driven.
        case noOutput

        public var description: String {
            switch self {
            case .configured(let matcher, let also):
                let lost = also.isEmpty ? "" : "; also listed by \(also.joined(separator: ", ")), which come later: the first listed wins"
                return "configured: its touch list has \"\(matcher)\"\(lost)"
            case .sameSize(let device, let output):
                return "automatic by size: \(device) is within \(Int(TouchOutputBinding.sizeTolerance)) mm of the display's \(output)"
            case .sameBus(let bus):
                return "automatic by bus: a touch controller on \(InputBus.name(bus)), the only one where this kind of display has its touch"
            case .firstOutput(let why):
                return "default: no touch list names it, and no size or bus singles out an output" + (why.map { " (\($0))" } ?? "")
            case .listedByNone:
                return "not used: every driven output lists its own touch devices, and none lists this one"
            case .noOutput:
                return "not used: no output is driven"
            }
        }
    }

    /// Where one device goes.
    public struct Assignment: Hashable, Sendable {
        /// The output's name; nil: the device is not used.
        public var output: String?
        public var reason: Reason
    }

    /// One per device, in the order given.
    public let assignments: [Assignment]

    /// Binds `devices` to `outputs`, given in the configuration's order. A
    /// device no rule binds goes to `defaultOutput` when given (a kiosk that
    /// does not know yet which outputs are driven takes them itself), else to
    /// the first driven output without a `touch` list.
    public init(devices: [Device], outputs: [Output], defaultOutput: String? = nil) {
        var assigned = [Assignment?](repeating: nil, count: devices.count)
        // 1. Configured.
        for (index, device) in devices.enumerated() {
            let listing = outputs.compactMap { output in
                output.touch?.first { $0.matches(device.description) }.map { (output.name, $0) }
            }
            if let (name, matcher) = listing.first {
                assigned[index] = Assignment(output: name, reason: .configured(matcher: matcher, alsoListedBy: listing.dropFirst().map(\.0)))
            }
        }
        let open = outputs.indices.filter { outputs[$0].touch == nil && outputs[$0].isDriven }
        // 2 and 3. Automatic, each on what the one before left.
        var near: [Int: [String]] = [:]
        let rules: [(String, (Device, Output) -> Bool, (Device, Output) -> Reason)] = [
            ("size", { d, o in
                guard let a = d.size, let b = o.size else { return false }
                return a.matches(b, within: Self.sizeTolerance)
            }, { d, o in .sameSize(device: d.size!, output: o.size!) }),
            ("bus", { d, o in
                guard let bus = d.description.identity?.bus, let buses = o.expectedBuses else { return false }
                return buses.contains(bus)
            }, { d, _ in .sameBus(bus: d.description.identity!.bus) }),
        ]
        for (what, shares, reason) in rules {
            let free = devices.indices.filter { assigned[$0] == nil }
            let left = open.filter { o in !assigned.contains { $0?.output == outputs[o].name } }
            let pairs = free.flatMap { d in left.filter { shares(devices[d], outputs[$0]) }.map { (d, $0) } }
            for d in free {
                let mine = pairs.filter { $0.0 == d }
                guard let (_, o) = mine.first else { continue }
                let rivals = pairs.filter { $0.1 == o && $0.0 != d }.count
                if mine.count == 1, rivals == 0 {
                    assigned[d] = Assignment(output: outputs[o].name, reason: reason(devices[d], outputs[o]))
                } else if mine.count > 1 {
                    near[d, default: []].append("its \(what) fits \(mine.map { outputs[$0.1].name }.joined(separator: " and "))")
                } else {
                    near[d, default: []].append("\(outputs[o].name)'s \(what) fits \(rivals + 1) devices")
                }
            }
        }
        // 4. Default.
        let fallback = defaultOutput ?? open.first.map { outputs[$0].name }
        let anyDriven = outputs.contains(where: \.isDriven) || defaultOutput != nil
        assignments = devices.indices.map { index in
            if let done = assigned[index] { return done }
            if let fallback {
                return Assignment(output: fallback, reason: .firstOutput(notAutomatic: near[index]?.joined(separator: "; ")))
            }
            return Assignment(output: nil, reason: anyDriven ? .listedByNone : .noOutput)
        }
    }
}
