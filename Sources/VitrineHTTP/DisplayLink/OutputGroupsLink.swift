import VitrineCore
import VitrineRuntime

/// The display loops of a kiosk with several output groups, behind the one
/// link the API knows. A command goes to every group: a push or a channel's
/// version as each group's output shows it (`OutputShown`), an override,
/// paging, pausing and the screen's power to all. The status, screenshots and
/// liveness are the first group's, the kiosk's own output. `outputGroups`
/// gives each group's loop alone, for the routes that address one output.
public final class OutputGroupsLink: DisplayLoopLink {
    /// One group's loop, how the configuration shows on it, and the
    /// connectors it drives (the leader first).
    public struct Group: Sendable {
        public let control: KioskControl
        public let shown: OutputShown
        public let connectors: [String]

        /// - Parameter connectors: the group's, as `OutputDisplay.connectors` has them.
        public init(control: KioskControl, shown: OutputShown, connectors: [String]) {
            self.control = control
            self.shown = shown
            self.connectors = connectors
        }
    }

    /// Each group's loop and how the configuration shows on it; the first is the kiosk's own.
    public let groups: [Group]
    /// With several groups, a one-group link for each, so that a push
    /// addressed to one group alone would still be shown its way.
    private let eachGroup: [OutputGroupLink]

    public init(groups: [Group]) {
        precondition(!groups.isEmpty, "a kiosk has at least one output group")
        self.groups = groups
        eachGroup = groups.count == 1 ? [] : groups.map {
            OutputGroupLink(name: $0.shown.output, connectors: $0.connectors, loop: OutputGroupsLink(groups: [$0]))
        }
    }

    public var outputGroups: [OutputGroupLink] {
        groups.count == 1 ? [OutputGroupLink(name: groups[0].shown.output, connectors: groups[0].connectors, loop: self)] : eachGroup
    }

    public var status: KioskStatus { groups[0].control.status }

    public func send(_ command: KioskCommand) {
        for group in groups {
            switch command {
            case .apply(let scheduled, let version):
                // Read the zone again only where the output changes the configuration.
                let shown = group.shown.apply(scheduled.configuration)
                group.control.send(.apply(shown == scheduled.configuration ? scheduled : ScheduledConfiguration(shown),
                                          version: version))
            case .navigate, .pause, .resume, .setScreenPower, .setOverride, .updateDownloads, .retryFailedPictures, .addressNotice:
                group.control.send(command)
            }
        }
    }

    public func requestFrame(reply: @escaping @Sendable (PixelImage) -> Void) { groups[0].control.requestFrame(reply: reply) }

    public func ping(reply: @escaping @Sendable () -> Void) { groups[0].control.ping(reply: reply) }
}
