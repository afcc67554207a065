import Logging
import VitrineConfig
import VitrineCore
import VitrineDRM
import VitrineRuntime

/// The displays of a plan that drives several outputs: each output on a DRM
/// lease of its own (`DRMOutputLease`), and one display per output group
/// (`OutputPlan.groups`), each for a display loop of its own.
///
/// A group that cannot be opened (its lease or its mode refused) is logged
/// and left out: the other screens still show. Only when none can be is it an error.
enum OutputGroupDisplays {
    static func open(_ plan: OutputPlan, on card: DRMCard, configuration: KioskConfiguration,
                     logger: Logger) throws -> KioskDisplays {
        let interface = DRMInterfacePreference(rawValue: configuration.output.modesetting.rawValue) ?? .auto
        var groups: [OutputDisplay] = []
        var failures: [String] = []
        for group in plan.groups {
            do {
                let display = try open(group, on: card, interface: interface, logger: logger)
                logger.notice("displaying \(group) on \(display.display.description)")
                groups.append(display)
            } catch {
                logger.error("cannot show \(group): \(error); the other outputs carry on")
                failures.append("\(group): \(error)")
            }
        }
        guard !groups.isEmpty else {
            throw DRMError.unsupported(card: card.path, reason: "no output group can be shown: " + failures.joined(separator: "; "))
        }
        return KioskDisplays(groups: groups, keepAlive: [card])
    }

    private static func open(_ group: OutputGroup, on card: DRMCard, interface: DRMInterfacePreference,
                             logger: Logger) throws -> OutputDisplay {
        let leader = group.leader
        switch group.layout {
        case .single(let output) where group.mirrors.isEmpty:
            return OutputDisplay(display: try leased(output, from: card, interface: interface, logger: logger),
                                 shown: OutputShown(output: output.connector))
        case .single, .canvas:
            logger.warning("\(group): only \(leader.connector) is driven for now")
            return OutputDisplay(display: try leased(leader, from: card, interface: interface, logger: logger),
                                 shown: OutputShown(output: leader.connector))
        }
    }

    /// One output on a lease of its own, in the plan's mode; a hotplug asks for that mode again.
    private static func leased(_ output: PlannedOutput, from card: DRMCard, interface: DRMInterfacePreference,
                               logger: Logger) throws -> DRMDisplay {
        let lease = try DRMOutputLease(from: card, connectorName: output.connector, crtcIndex: output.crtc)
        let scanout = try DRMScanout(card: lease.card, connectorName: output.connector, mode: output.requestedMode,
                                     interface: interface)
        return DRMDisplay(scanout: scanout, modeRequest: output.requestedMode, logger: logger)
    }
}
