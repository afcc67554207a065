import VitrineConfig
import VitrineCore
import VitrineEvdev
import VitrineRuntime

/// The input devices and what the kiosk makes of each: used as which kind of
/// touch source and why, or left out and why (`vitrine touch list` in short).
public struct TouchCheck: DoctorCheck {
    public var directory: String
    /// The configuration's touch section, whose include, exclude and calibrations apply.
    public var touch: TouchConfiguration

    public init(directory: String = "/dev/input", touch: TouchConfiguration = TouchConfiguration()) {
        self.directory = directory
        self.touch = touch
    }

    public func run(on system: DoctorSystem) -> DoctorSection {
        let paths = EvdevDevice.devicePaths(in: system.path(directory))
        guard !paths.isEmpty else {
            return DoctorSection(id: "touch", title: "Touch", status: .unavailable, summary: "no input devices (\(directory) has no event*)")
        }
        let settings = TouchInputSettings(touch, output: PixelSize(width: 1920, height: 1080))
        var facts: [DoctorFact] = []
        var used = 0
        var unreadable: [String] = []
        for path in paths {
            let name = String(path.split(separator: "/").last ?? Substring(path))
            do {
                let device = try EvdevDevice(path: path).description
                let decision = settings.selection.decide(device)
                switch decision.status {
                case .used:
                    used += 1
                    var size = ""
                    if let mapper = settings.model(for: device).model?.mapper, let width = mapper.xAxis.lengthMillimetres,
                       let height = mapper.yAxis.lengthMillimetres {
                        size = ", \(Int(width.rounded()))x\(Int(height.rounded())) mm"
                    }
                    facts.append(DoctorFact(name, "\"\(device.name)\": \(decision.kind?.rawValue ?? "touch")\(size): \(decision.reason)"))
                case .unsupported: facts.append(DoctorFact(name, "\"\(device.name)\": cannot use it: \(decision.reason)"))
                case .notTouch, .leftOut: facts.append(DoctorFact(name, "\"\(device.name)\": not used: \(decision.reason)"))
                }
            } catch {
                unreadable.append(name)
                facts.append(DoctorFact(name, "cannot be read: \(error)"))
            }
        }
        let findings = unreadable.isEmpty ? [] : ["\(unreadable.joined(separator: ", ")) cannot be read: the kiosk's user needs the `input` group (the package's unit has it)."]
        return DoctorSection(id: "touch", title: "Touch", status: unreadable.isEmpty ? .ok : .warning,
                             summary: used == 0 ? "no touch device in use" : "\(used) touch device\(used == 1 ? "" : "s") in use",
                             facts: facts, findings: findings)
    }
}
