/// The board: its model, kernel, page size, memory and CMA.
///
/// CMA is where a Raspberry Pi's display buffers come from: scanout buffers,
/// and with the planes work a slide each. Some setups give it 64 MiB, which
/// two 4K frames nearly fill, so a low figure is a finding.
public struct BoardCheck: DoctorCheck {
    /// Below this much CMA a 4K screen cannot have its frames in it (two
    /// 3840x2160 XRGB8888 frames are 63.3 MiB).
    public static let smallCMAKiB = 128 * 1024

    public init() {}

    public func run(on system: DoctorSystem) -> DoctorSection {
        var facts: [DoctorFact] = []
        var findings: [String] = []
        // Device tree boards (every Pi) name themselves there; PCs in DMI.
        let model = system.text("/proc/device-tree/model") ?? system.text("/sys/firmware/devicetree/base/model")
            ?? [system.text("/sys/class/dmi/id/sys_vendor"), system.text("/sys/class/dmi/id/product_name")]
                .compactMap { $0 }.joined(separator: " ").nilIfEmpty
        facts.append(DoctorFact("model", model ?? "not reported"))
        if let release = system.text("/proc/sys/kernel/osrelease") { facts.append(DoctorFact("kernel", release)) }
        if let version = system.text("/proc/sys/kernel/version") { facts.append(DoctorFact("kernel build", version)) }
        if let machine = system.text("/proc/sys/kernel/arch") { facts.append(DoctorFact("architecture", machine)) }
        facts.append(DoctorFact("page size", "\(system.pageSize / 1024) KiB"))
        let memory = system.text("/proc/meminfo").map(MemoryInfo.init(meminfo:))
        if let memory {
            if let total = memory.kibibytes["MemTotal"] { facts.append(DoctorFact("memory", MemoryInfo.describe(kibibytes: total))) }
            if let available = memory.kibibytes["MemAvailable"] {
                facts.append(DoctorFact("memory available", MemoryInfo.describe(kibibytes: available)))
            }
            if let total = memory.kibibytes["CmaTotal"], let free = memory.kibibytes["CmaFree"] {
                facts.append(DoctorFact("CMA", "\(MemoryInfo.describe(kibibytes: total - free)) in use, \(MemoryInfo.describe(kibibytes: free)) free of \(MemoryInfo.describe(kibibytes: total))"))
                if total > 0 && total < Self.smallCMAKiB {
                    findings.append("CMA is \(MemoryInfo.describe(kibibytes: total)): too little for a 4K screen's frames. Raise it: `dtoverlay=vc4-kms-v3d,cma-512` in config.txt on Raspberry Pi OS, or `cma=512M` on the kernel command line with Debian's kernel (docs/raspberry-pi.md).")
                }
            } else {
                facts.append(DoctorFact("CMA", "none (the kernel has no contiguous memory area)"))
            }
        }
        let kernel: String? = facts.first { $0.name == "kernel" }.map { "Linux \($0.value)" }
        let total: String? = memory?.kibibytes["MemTotal"].map { MemoryInfo.describe(kibibytes: $0) }
        let summary = [model, kernel, total].compactMap { $0 }.joined(separator: ", ")
        return DoctorSection(id: "board", title: "Board", status: findings.isEmpty ? .ok : .warning,
                             summary: summary.isEmpty ? "nothing could be read about this board" : summary,
                             facts: facts, findings: findings)
    }
}

/// `/proc/meminfo`'s lines, in KiB by name.
struct MemoryInfo {
    var kibibytes: [String: Int] = [:]

    init(meminfo: String) {
        for line in meminfo.split(separator: "\n") {
            let parts = line.split(whereSeparator: { $0 == ":" || $0 == " " })
            guard parts.count >= 2, let value = Int(parts[1]) else { continue }
            kibibytes[String(parts[0])] = value
        }
    }

    static func describe(kibibytes: Int) -> String {
        if kibibytes >= 1024 * 1024 { return "\(Double(kibibytes * 10 / (1024 * 1024)) / 10) GiB" }
        if kibibytes >= 1024 { return "\(kibibytes / 1024) MiB" }
        return "\(kibibytes) KiB"
    }
}

extension String {
    var nilIfEmpty: String? { isEmpty ? nil : self }
}
