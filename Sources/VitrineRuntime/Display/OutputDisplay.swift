import VitrineConfig
import VitrineCore

/// The display one carousel draws on, and which configured output's entry it
/// shows: one output, or a canvas across several (`SpannedDisplay`), each
/// possibly mirrored (`MirroredDisplay`).
public struct OutputDisplay {
    public var display: DisplayBackend
    /// How the configuration is shown on it.
    public var shown: OutputShown

    public init(display: DisplayBackend, shown: OutputShown) {
        self.display = display
        self.shown = shown
    }
}

/// Which `outputs` entry a carousel shows, and how: the configuration as
/// that output shows it (`KioskConfiguration.shown(onOutput:)`: its playlist,
/// fit and rotation), with the picture upright when it spans a canvas,
/// because each of the canvas's screens turns its own part.
public struct OutputShown: Hashable, Sendable {
    /// The configured output (a connector's name); nil: the configuration as it is.
    public var output: String?
    public var spansCanvas: Bool

    public init(output: String?, spansCanvas: Bool = false) {
        self.output = output
        self.spansCanvas = spansCanvas
    }

    /// The configuration as it shows; unchanged for an output `outputs` does not list.
    public func apply(_ configuration: KioskConfiguration) -> KioskConfiguration {
        guard let output, configuration.outputs?.output(named: output) != nil else { return configuration }
        var shown = configuration.shown(onOutput: output)
        if spansCanvas { shown.output.rotation = 0 }
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
