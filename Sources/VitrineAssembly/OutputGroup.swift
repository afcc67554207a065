import Logging
import VitrineConfig
import VitrineCore
import VitrineAPI
import VitrineHTTP
import VitrinePlays
import VitrineRuntime

/// One output group of a kiosk, whole: the screens one display loop drives,
/// and everything made for them. Built in one place (`OutputGroup.assemble`),
/// so that no part of the assembly keeps arrays of its own zipped by index.
struct OutputGroup {
    /// What the group answers for the whole process. One process has one
    /// service state: only the first group's loop tells systemd (READY, the
    /// watchdog, STOPPING) and takes the signals; each other group beats a
    /// heartbeat that the first one watches, so that a hung companion stops
    /// the watchdog's pings as a hung first loop would.
    enum Role {
        case primary
        case companion(LoopHeartbeat)
    }

    let role: Role
    /// The name its events, plays and metrics carry: its leading connector as
    /// the plan has it (what a mirror group or a canvas shows is one play, one
    /// event, however many screens show it) on a kiosk with `outputs` or
    /// several groups; nil otherwise, so that a single-output kiosk's events
    /// and play log are what they were before there were several.
    let name: String?
    /// How the configuration shows on it, and the connectors it drives.
    let output: OutputDisplay
    /// Its display loop: the caller's thread runs the primary's, a thread of its own each companion's.
    let kiosk: Kiosk
    /// The TV it tells of screen changes over HDMI-CEC, if any.
    let television: CECTelevision?
    let logger: Logger

    /// Its counters under its name.
    var metrics: OutputMetrics { OutputMetrics(output: name, metrics: kiosk.metrics) }

    /// Its loop as the API's link addresses it.
    var link: OutputGroupsLink.Group {
        OutputGroupsLink.Group(control: kiosk.control, shown: output.shown, connectors: output.connectors)
    }

    /// A group for each of `displays`, the first the kiosk's own.
    ///
    /// The companions are made first, so that the primary's notifier can
    /// watch their heartbeats from its first turn. Every group starts at one
    /// instant: their rotations share deadlines (`Kiosk.init(start:)`).
    /// - Parameter textRasterizer: the font the notices are drawn in (nil: none shows).
    static func assemble(_ displays: KioskDisplays, configuration: KioskConfiguration, version: String, decoder: any SlideDecoder,
                         textRasterizer: (any TextRasterizer)? = nil, logger: Logger) throws -> [OutputGroup] {
        let names = names(displays, configuration: configuration)
        let start = KioskClock.system.now()
        let notifier = ServiceNotifier()
        let primary = displays.groups[0]
        var companions: [OutputGroup] = []
        for (output, name) in zip(displays.groups, names).dropFirst() {
            let label = output.shown.output ?? output.display.description
            var groupLogger = logger
            groupLogger[metadataKey: "output"] = "\(label)"
            let heartbeat = LoopHeartbeat(name: label, startedAt: start.monotonic)
            let kiosk = try Kiosk(configuration: output.shown.apply(configuration), version: version, display: output.display,
                                  logger: groupLogger, decoder: decoder, notifier: notifier.companion(beating: heartbeat),
                                  takesSignals: false, start: start, textRasterizer: textRasterizer)
            // With `auto`, a companion's TV is the one on its own connector's adapter, if the
            // driver says which adapter sits on which connector (vc4 does); never the first group's.
            let television: CECTelevision? = if case .auto = configuration.power.cec, let reference = output.display.connectorReference {
                CECTelevision(setting: .auto, drmConnector: reference, logger: groupLogger, onConnectorOnly: true)
            } else {
                nil
            }
            companions.append(OutputGroup(role: .companion(heartbeat), name: name, output: output, kiosk: kiosk,
                                          television: television, logger: groupLogger))
        }
        notifier.watch(companions.compactMap(\.heartbeat))
        let kiosk = try Kiosk(configuration: primary.shown.apply(configuration), version: version, display: primary.display,
                              logger: logger, decoder: decoder, notifier: notifier, start: start, textRasterizer: textRasterizer)
        // The first group's TV is found as with one output, but never on another group's connector.
        let television = CECTelevision(setting: configuration.power.cec, drmConnector: primary.display.connectorReference, logger: logger,
                                       othersConnectors: displays.groups.dropFirst().compactMap(\.display.connectorReference))
        return [OutputGroup(role: .primary, name: names[0], output: primary, kiosk: kiosk, television: television,
                            logger: logger)] + companions
    }

    private var heartbeat: LoopHeartbeat? {
        switch role {
        case .primary: nil
        case .companion(let heartbeat): heartbeat
        }
    }

    /// The leader as planned, as `OutputGroupLink.name` has it, whatever opened.
    static func name(_ output: OutputDisplay, named: Bool) -> String? {
        named ? output.shown.output ?? output.connectors.first : nil
    }

    /// The name each of `displays` gets (`name`), in group order.
    static func names(_ displays: KioskDisplays, configuration: KioskConfiguration) -> [String?] {
        let named = displays.groups.count > 1 || configuration.outputs != nil
        return displays.groups.map { name($0, named: named) }
    }

    /// Sends the loop's events to its TV, proof of play and the event stream,
    /// each under the group's name, so that operators and play reports see every screen.
    func joinEvents(plays: ProofOfPlay?, events: EventHub) {
        let name = name, television = television
        kiosk.onEvent = { event in
            if case .screenChanged(let lit, _) = event { television?.screenChanged(lit: lit) }
            plays?.handle(event, output: name)
            if let event = ServerEvent(event, output: name) { events.publish(event) }
        }
    }
}
