import Logging
import VitrineConfig
import VitrineCore

/// One display per output group of a plan (`OutputPlan.groups`), from the
/// outputs a caller opens: DRM leases in `vitrine run`, in-memory displays
/// headless and in tests.
///
/// The rule is that the screens that can show, do:
/// - a group that cannot be opened at all is logged and left out, and the
///   other groups still show; only when none can is it an error;
/// - a canvas member or a mirror that cannot be opened is logged and left
///   out of its group;
/// - a group whose own output cannot be opened is shown by its mirrors,
///   each turned as it is mounted, at the first mirror's size.
public enum OutputGroupAssembly {
    /// One display per group of `plan`, each output's opened by `open`. A
    /// group that cannot be opened is logged and left out; none at all is an error.
    public static func displays(for plan: OutputPlan, connectors: [OutputPlan.Connector], logger: Logger,
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
    /// cannot be opened is logged and left out, and a source that cannot be
    /// is stood in for by its mirrors; the group needs one screen.
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
            do {
                source = try open(output)
            } catch where !group.mirrors.isEmpty {
                // Its mirrors still show the group's picture: the first takes the source's place.
                logger.error("\(output.connector) cannot be shown: \(error); its mirrors show \(group) without it")
                let mirrors = members(group.mirrors) { output, display in MirroredDisplay.Member(display: display, rotation: output.rotation) }
                guard let first = mirrors.first else { throw error }
                return (MirroredDisplay(source: first, mirrors: Array(mirrors.dropFirst())), true, opened)
            }
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
    public struct NoOutputGroup: Error, CustomStringConvertible {
        public var failures: [String]
        public var description: String { "no output group can be shown: " + failures.joined(separator: "; ") }
    }

}
