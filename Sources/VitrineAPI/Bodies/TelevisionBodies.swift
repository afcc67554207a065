import VitrineConfig
import VitrineCore
import VitrineRuntime

/// `tv` in the status: `components/schemas/TVStatus` in docs/api/openapi.yaml.
/// The CEC adapter in use, what the TV should be and what it last reported,
/// and why that is not confirmed.
public struct TelevisionStatusBody: Codable, Hashable, Sendable {
    /// What the TV should be, following the screen.
    public enum Wanted: String, Codable, Hashable, Sendable { case on, standby }

    /// The adapter in use (`/dev/cec0`); nil while none is.
    @ExplicitNull public var adapter: String?
    /// The kiosk's place in the HDMI tree (`1.0.0.0`).
    @ExplicitNull public var physicalAddress: String?
    /// The kiosk's address on the CEC bus.
    @ExplicitNull public var logicalAddress: Int?
    /// Nil before the kiosk's first frame.
    @ExplicitNull public var wanted: Wanted?
    /// What the TV last answered (`on`, `standby`, `turningOn`, `turningToStandby`); nil when it has not.
    @ExplicitNull public var reported: String?
    /// Whether the TV reported being where it should be, or on its way there.
    public var confirmed: Bool
    /// Why it is not confirmed, or why no adapter is in use.
    @ExplicitNull public var problem: String?
    public var commandsAcknowledged: Int
    public var deliveryFailures: Int

    public init(adapter: String?, physicalAddress: String?, logicalAddress: Int?, wanted: Wanted?, reported: String?,
                confirmed: Bool, problem: String?, commandsAcknowledged: Int, deliveryFailures: Int) {
        self.adapter = adapter
        self.physicalAddress = physicalAddress
        self.logicalAddress = logicalAddress
        self.wanted = wanted
        self.reported = reported
        self.confirmed = confirmed
        self.problem = problem
        self.commandsAcknowledged = commandsAcknowledged
        self.deliveryFailures = deliveryFailures
    }

    package init(_ status: CECTelevision.Status) {
        self.init(adapter: status.adapter, physicalAddress: status.physicalAddress, logicalAddress: status.logicalAddress,
                  wanted: status.wanted.map { $0 ? .on : .standby }, reported: status.reported?.rawValue,
                  confirmed: status.confirmed, problem: status.problem, commandsAcknowledged: status.commandsAcknowledged,
                  deliveryFailures: status.deliveryFailures)
    }
}
