import CLibDRM

/// A connector as probed (`drmModeGetConnector`): its name, whether a display
/// is attached, and the modes that display offers.
public struct DRMConnector: Hashable, Sendable, CustomStringConvertible {
    public enum Status: String, Hashable, Sendable {
        case connected, disconnected, unknown
    }

    public let id: UInt32
    /// The kernel's name, as in /sys/class/drm: `HDMI-A-1`, `Virtual-1`, `DSI-1`.
    public let name: String
    public let status: Status
    public let modes: [DRMMode]
    /// The physical size the display reports, in millimetres (0 when unknown).
    public let widthMillimetres: Int
    public let heightMillimetres: Int
    let encoderIDs: [UInt32]
    let currentEncoderID: UInt32

    init(_ connector: drmModeConnector) {
        id = connector.connector_id
        let typeName = drmModeGetConnectorTypeName(connector.connector_type).map { String(cString: $0) } ?? "Unknown"
        name = "\(typeName)-\(connector.connector_type_id)"
        switch connector.connection {
        case DRM_MODE_CONNECTED: status = .connected
        case DRM_MODE_DISCONNECTED: status = .disconnected
        default: status = .unknown
        }
        modes = (0..<Int(connector.count_modes)).map { DRMMode(connector.modes[$0]) }
        widthMillimetres = Int(connector.mmWidth)
        heightMillimetres = Int(connector.mmHeight)
        encoderIDs = (0..<Int(connector.count_encoders)).map { connector.encoders[$0] }
        currentEncoderID = connector.encoder_id
    }

    /// A connector as a probe would report it, without a card: for tests of
    /// the decisions made on probes.
    init(id: UInt32, name: String, status: Status, modes: [DRMMode]) {
        self.id = id
        self.name = name
        self.status = status
        self.modes = modes
        widthMillimetres = 0
        heightMillimetres = 0
        encoderIDs = []
        currentEncoderID = 0
    }

    public var description: String { "\(name) (\(status.rawValue))" }
}
