import Logging
import VitrineConfig
import VitrineCore
import VitrineDRM
import VitrineRuntime

/// Picks the display backend for `output.display`: KMS/DRM, or headless.
/// With `auto`, any reason DRM cannot be used is logged in one line and the
/// kiosk runs headless; with `drm`, the same reason ends the process.
///
/// With an `outputs` section the card's `OutputPlan` chooses the connectors,
/// their modes and CRTCs, and its groups (`OutputPlan.groups`) the carousels:
/// one display loop per group. With more than one output driven, each gets a
/// DRM lease of its own (`DRMOutputLease`) with its share of the card's planes
/// (`OutputGroupDisplays`). What the plan leaves undriven is said at start, not hidden.
package enum DisplaySelection {
    /// The displays `configuration` asks for. `cardPaths` lists the cards to
    /// try when `output.card` names none (`DRMCard.cardPaths()`; tests name their own).
    /// - Throws: `DisplayUnavailable` with `display: drm` when no card can be
    ///   used, after logging why; an error of the plan when no output group can be opened.
    package static func open(_ configuration: KioskConfiguration, cardPaths: () -> [String] = { DRMCard.cardPaths() },
                             logger: Logger) throws -> KioskDisplays {
        let output = configuration.output
        switch output.display {
        case .headless:
            if let layout = configuration.outputs, layout.outputs.count > 1 {
                return try OutputGroupDisplays.headless(layout, configuration: configuration, logger: logger)
            }
            if configuration.outputs != nil { logger.notice("outputs: one output listed, shown headless at its size") }
            return KioskDisplays(headless(configuration, logger: logger, reason: nil))
        case .auto, .drm:
            do {
                let (scanout, plan, connectors): (DRMScanout, OutputPlan?, [OutputPlan.Connector])
                switch try openCard(configuration, cardPaths: cardPaths) {
                case .several(let card, let several, let connectors):
                    report(several, logger: logger)
                    let interface = DRMInterfacePreference(rawValue: output.modesetting.rawValue) ?? .auto
                    let lessor = DRMLessor(card: card, interface: interface, planeOptions: output.planeOptions, logger: logger)
                    let groups = try OutputGroupDisplays.open(several, connectors: connectors, on: lessor, logger: logger)
                    return KioskDisplays(groups: groups, keepAlive: [card])
                case .single(let single, let singlePlan, let planned):
                    (scanout, plan, connectors) = (single, singlePlan, planned)
                }
                if let plan { report(plan, logger: logger) }
                // The mode a hotplug asks for again: the driven output's, with a plan.
                let request: DisplayModeSpec? = if let plan { plan.driven.first?.requestedMode } else { output.mode }
                let display = DRMDisplay(scanout: scanout, modeRequest: request, planes: output.planeOptions, logger: logger)
                logger.notice("displaying on \(display.description)")
                guard let plan else { return KioskDisplays(display) }
                // The plan tells the touch binding which listed outputs are there, and their sizes.
                let shown = OutputShown(output: display.connectorName, plan: plan, connectors: connectors)
                return KioskDisplays(groups: [OutputDisplay(display: display, shown: shown)])
            } catch {
                if output.display == .drm {
                    logger.critical("cannot use the display: \(error)")
                    throw DisplayUnavailable(reason: "\(error)")
                }
                return KioskDisplays(headless(configuration, logger: logger, reason: "\(error)"))
            }
        }
    }

    /// What a card gives: one output's scanout (with the plan, when `outputs`
    /// chose it), or a plan driving several outputs and the card to lease them from.
    enum OpenedCard {
        case single(DRMScanout, OutputPlan?, connectors: [OutputPlan.Connector])
        case several(DRMCard, OutputPlan, connectors: [OutputPlan.Connector])
    }

    /// The configured card, or else the first card with a connected display
    /// (with `outputs`: the first on which the plan drives an output).
    static func openCard(_ configuration: KioskConfiguration, cardPaths: () -> [String]) throws -> OpenedCard {
        let output = configuration.output
        let interface = DRMInterfacePreference(rawValue: output.modesetting.rawValue) ?? .auto
        func open(_ path: String) throws -> OpenedCard {
            let card = try DRMCard(path: path)
            guard let layout = configuration.outputs else {
                return .single(try DRMScanout(card: card, connectorName: output.connector, mode: output.mode, interface: interface), nil,
                               connectors: [])
            }
            let outputs = try card.outputs()
            let plan = outputs.plan(layout, single: configuration.singleOutput)
            guard let first = plan.driven.first else { throw NoPlannedOutput(card: path, plan: plan) }
            // Several, or one with another waiting for its display: each on a lease of its own.
            if plan.driven.count + plan.waiting.count > 1 { return .several(card, plan, connectors: outputs.planConnectors) }
            let scanout = try DRMScanout(card: card, connectorName: first.connector, mode: first.requestedMode,
                                         crtcIndex: first.crtc, interface: interface)
            return .single(scanout, plan, connectors: outputs.planConnectors)
        }
        if let path = output.card { return try open(path) }
        let cards = cardPaths()
        guard !cards.isEmpty else { throw DRMError.noCard(directory: "/dev/dri") }
        var errors: [any Error] = []
        for path in cards {
            do {
                return try open(path)
            } catch {
                errors.append(error)
            }
        }
        // A card with no display attached is the least telling reason: report a
        // real problem (permission, DRM master, mode) if any card had one.
        let isNoDisplay = { (error: any Error) -> Bool in
            if case DRMError.noConnectedConnector = error { return true }
            return error is NoPlannedOutput
        }
        throw errors.first { !isNoDisplay($0) } ?? errors[0]
    }

    /// The plan's missing outputs, its problems, and what this build leaves undriven: one line each.
    private static func report(_ plan: OutputPlan, logger: Logger) {
        for missing in plan.missing { logger.warning("outputs: \(missing)") }
        for problem in plan.problems { logger.warning("outputs: \(problem)") }
    }

    private static func headless(_ configuration: KioskConfiguration, logger: Logger, reason: String?) -> DisplayBackend {
        // `off`: no PNG at all. Many headless kiosks on one machine (the fleet
        // test) would otherwise each encode one at every slide change, all at once.
        let path = configuration.output.preview == "off" ? nil : configuration.output.preview
        let display = HeadlessDisplay(size: configuration.outputSize, previewPath: path, logger: logger)
        let because = reason.map { "\($0); " } ?? ""
        let preview = path.map { "live preview PNG at \($0)" } ?? "no preview PNG"
        logger.notice("\(because)running headless at \(configuration.outputSize), \(preview)")
        return display
    }
}

/// `display: drm`, and no card could be used: the process ends (`vitrine run` exits 1).
package struct DisplayUnavailable: Error, CustomStringConvertible {
    package var reason: String
    package var description: String { "cannot use the display: \(reason)" }
}

/// A card on which the `outputs` section's plan drives nothing: every listed
/// output is missing, or has no CRTC.
struct NoPlannedOutput: Error, CustomStringConvertible {
    var card: String
    var plan: OutputPlan

    var description: String {
        let listed = plan.missing.map(\.description) + plan.entries.compactMap { entry in
            if case .undriven(let reason) = entry.state, !reason.isMissing, reason != .notListed { return "\(entry.connector): \(reason)" }
            return nil
        }
        return "no output in outputs can be driven on \(card)" + (listed.isEmpty ? "" : ": " + listed.joined(separator: "; "))
    }
}

extension OutputConfiguration {
    /// `output.planes` and `output.planeMemory`, as a DRM display takes them.
    var planeOptions: PlaneOptions { PlaneOptions(mode: planes, memoryBytes: planeMemoryMiB << 20, turned: rotation != 0) }
}
