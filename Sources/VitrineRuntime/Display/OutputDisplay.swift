import VitrineConfig
import VitrineCore

/// The display one carousel draws on, and which configured output's entry it
/// shows: one output, or a canvas across several (`SpannedDisplay`), each
/// possibly mirrored (`MirroredDisplay`).
public struct OutputDisplay {
    public var display: DisplayBackend
    /// How the configuration is shown on it.
    public var shown: OutputShown
    /// The connectors it drives, the leading output first (the API addresses the group by any of them).
    public var connectors: [String]

    /// - Parameter connectors: nil: the leading output alone.
    public init(display: DisplayBackend, shown: OutputShown, connectors: [String]? = nil) {
        self.display = display
        self.shown = shown
        self.connectors = connectors ?? shown.output.map { [$0] } ?? []
    }
}

/// Which `outputs` entry a carousel shows, and how: the configuration as
/// that output shows it (`KioskConfiguration.shown(onOutput:)`: its playlist,
/// fit and rotation), with the picture upright when its display turns each
/// screen's part itself (`SpannedDisplay`, `MirroredDisplay`), and its touch
/// told which outputs the card drives and how large they are.
public struct OutputShown: Hashable, Sendable {
    /// The configured output (a connector's name); nil: the configuration as it is.
    public var output: String?
    /// Whether the display turns each of its screens itself: the carousel is then laid out upright.
    public var drawsUpright: Bool
    /// The plan the outputs were driven by and the connectors it was made
    /// from, for the touch binding's automatic rule and default (`TouchOutputContext.plan`).
    public var plan: OutputPlan?
    public var connectors: [OutputPlan.Connector]

    public init(output: String?, drawsUpright: Bool = false, plan: OutputPlan? = nil, connectors: [OutputPlan.Connector] = []) {
        self.output = output
        self.drawsUpright = drawsUpright
        self.plan = plan
        self.connectors = connectors
    }

    /// The configuration as it shows; unchanged for an output `outputs` does not list.
    public func apply(_ configuration: KioskConfiguration) -> KioskConfiguration {
        guard let output, configuration.outputs?.output(named: output) != nil else { return configuration }
        var shown = configuration.shown(onOutput: output)
        if drawsUpright { shown.output.rotation = 0 }
        if let plan { shown.touch.outputContext?.plan(plan, connectors: connectors) }
        return shown
    }
}

/// Every carousel's display, the first being the kiosk's own (the API's
/// status and screenshots, the TV's, proof of play's), and whatever must
/// stay open while they are used (the DRM card their leases came from).
public struct KioskDisplays {
    public var groups: [OutputDisplay]
    /// Kept alive as long as the displays: a lease is revoked when its lessor closes.
    public var keepAlive: [AnyObject]

    public init(groups: [OutputDisplay], keepAlive: [AnyObject] = []) {
        precondition(!groups.isEmpty, "a kiosk has at least one display")
        self.groups = groups
        self.keepAlive = keepAlive
    }

    /// One display showing the configuration as it is (or as its connector's `outputs` entry shows it).
    public init(_ display: DisplayBackend) {
        self.init(groups: [OutputDisplay(display: display, shown: OutputShown(output: display.connectorName))])
    }
}
