/// Under-voltage and throttling, as the kernel reports them, and the SoC's temperature.
///
/// Two kernels, two interfaces:
/// - mainline's `raspberrypi-hwmon` (Debian's kernel): an hwmon device named
///   `rpi_volt` whose `in0_lcrit_alarm` is the firmware's sticky
///   under-voltage bit, set once under-voltage happened since boot;
/// - Raspberry Pi's kernel: `get_throttled` under the firmware's platform
///   device, the same word `vcgencmd get_throttled` prints, with the bits for
///   now (0–3) and since boot (16–19).
/// A board with neither (a PC, the VM) is `unavailable`, not fine.
public struct PowerCheck: DoctorCheck {
    static let throttledPaths = ["/sys/devices/platform/soc/soc:firmware/get_throttled",
                                 "/sys/devices/platform/soc@7c000000/soc@7c000000:firmware/get_throttled"]
    /// Above this the SoC is near where the firmware starts to slow it (80 °C soft limit on a Pi 4 and 5).
    public static let hotMillidegrees = 80_000

    public init() {}

    public func run(on system: DoctorSystem) -> DoctorSection {
        var facts: [DoctorFact] = []
        var findings: [String] = []
        var status = DoctorStatus.ok
        var reported = false
        if let word = Self.throttledPaths.lazy.compactMap({ system.text($0) }).first, let throttled = ThrottledWord(text: word) {
            reported = true
            facts.append(DoctorFact("get_throttled", "0x" + String(throttled.rawValue, radix: 16)))
            facts.append(DoctorFact("now", throttled.now.isEmpty ? "none" : throttled.now.joined(separator: ", ")))
            facts.append(DoctorFact("since boot", throttled.sinceBoot.isEmpty ? "none" : throttled.sinceBoot.joined(separator: ", ")))
            if throttled.underVoltageNow {
                status = .problem
                findings.append("Under-voltage now: the power supply or its cable cannot carry the board's load. Use the official supply (5.1 V; 5 A for a Pi 5).")
            } else if throttled.underVoltageSinceBoot {
                status = max(status, .warning)
                findings.append("Under-voltage happened since boot: the supply dips under load. Use the official supply and a short, thick cable.")
            }
            if throttled.throttledNow || throttled.cappedNow {
                status = max(status, .warning)
                findings.append("The firmware is slowing the CPU now (\(throttled.now.joined(separator: ", "))): expect transitions to miss frames.")
            }
        }
        for hwmon in system.names(in: "/sys/class/hwmon") where system.text("/sys/class/hwmon/\(hwmon)/name") == "rpi_volt" {
            guard let alarm = system.text("/sys/class/hwmon/\(hwmon)/in0_lcrit_alarm") else { continue }
            reported = true
            facts.append(DoctorFact("rpi_volt in0_lcrit_alarm", alarm))
            if alarm == "1" && !findings.contains(where: { $0.hasPrefix("Under-voltage") }) {
                status = max(status, .warning)
                findings.append("Under-voltage happened since boot (raspberrypi-hwmon's alarm): the supply dips under load. Use the official supply and a short, thick cable.")
            }
        }
        for zone in system.names(in: "/sys/class/thermal") where zone.hasPrefix("thermal_zone") {
            guard let value = system.text("/sys/class/thermal/\(zone)/temp").flatMap({ Int($0) }) else { continue }
            let type = system.text("/sys/class/thermal/\(zone)/type") ?? zone
            facts.append(DoctorFact("temperature (\(type))", "\(Double(value / 100) / 10) °C"))
            if value >= Self.hotMillidegrees {
                status = max(status, .warning)
                findings.append("\(type) is at \(value / 1000) °C: near where the firmware slows the CPU. Give the board a heatsink or airflow.")
            }
        }
        guard reported else {
            return DoctorSection(id: "power", title: "Power", status: .unavailable,
                                 summary: "this kernel reports no under-voltage or throttling (no raspberrypi-hwmon, no get_throttled)",
                                 facts: facts, findings: findings)
        }
        let summary = status == .ok ? "no under-voltage or throttling" : findings.first.map { String($0.prefix { $0 != ":" }) } ?? status.rawValue
        return DoctorSection(id: "power", title: "Power", status: status, summary: summary, facts: facts, findings: findings)
    }
}

/// The firmware's throttling word (`vcgencmd get_throttled`).
struct ThrottledWord: Equatable {
    var rawValue: UInt32

    init?(text: String) {
        let digits = text.hasPrefix("0x") ? String(text.dropFirst(2)) : text
        guard let value = UInt32(digits, radix: 16) else { return nil }
        rawValue = value
    }

    private func bit(_ index: Int) -> Bool { rawValue & (1 << UInt32(index)) != 0 }
    private static let names = ["under-voltage", "ARM frequency capped", "throttled", "soft temperature limit"]

    var underVoltageNow: Bool { bit(0) }
    var cappedNow: Bool { bit(1) }
    var throttledNow: Bool { bit(2) }
    var underVoltageSinceBoot: Bool { bit(16) }
    var now: [String] { (0..<4).filter(bit).map { Self.names[$0] } }
    var sinceBoot: [String] { (16..<20).filter(bit).map { Self.names[$0 - 16] } }
}
