import VitrineSystem
import VitrineUpdate

/// The vitrine package and its updates (docs/updates.md): the version dpkg
/// has installed, Vitrine's apt source, the update helper and its pin, and
/// the helper's last run. Read as any user may read them (`dpkg-query`, apt's
/// configuration, the helper's report), so the kiosk's own doctor gives it too.
public struct SoftwareCheck: DoctorCheck {
    /// The installed vitrine version, nil when dpkg has none installed. dpkg's
    /// database is its own to read (`dpkg-query`), not a file format to parse.
    let installedVersion: @Sendable () -> String?
    static let aptSource = "/etc/apt/sources.list.d/vitrine.sources"
    static let helperUnits = ["/etc/systemd/system/vitrine-update.path", "/lib/systemd/system/vitrine-update.path",
                              "/usr/lib/systemd/system/vitrine-update.path"]

    public init() {
        self.init(installedVersion: Self.askDpkg)
    }

    init(installedVersion: @escaping @Sendable () -> String?) {
        self.installedVersion = installedVersion
    }

    static func askDpkg() -> String? {
        guard let run = try? ProgramOutput.run("/usr/bin/dpkg-query", ["-W", "-f=${db:Status-Abbrev}|${Version}", "vitrine"]),
              run.ending == .exited(0) else { return nil }
        return DebianUpdateSystem.installed(fromQuery: run.output)
    }

    public func run(on system: DoctorSystem) -> DoctorSection {
        guard let version = installedVersion() else {
            return DoctorSection(id: "software", title: "Software", status: .unavailable,
                                 summary: "vitrine is not installed from its package (deploy/install.sh or a build): apt and the fleet channel do not update it")
        }
        var facts = [DoctorFact("package", "vitrine \(version)")]
        var findings: [String] = []
        var status = DoctorStatus.ok
        // Not a finding: a board installed from the .deb alone is updated by hand, on purpose.
        let source = system.exists(Self.aptSource)
        facts.append(DoctorFact("apt source", source ? Self.aptSource
            : "none: updated by hand; add Vitrine's apt source for apt upgrade and the fleet channel (docs/apt-repository.md)"))
        let helper = Self.helperUnits.contains(where: system.exists)
        facts.append(DoctorFact("update helper", helper ? "vitrine-update.path installed" : "not installed"))
        let pin = system.text(DebianUpdateSystem.standardPinFile)?.split(separator: "\n").first { $0.hasPrefix("Pin: version ") }
        facts.append(DoctorFact("apt pin", pin.map { String($0.dropFirst("Pin: version ".count)) } ?? "none"))

        let reportPath = SoftwareUpdateReport.standardDirectory + "/" + SoftwareUpdateReport.fileName
        if let bytes = system.text(reportPath, limit: 64 << 10), case .success(let report) = SoftwareUpdateReport.parse(Array(bytes.utf8)) {
            facts.append(DoctorFact("last update", "\(report.outcome.rawValue) at \(report.at)"))
            if let floor = report.floor { facts.append(DoctorFact("floor", floor)) }
            switch report.outcome {
            case .installed, .unchanged, .unmanaged:
                break
            case .rolledBack, .refused:
                status = .warning
                findings.append("The last update was \(report.outcome.rawValue): \(report.detail)")
            case .failed:
                status = .problem
                findings.append("The last update failed and needs a person (journalctl -u vitrine-update): \(report.detail)")
            }
        } else {
            facts.append(DoctorFact("last update", "none"))
        }
        let summary = findings.isEmpty ? "vitrine \(version)" + (pin.map { ", held by the channel (\($0))" } ?? "")
            + (source ? "" : ", no apt source (updated by hand)")
            : findings[0].prefix { $0 != ":" } + ""
        return DoctorSection(id: "software", title: "Software", status: status, summary: summary, facts: facts, findings: findings)
    }
}
