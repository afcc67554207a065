import CLibDRM

/// The CRTC's configuration before Vitrine took it (`drmModeGetCrtc`), put back
/// with `drmModeSetCrtc` at exit: usually the text console's framebuffer.
struct SavedCRTC {
    let card: DRMCard
    let crtcID: UInt32
    let connectorID: UInt32
    let framebufferID: UInt32
    let x: UInt32, y: UInt32
    let mode: drmModeModeInfo?

    init?(card: DRMCard, crtcID: UInt32, connectorID: UInt32) {
        guard let crtc = drmModeGetCrtc(card.descriptor, crtcID) else { return nil }
        defer { drmModeFreeCrtc(crtc) }
        self.card = card
        self.crtcID = crtcID
        self.connectorID = connectorID
        framebufferID = crtc.pointee.buffer_id
        x = crtc.pointee.x
        y = crtc.pointee.y
        mode = crtc.pointee.mode_valid != 0 ? crtc.pointee.mode : nil
    }

    func restore() {
        var connector = connectorID
        if var mode, framebufferID != 0 {
            drmModeSetCrtc(card.descriptor, crtcID, framebufferID, x, y, &connector, 1, &mode)
        } else {
            drmModeSetCrtc(card.descriptor, crtcID, 0, 0, 0, nil, 0, nil)
        }
    }
}
