import Logging
import VitrineConfig
import VitrineCore
import VitrineDRM
import VitrineRuntime

/// The displays of a plan that drives several outputs: each output on a DRM
/// lease of its own (`DRMOutputLease`) carrying its share of the card's
/// planes (`PlaneShare`), and one display per output group
/// (`OutputPlan.groups`), each for a display loop of its own.
///
/// How the groups are put together from the outputs that open, and what
/// happens to those that do not, is `OutputGroupAssembly`'s.
package enum OutputGroupDisplays {
    /// Every group of `plan` whose outputs `lessor` can lease. The planes are
    /// shared out once, for every output the plan drives or waits on, before
    /// the first lease is made.
    package static func open(_ plan: OutputPlan, connectors: [OutputPlan.Connector], on lessor: some OutputLessor,
                             logger: Logger) throws -> [OutputDisplay] {
        let share = planeShare(for: plan, on: lessor, logger: logger)
        return try OutputGroupAssembly.displays(for: plan, connectors: connectors, logger: logger) { output in
            let planes = share?.shares[output.crtc]
            let display = try lessor.display(leasing: output, planes: planes, waiting: plan.waiting.contains(output))
            if let planes { logger.info("\(output.connector) leased with \(planes)") }
            return display
        }
    }

    /// The planes of `lessor`'s card shared among the CRTCs of `plan`'s
    /// outputs, driven and waiting; nil when each lease is to get the CRTC's
    /// own primary and cursor plane from the kernel instead, with the reason logged once.
    package static func planeShare(for plan: OutputPlan, on lessor: some OutputLessor, logger: Logger) -> PlaneShare? {
        let crtcs = (plan.driven + plan.waiting).map(\.crtc)
        do {
            guard let planes = try lessor.planeDescriptions() else {
                logger.notice("\(lessor.path) lists no planes to this process: each output's lease gets its CRTC's own primary and cursor plane, and no overlay plane")
                return nil
            }
            return try PlaneShare.decide(planes: planes, crtcs: crtcs)
        } catch {
            // Back to the kernel's choice, which a lessor with universal planes does not get.
            lessor.disableUniversalPlanes()
            logger.warning("\(lessor.path): the planes cannot be shared out (\(error)): each output's lease gets its CRTC's own primary and cursor plane, and no overlay plane")
            return nil
        }
    }

    /// Several outputs without a card: each an in-memory display of its mode's
    /// size (`HeadlessOutputs`), its preview PNG, if any, named after it
    /// (`preview.png` becomes `preview-HDMI-A-2.png`).
    package static func headless(_ layout: OutputLayout, configuration: KioskConfiguration, logger: Logger) throws -> KioskDisplays {
        let connectors = HeadlessOutputs.connectors(for: layout, size: configuration.outputSize)
        let plan = OutputPlan(layout: layout, single: configuration.singleOutput, connectors: connectors, crtcCount: connectors.count)
        for problem in plan.problems { logger.warning("outputs: \(problem)") }
        let preview = configuration.output.preview == "off" ? nil : configuration.output.preview
        let groups = try OutputGroupAssembly.displays(for: plan, connectors: connectors, logger: logger) { output in
            HeadlessDisplay(size: output.mode.size, previewPath: preview.map { Self.previewPath($0, for: output.connector) }, logger: logger)
        }
        return KioskDisplays(groups: groups)
    }

    package static func previewPath(_ path: String, for output: String) -> String {
        guard let dot = path.lastIndex(of: "."), !path[dot...].contains("/") else { return path + "-" + output }
        return path[..<dot] + "-" + output + path[dot...]
    }
}

/// What driving several outputs needs of a card: its planes, and a display on
/// a lease of one output. `DRMLessor` is the card's; tests stand in for it.
package protocol OutputLessor {
    /// The card's path, for the log.
    var path: String { get }
    /// Every plane of the card, primary and cursor ones too; nil when the
    /// kernel will not list those (`DRMCard.planeDescriptions()`).
    func planeDescriptions() throws -> [DRMPlaneDescription]?
    /// Leases are to get each CRTC's own planes from the kernel again.
    func disableUniversalPlanes()
    /// A display on a lease of `output`'s connector and CRTC, with `planes`
    /// (nil: the kernel's). A `waiting` output (missing, `whenMissing: wait`)
    /// is opened with no display: its mode is set when a hotplug brings one.
    func display(leasing output: PlannedOutput, planes: PlaneShare.Share?, waiting: Bool) throws -> DisplayBackend
}

/// A card's outputs, each on a DRM lease of its own (`DRMOutputLease`) in the
/// plan's mode; a hotplug asks for that mode again.
package struct DRMLessor: OutputLessor {
    package let card: DRMCard
    package let interface: DRMInterfacePreference
    /// What each leased output does with the overlay planes of its share.
    package var planeOptions: PlaneOptions? = nil
    package let logger: Logger

    package var path: String { card.path }

    package func planeDescriptions() throws -> [DRMPlaneDescription]? { try card.planeDescriptions() }

    package func disableUniversalPlanes() { card.disableUniversalPlanes() }

    package func display(leasing output: PlannedOutput, planes: PlaneShare.Share?, waiting: Bool) throws -> DisplayBackend {
        let lease = try DRMOutputLease(from: card, connectorName: output.connector, crtcIndex: output.crtc, planes: planes)
        let scanout = waiting
            ? try DRMScanout(card: lease.card, waitingOn: output.connector,
                             standIn: (output.mode.width, output.mode.height, Int(output.mode.refreshHertz.rounded())), interface: interface)
            : try DRMScanout(card: lease.card, connectorName: output.connector, mode: output.requestedMode, interface: interface)
        if waiting { logger.notice("\(output.connector) is waiting for its display: shown from when a hotplug brings one") }
        // Each output's own rotation (an `outputs` entry's, or output.rotation) decides whether its frames are turned.
        let frames = planeOptions.map { PlaneOptions(mode: $0.mode, memoryBytes: $0.memoryBytes, turned: output.rotation != .none) }
        return DRMDisplay(scanout: scanout, modeRequest: output.requestedMode, planes: frames, logger: logger)
    }
}
