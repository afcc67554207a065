import VitrineAPI
import VitrineDoctor

/// The board's last health reading as `/metrics` gives it (the status's is `BoardHealthBody(_:)`, below).
enum BoardHealthReport {
    /// Prometheus lines (text format 0.0.4): each subject's status as a
    /// labelled gauge, 1 for the state it is in, so an alert can fire on
    /// `vitrine_board_health{state="problem"} == 1`.
    static func metrics(_ health: BoardHealth) -> String {
        let samples = health.subjects.flatMap { subject in
            DoctorStatus.allCases.map { "vitrine_board_health{subject=\"\(subject.id)\",state=\"\($0.rawValue)\"} \(subject.status == $0 ? 1 : 0)" }
        }
        return ([
            "# HELP vitrine_board_health The board's health by subject (power, storage), read every minute: 1 for the state it is in.",
            "# TYPE vitrine_board_health gauge",
        ] + samples + [
            "# HELP vitrine_board_findings Findings of the last health reading (under-voltage, throttling, storage errors).",
            "# TYPE vitrine_board_findings gauge",
            "vitrine_board_findings \(health.subjects.reduce(0) { $0 + $1.findings.count })",
        ]).joined(separator: "\n") + "\n"
    }
}

extension BoardHealthBody {
    /// The reading as the status, and each batch of plays uploaded, carry it.
    package init(_ health: BoardHealth) {
        self.init(status: health.status.rawValue, checkedAt: health.checkedAt.description,
                  subjects: health.subjects.map {
                      BoardHealthSubjectBody(id: $0.id, status: $0.status.rawValue, summary: $0.summary, findings: $0.findings)
                  })
    }
}
