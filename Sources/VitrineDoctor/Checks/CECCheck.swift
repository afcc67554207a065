import VitrineCEC

/// The HDMI-CEC adapters: each one's driver, physical address, and the DRM
/// connector it belongs to where the driver says (`CEC_ADAP_G_CONNECTOR_INFO`),
/// which is how the kiosk picks the TV of each output.
public struct CECCheck: DoctorCheck {
    public var directory: String

    public init(directory: String = "/dev") {
        self.directory = directory
    }

    public func run(on system: DoctorSystem) -> DoctorSection {
        let paths = CECAdapter.adapterPaths(in: system.path(directory))
        guard !paths.isEmpty else {
            return DoctorSection(id: "cec", title: "HDMI-CEC", status: .unavailable,
                                 summary: "no CEC adapter (/dev/cec*): the kiosk cannot turn a TV on or off here")
        }
        var facts: [DoctorFact] = []
        var findings: [String] = []
        for path in paths {
            let name = String(path.split(separator: "/").last ?? Substring(path))
            do {
                let info = try CECAdapter(path: path).info()
                var value = "\(info.driver) \"\(info.name)\", physical address \(info.physicalAddress)"
                value += info.drmConnector.map { ", DRM card \($0.card) connector \($0.connector)" } ?? ", no DRM connector reported"
                if !info.canTransmit {
                    value += ", cannot transmit"
                    findings.append("\(name) cannot transmit (no CEC_CAP_TRANSMIT and CEC_CAP_LOG_ADDRS): the kiosk cannot control the TV through it.")
                }
                facts.append(DoctorFact(name, value))
            } catch {
                facts.append(DoctorFact(name, "cannot be read: \(error)"))
                findings.append("\(name) cannot be read: \(error). The kiosk's user needs the `video` group (the package's unit has it).")
            }
        }
        return DoctorSection(id: "cec", title: "HDMI-CEC", status: findings.isEmpty ? .ok : .warning,
                             summary: "\(paths.count) adapter\(paths.count == 1 ? "" : "s")", facts: facts, findings: findings)
    }
}
