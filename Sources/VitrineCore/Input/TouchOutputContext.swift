/// What a kiosk that drives some of a board's outputs needs to know to open
/// only its own touch devices: which outputs its touches come from, and every
/// output's `touch` list, size and whether it is driven, for
/// `TouchOutputBinding`. `KioskConfiguration.shown(onOutput:)` makes it from
/// the configuration; `plan(_:connectors:)` adds what only the card knows.
public struct TouchOutputContext: Hashable, Sendable {
    /// The outputs whose touches page this kiosk's carousel: the output it
    /// shows, its mirrors, or every output of its canvas (and their mirrors).
    public var taken: Set<String>
    /// Every configured output, in the configuration's order.
    public var outputs: [TouchOutputBinding.Output]
    /// Each output's rotation (its own, else `output.rotation`): a touch on a
    /// mirror turned another way than the output it mirrors turns with its own panel.
    public var rotations: [String: DisplayRotation]
    /// Each output that shows a part of a canvas, and that part: its region
    /// of the canvas picture, in canvas pixels (`CanvasPlacement.region`),
    /// from the plan. A touch on that output's panel lands there, not across
    /// the whole canvas.
    public private(set) var regions: [String: PixelRect] = [:]
    /// Whether `plan(_:connectors:)` said which outputs are driven and how large they are.
    public private(set) var isPlanned = false

    public init(taken: Set<String>, outputs: [TouchOutputBinding.Output], rotations: [String: DisplayRotation] = [:]) {
        self.taken = taken
        self.outputs = outputs
        self.rotations = rotations
    }

    /// Takes from the card's plan which outputs are driven, and from its
    /// connectors each display's size (`DRMOutputs.planConnectors`), for the
    /// automatic rule and the default. Until then, every output counts as
    /// driven, sizes are unknown, and a device no rule binds goes to every
    /// kiosk that has not been told (as every device did before outputs had touch).
    public mutating func plan(_ plan: OutputPlan, connectors: [OutputPlan.Connector]) {
        let driven = Set(plan.driven.map(\.connector))
        for index in outputs.indices {
            let name = outputs[index].name
            outputs[index].isDriven = driven.contains(name)
            outputs[index].size = connectors.first { $0.name == name }?.size
        }
        regions = Self.canvasRegions(plan)
        isPlanned = true
    }

    /// The canvas region each driven or waiting output of `plan` shows, by
    /// connector; a mirror standing in for a missing canvas screen shows that
    /// screen's.
    public static func canvasRegions(_ plan: OutputPlan) -> [String: PixelRect] {
        var regions: [String: PixelRect] = [:]
        for output in plan.driven + plan.waiting {
            if case .canvas(let placement) = output.showing { regions[output.connector] = placement.region }
        }
        return regions
    }

    /// Where a touch on a device bound so lands: its output's part of a
    /// canvas, or nil for the whole picture.
    public func region(for assignment: TouchOutputBinding.Assignment?) -> PixelRect? {
        assignment?.output.flatMap { regions[$0] }
    }

    /// The binding of `devices` (every touch device the board has, not only this kiosk's).
    public func binding(_ devices: [TouchOutputBinding.Device]) -> TouchOutputBinding {
        // Unplanned, the default is this kiosk's own output: without knowing
        // which outputs are there, giving the device to the first listed one
        // could leave it to a screen that is not driven.
        let own = isPlanned ? nil : outputs.first { taken.contains($0.name) && $0.touch == nil }?.name
        return TouchOutputBinding(devices: devices, outputs: outputs, defaultOutput: own)
    }

    /// Whether this kiosk takes a device bound so.
    public func takes(_ assignment: TouchOutputBinding.Assignment) -> Bool {
        assignment.output.map(taken.contains) ?? false
    }
}

extension OutputPlan.Connector {
    /// The size its display reports; nil when it reports none (0).
    public var size: MillimetreSize? {
        MillimetreSize(reportedWidth: Double(widthMillimetres), height: Double(heightMillimetres))
    }
}
