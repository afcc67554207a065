import FoundationEssentials
import VitrineConfig
import VitrineCore
import VitrineRuntime

/// The TV's part of `/metrics` (HDMI-CEC, `power.cec`); its part of the
/// status is `TelevisionStatusBody`.
enum TelevisionReport {
    /// Prometheus lines (text format 0.0.4): the TV's reported power as a
    /// labelled gauge (1 for the state it reported, all 0 while it does not
    /// answer), and the counters.
    static func metrics(_ status: CECTelevision.Status) -> String {
        let states = TVPowerStatus.allCases.map { "vitrine_tv_power{state=\"\($0.rawValue)\"} \(status.reported == $0 ? 1 : 0)" }
        return ([
            "# HELP vitrine_tv_power The power state the TV last reported over HDMI-CEC.",
            "# TYPE vitrine_tv_power gauge",
        ] + states + [
            "# HELP vitrine_tv_confirmed 1 while the TV reported being where the screen's power wants it.",
            "# TYPE vitrine_tv_confirmed gauge",
            "vitrine_tv_confirmed \(status.confirmed ? 1 : 0)",
            "# HELP vitrine_cec_commands_acknowledged_total Standby and Image View On commands the TV acknowledged.",
            "# TYPE vitrine_cec_commands_acknowledged_total counter",
            "vitrine_cec_commands_acknowledged_total \(status.commandsAcknowledged)",
            "# HELP vitrine_cec_delivery_failures_total CEC commands and questions that did not reach the TV.",
            "# TYPE vitrine_cec_delivery_failures_total counter",
            "vitrine_cec_delivery_failures_total \(status.deliveryFailures)",
        ]).joined(separator: "\n") + "\n"
    }
}
