import VitrineCore
import VitrineRuntime

/// The display loops of a kiosk with several output groups, behind the one
/// link the API knows. A command goes to every group: a push or a channel's
/// version as each group's output shows it (`OutputShown`), an override,
/// paging, pausing and the screen's power to all. The status, screenshots and
/// liveness are the first group's, the kiosk's own output.
public final class OutputGroupsLink: DisplayLoopLink {
    /// Each group's loop and how the configuration shows on it; the first is the kiosk's own.
    public let groups: [(control: KioskControl, shown: OutputShown)]

    public init(groups: [(control: KioskControl, shown: OutputShown)]) {
        precondition(!groups.isEmpty, "a kiosk has at least one output group")
        self.groups = groups
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
            case .navigate, .pause, .resume, .setScreenPower, .setOverride, .updateDownloads:
                group.control.send(command)
            }
        }
    }

    public func requestFrame(reply: @escaping @Sendable (PixelImage) -> Void) { groups[0].control.requestFrame(reply: reply) }

    public func ping(reply: @escaping @Sendable () -> Void) { groups[0].control.ping(reply: reply) }
}
