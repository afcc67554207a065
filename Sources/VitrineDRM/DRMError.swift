import Glibc
import SystemPackage

/// Why the DRM output cannot be used. Each case carries what an operator needs
/// to act: the device, the connector, the modes there are, the group to join.
public enum DRMError: Error, Hashable, Sendable, CustomStringConvertible {
    /// No /dev/dri/card* at all: no KMS driver is loaded.
    case noCard(directory: String)
    /// The card (or every card) has no connected connector; lists what it saw.
    case noConnectedConnector(card: String, connectors: [String])
    /// A connector was asked for by name and is not on the card.
    case connectorNotFound(card: String, requested: String, available: [String])
    /// The requested mode is not one the connector offers.
    case modeUnavailable(connector: String, requested: String, available: [String])
    /// The driver refused every mode offered to it (a test commit each), with its reasons.
    case modeRefused(connector: String, refusals: [String])
    /// The device node exists but this user may not open it.
    case permissionDenied(path: String, group: String?)
    /// Another process (a display server, another kiosk) is DRM master.
    case masterHeld(path: String)
    /// The driver cannot do what scanout needs (no dumb buffers, no CRTC for the connector).
    case unsupported(card: String, reason: String)
    /// A libdrm call failed, with its `errno`.
    case call(String, errno: Errno, subject: String)

    public var description: String {
        switch self {
        case .noCard(let directory):
            return "no DRM device: \(directory) has no card* (no KMS driver loaded? on a Raspberry Pi enable dtoverlay=vc4-kms-v3d)"
        case .noConnectedConnector(let card, let connectors):
            let seen = connectors.isEmpty ? "it has no connectors" : "saw " + connectors.joined(separator: ", ")
            return "\(card): no connected display (\(seen)); check the cable and that the display is on"
        case .connectorNotFound(let card, let requested, let available):
            return "\(card): no connector named \(requested); available: \(available.joined(separator: ", "))"
        case .modeUnavailable(let connector, let requested, let available):
            return "\(connector): mode \(requested) is not available; available modes: \(available.joined(separator: ", "))"
        case .modeRefused(let connector, let refusals):
            return "\(connector): the driver refuses every mode tried (\(refusals.joined(separator: "; "))); set output.mode to one the display and the board can drive"
        case .permissionDenied(let path, let group):
            let join = group.map { "add the kiosk's user to the '\($0)' group (the device's group)" } ?? "run as a user that may open it"
            return "\(path): permission denied; \(join)"
        case .masterHeld(let path):
            return "\(path): another process is DRM master (a display server or another kiosk is using the display); stop it first"
        case .unsupported(let card, let reason):
            return "\(card): \(reason)"
        case .call(let call, let errno, let subject):
            return "\(call) on \(subject): \(errno)"
        }
    }
}
