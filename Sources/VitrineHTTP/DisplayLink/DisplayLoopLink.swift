import VitrineCore
import VitrineRuntime

/// All the API asks of the display loop: its last published status, commands
/// in, and two questions answered on the display thread (the frame on screen,
/// and whether the loop is alive). `KioskControl` is the runtime's
/// implementation; the routes know only this, so they can be driven against
/// another loop (a test's) and never reach into the runtime's owners.
///
/// A kiosk that drives several output groups has one loop per group
/// (`OutputGroupsLink`): this link then stands for all of them (a command
/// goes to each; the status, frame and ping are the first group's), and
/// `outputGroups` addresses each one alone.
///
/// Every call returns at once: none waits for the display thread, and the
/// display thread never waits on a caller.
public protocol DisplayLoopLink: AnyObject, Sendable {
    /// What the loop published after its last turn.
    var status: KioskStatus { get }
    /// Queues `command` and wakes the loop.
    func send(_ command: KioskCommand)
    /// `reply` gets a copy of the frame on screen, upright at the logical output
    /// size, at the loop's next turn; it must hand its work on.
    func requestFrame(reply: @escaping @Sendable (PixelImage) -> Void)
    /// `reply` runs on the display thread at its next turn.
    func ping(reply: @escaping @Sendable () -> Void)
    /// Each output group's own loop, the kiosk's own first; never empty.
    var outputGroups: [OutputGroupLink] { get }
}

extension DisplayLoopLink {
    /// One loop: one group, whose outputs have no names the API knows.
    public var outputGroups: [OutputGroupLink] { [OutputGroupLink(connectors: [], loop: self)] }
}

extension KioskControl: DisplayLoopLink {}
