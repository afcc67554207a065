import VitrineAPI
import VitrineChannel
import VitrineUpdate

/// The update helper's last report as `/metrics` gives it (the status's is `SoftwareStatusBody(_:)`, below).
enum SoftwareUpdateStatus {
    /// Prometheus lines: the last run's outcome as a labelled gauge, 1 for
    /// the outcome it had, so an alert can fire on
    /// `vitrine_software_update{outcome="failed"} == 1`.
    static func metrics(_ report: SoftwareUpdateReport) -> String {
        ([
            "# HELP vitrine_software_update The update helper's last run (docs/updates.md): 1 for the outcome it had.",
            "# TYPE vitrine_software_update gauge",
        ] + SoftwareUpdateReport.Outcome.allCases.map {
            "vitrine_software_update{outcome=\"\($0.rawValue)\"} \(report.outcome == $0 ? 1 : 0)"
        } + [
            "# HELP vitrine_software_update_timestamp_seconds When the update helper's last run ended (Unix time).",
            "# TYPE vitrine_software_update_timestamp_seconds gauge",
            "vitrine_software_update_timestamp_seconds \(report.at.secondsSinceEpoch)",
        ]).joined(separator: "\n") + "\n"
    }
}

extension SoftwareStatusBody {
    /// The report as the status, and each batch of plays uploaded, carry it.
    package init(_ report: SoftwareUpdateReport) {
        self.init(outcome: report.outcome.rawValue, at: RFC3339.format(report.at), installed: report.installed, wanted: report.wanted,
                  from: report.from, floor: report.floor, manifestVersion: report.manifestVersion, detail: report.detail)
    }
}
