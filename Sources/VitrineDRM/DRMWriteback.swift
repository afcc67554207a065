import CLibDRM
import VitrineCore

/// A writeback connector: the display controller writes the frame its
/// planes compose into a framebuffer (VKMS has one; vc4's writeback unit is
/// a CRTC of its own and cannot capture HDMI). Listed only to a client that
/// asked for them (`DRM_CLIENT_CAP_WRITEBACK_CONNECTORS`, which needs atomic).
public struct DRMWriteback: Sendable {
    public let connectorID: UInt32
    let crtcProperty: UInt32
    let framebufferProperty: UInt32
    let fenceProperty: UInt32

    /// One capture: the writeback connector and the buffer it fills
    /// (`xrgb8888`, output-sized).
    public struct Capture {
        public let writeback: DRMWriteback
        public let buffer: DRMLayerBuffer

        public init(writeback: DRMWriteback, buffer: DRMLayerBuffer) {
            self.writeback = writeback
            self.buffer = buffer
        }
    }

    /// The card's first writeback connector, or nil when it has none or will not list them.
    public static func find(on card: DRMCard) throws(DRMError) -> DRMWriteback? {
        guard drmSetClientCap(card.descriptor, UInt64(DRM_CLIENT_CAP_WRITEBACK_CONNECTORS), 1) == 0 else { return nil }
        let ids = try card.withResources { resources in (0..<Int(resources.count_connectors)).map { resources.connectors[$0] } }
        for id in ids {
            guard let connector = drmModeGetConnectorCurrent(card.descriptor, id) else { continue }
            let type = connector.pointee.connector_type
            drmModeFreeConnector(connector)
            guard type == UInt32(DRM_MODE_CONNECTOR_WRITEBACK) else { continue }
            let p = card.properties(of: id, type: UInt32(DRM_MODE_OBJECT_CONNECTOR))
            guard let crtc = p["CRTC_ID"]?.id, let framebuffer = p["WRITEBACK_FB_ID"]?.id,
                  let fence = p["WRITEBACK_OUT_FENCE_PTR"]?.id else { continue }
            return DRMWriteback(connectorID: id, crtcProperty: crtc, framebufferProperty: framebuffer, fenceProperty: fence)
        }
        return nil
    }
}
