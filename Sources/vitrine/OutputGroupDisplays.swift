import Logging
import VitrineConfig
import VitrineCore
import VitrineDRM
import VitrineRuntime

/// The displays of a plan that drives several outputs: each output on a DRM
/// lease of its own (`DRMOutputLease`), and one display per output group
/// (`OutputPlan.groups`), each for a display loop of its own.
///
/// How the groups are put together from the outputs that open, and what
/// happens to those that do not, is `OutputGroupAssembly`'s.
enum OutputGroupDisplays {
    static func open(_ plan: OutputPlan, connectors: [OutputPlan.Connector], on card: DRMCard,
                     configuration: KioskConfiguration, logger: Logger) throws -> KioskDisplays {
        let interface = DRMInterfacePreference(rawValue: configuration.output.modesetting.rawValue) ?? .auto
        let groups = try OutputGroupAssembly.displays(for: plan, connectors: connectors, logger: logger) { output in
            try leased(output, waiting: plan.waiting.contains(output), from: card, interface: interface, logger: logger)
        }
        return KioskDisplays(groups: groups, keepAlive: [card])
    }

    /// Several outputs without a card: each an in-memory display of its mode's
    /// size (`HeadlessOutputs`), its preview PNG, if any, named after it
    /// (`preview.png` becomes `preview-HDMI-A-2.png`).
    static func headless(_ layout: OutputLayout, configuration: KioskConfiguration, logger: Logger) throws -> KioskDisplays {
        let connectors = HeadlessOutputs.connectors(for: layout, size: configuration.outputSize)
        let plan = OutputPlan(layout: layout, single: configuration.singleOutput, connectors: connectors, crtcCount: connectors.count)
        for problem in plan.problems { logger.warning("outputs: \(problem)") }
        let preview = configuration.output.preview == "off" ? nil : configuration.output.preview
        let groups = try OutputGroupAssembly.displays(for: plan, connectors: connectors, logger: logger) { output in
            HeadlessDisplay(size: output.mode.size, previewPath: preview.map { Self.previewPath($0, for: output.connector) }, logger: logger)
        }
        return KioskDisplays(groups: groups)
    }

    static func previewPath(_ path: String, for output: String) -> String {
        guard let dot = path.lastIndex(of: "."), !path[dot...].contains("/") else { return path + "-" + output }
        return path[..<dot] + "-" + output + path[dot...]
    }

    /// One output on a lease of its own, in the plan's mode; a hotplug asks for that mode again.
    /// A `waiting` one (missing, `whenMissing: wait`) is opened with no display:
    /// its mode is set when a hotplug brings one.
    private static func leased(_ output: PlannedOutput, waiting: Bool, from card: DRMCard, interface: DRMInterfacePreference,
                               logger: Logger) throws -> DRMDisplay {
        let lease = try DRMOutputLease(from: card, connectorName: output.connector, crtcIndex: output.crtc)
        let scanout = waiting
            ? try DRMScanout(card: lease.card, waitingOn: output.connector,
                             standIn: (output.mode.width, output.mode.height, Int(output.mode.refreshHertz.rounded())), interface: interface)
            : try DRMScanout(card: lease.card, connectorName: output.connector, mode: output.requestedMode, interface: interface)
        if waiting { logger.notice("\(output.connector) is waiting for its display: shown from when a hotplug brings one") }
        return DRMDisplay(scanout: scanout, modeRequest: output.requestedMode, logger: logger)
    }
}
