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
    static func open(_ plan: OutputPlan, connectors: [OutputPlan.Connector], on card: DRMCard,
                     configuration: KioskConfiguration, logger: Logger) throws -> KioskDisplays {
        let interface = DRMInterfacePreference(rawValue: configuration.output.modesetting.rawValue) ?? .auto
        let groups = try displays(for: plan, connectors: connectors, logger: logger) { output in
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
        let groups = try displays(for: plan, connectors: connectors, logger: logger) { output in
            HeadlessDisplay(size: output.mode.size, previewPath: preview.map { Self.previewPath($0, for: output.connector) }, logger: logger)
        }
        return KioskDisplays(groups: groups)
    }

    static func previewPath(_ path: String, for output: String) -> String {
        guard let dot = path.lastIndex(of: "."), !path[dot...].contains("/") else { return path + "-" + output }
        return path[..<dot] + "-" + output + path[dot...]
    }

    /// One display per group of `plan`, each output's opened by `open`. A
    /// group that cannot be opened is logged and left out; none at all is an error.
    private static func displays(for plan: OutputPlan, connectors: [OutputPlan.Connector], logger: Logger,
                                 open: (PlannedOutput) throws -> DisplayBackend) throws -> [OutputDisplay] {
        var groups: [OutputDisplay] = []
        var failures: [String] = []
        for group in plan.groups {
            do {
                let (display, composite, opened) = try display(for: group, logger: logger, open: open)
                logger.notice("displaying \(group) on \(display.description)")
                groups.append(OutputDisplay(display: display, shown: OutputShown(
                    output: group.leader.connector, drawsUpright: composite, plan: plan, connectors: connectors), connectors: opened))
            } catch {
                logger.error("cannot show \(group): \(error); the other outputs carry on")
                failures.append("\(group): \(error)")
            }
        }
        guard !groups.isEmpty else { throw NoOutputGroup(failures: failures) }
        return groups
    }

    /// A group's display: its one output's, or a canvas spanned across its
    /// members (`SpannedDisplay`), either mirrored onto the group's mirrors
    /// (`MirroredDisplay`). True with a composite, which turns each screen
    /// itself, so the carousel is laid out upright. A member or mirror that
    /// cannot be opened is logged and left out; the group needs one screen.
    private static func display(for group: OutputGroup, logger: Logger,
                                open: (PlannedOutput) throws -> DisplayBackend) throws
        -> (DisplayBackend, composite: Bool, opened: [String]) {
        // The outputs opened, the leading one first: the API addresses the group by any of them.
        var opened: [String] = []
        func members<Member>(_ outputs: [PlannedOutput], _ member: (PlannedOutput, DisplayBackend) -> Member) -> [Member] {
            outputs.compactMap { output in
                do {
                    let display = try open(output)
                    opened.append(output.connector)
                    return member(output, display)
                } catch {
                    logger.error("\(output.connector) cannot be shown: \(error); the rest of \(group) carries on")
                    return nil
                }
            }
        }
        let source: DisplayBackend, sourceRotation: DisplayRotation
        switch group.layout {
        case .single(let output):
            source = try open(output)
            opened.append(output.connector)
            sourceRotation = output.rotation
        case .canvas(let canvas, let outputs):
            let spanned = members(outputs) { output, display -> SpannedDisplay.Member? in
                guard case .canvas(let placement) = output.showing else { return nil }
                return SpannedDisplay.Member(display: display, region: placement.region, rotation: output.rotation)
            }.compactMap { $0 }
            guard !spanned.isEmpty else { throw NoOutputGroup(failures: ["no screen of canvas \(canvas.name) can be shown"]) }
            source = SpannedDisplay(canvasSize: canvas.size, members: spanned)
            sourceRotation = .none
        }
        if group.mirrors.isEmpty {
            if case .canvas = group.layout { return (source, true, opened) }
            return (source, false, opened)
        }
        let mirrors = members(group.mirrors) { output, display in MirroredDisplay.Member(display: display, rotation: output.rotation) }
        return (MirroredDisplay(source: MirroredDisplay.Member(display: source, rotation: sourceRotation), mirrors: mirrors), true, opened)
    }

    /// Every output group failed to open.
    struct NoOutputGroup: Error, CustomStringConvertible {
        var failures: [String]
        var description: String { "no output group can be shown: " + failures.joined(separator: "; ") }
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
