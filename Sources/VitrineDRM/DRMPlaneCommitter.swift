import CLibDRM
import Glibc
import SystemPackage
import VitrineCore
import VitrineSystem

/// Atomic commits that set several planes of one CRTC at once
/// (`drmModeAtomicAlloc`, `drmModeAtomicAddProperty`, `drmModeAtomicCommit`),
/// with every plane's property IDs looked up once: the I/O edge of
/// `PlanePlanner`, whose plans it tests (`DRM_MODE_ATOMIC_TEST_ONLY`) and
/// commits, and, where the card has a writeback connector, captures.
///
/// The card must have atomic modesetting on (`DRMCard.enableAtomic`).
public final class DRMPlaneCommitter {
    public let card: DRMCard
    public let crtcID: UInt32
    private let connectorID: UInt32
    private let connectorCRTC: UInt32
    private let modeProperty: UInt32
    private let activeProperty: UInt32
    private let planes: [UInt32: AtomicProperties.Plane]
    /// The mode on screen since `modeset`, kept alive as long as it is.
    private var modeBlob: DRMPropertyBlob?
    /// What each plane was last committed with. An atomic request changes
    /// the current state, so a frame sends only the planes that differ: a
    /// slide transition moves two or three of the output's planes, and the
    /// kernel checks only the planes a request names.
    private var committed: [UInt32: DRMPlaneSetting] = [:]

    /// For the output of `connectorID` on `crtcID`, driving `planeIDs`.
    public init(card: DRMCard, connectorID: UInt32, crtcID: UInt32, planeIDs: [UInt32]) throws(DRMError) {
        func missing(_ what: String) -> DRMError { .unsupported(card: card.path, reason: "no \(what) property for an atomic commit") }
        guard let connector = AtomicProperties.Connector(card.properties(of: connectorID, type: UInt32(DRM_MODE_OBJECT_CONNECTOR)))
        else { throw missing("connector CRTC_ID") }
        guard let crtc = AtomicProperties.CRTC(card.properties(of: crtcID, type: UInt32(DRM_MODE_OBJECT_CRTC)))
        else { throw missing("CRTC MODE_ID or ACTIVE") }
        var planes: [UInt32: AtomicProperties.Plane] = [:]
        for id in planeIDs {
            guard let plane = AtomicProperties.Plane(card.properties(of: id, type: UInt32(DRM_MODE_OBJECT_PLANE)))
            else { throw missing("plane \(id) position") }
            planes[id] = plane
        }
        self.card = card
        self.crtcID = crtcID
        self.connectorID = connectorID
        connectorCRTC = connector.crtcID
        modeProperty = crtc.modeID
        activeProperty = crtc.active
        self.planes = planes
    }

    /// Lights the output at `mode` with `settings` in one commit (connector
    /// routed, `MODE_ID`, `ACTIVE`, the planes), blocking until it is on screen.
    public func modeset(_ mode: DRMMode, settings: [DRMPlaneSetting]) throws(DRMError) {
        let blob = try DRMPropertyBlob(card: card, mode: mode)
        let routing: [(UInt32, UInt32, UInt64)] = [(connectorID, connectorCRTC, UInt64(crtcID)), (crtcID, modeProperty, UInt64(blob.id)),
                                                   (crtcID, activeProperty, 1)]
        let request = routing + (try properties(of: settings))
        try commit(request, flags: UInt32(DRM_MODE_ATOMIC_ALLOW_MODESET), what: "atomic modeset \(mode) with \(settings.count) planes")
        modeBlob = consume blob
        remember(settings)
    }

    /// Whether the driver takes `settings` (`DRM_MODE_ATOMIC_TEST_ONLY`: its
    /// whole check runs and nothing changes); the error says why not.
    public func test(_ settings: [DRMPlaneSetting]) -> DRMError? {
        do {
            try commit(try properties(of: changed(settings)), flags: UInt32(DRM_MODE_ATOMIC_TEST_ONLY),
                       what: "test of \(settings.count) planes")
            return nil
        } catch {
            return error
        }
    }

    /// Commits `settings`, blocking until they are on screen; with
    /// `capture`, the frame they compose is also written into its buffer.
    public func commit(_ settings: [DRMPlaneSetting], capture: DRMWriteback.Capture? = nil) throws(DRMError) {
        // A capture whose restore failed left the output off its CRTC, or the writeback on it.
        try restoreIfPending()
        let request = try properties(of: changed(settings))
        guard let capture else {
            try commit(request, flags: 0, what: "atomic commit of \(settings.count) planes")
            remember(settings)
            return
        }
        if !writebackAlone {
            // Only a refused capture commit (nothing applied) makes the next try detach the output;
            // a fence that never came or a failed restore is thrown as it is.
            if try commitCapturing(request, settings, capture, detachingOutput: false) { return }
            // VKMS in 6.1 cannot clone its writeback encoder with its output's
            // (drm_atomic_check_valid_clones): the writeback must be the CRTC's only connector.
            writebackAlone = true
        }
        if try !commitCapturing(request, settings, capture, detachingOutput: true) {
            throw .unsupported(card: card.path, reason: "the driver refuses a writeback capture on this CRTC")
        }
    }

    /// Queues `settings` for the next vblank without waiting
    /// (`DRM_MODE_ATOMIC_NONBLOCK`), asking for a flip-complete event on the
    /// card's descriptor (`DRM_MODE_PAGE_FLIP_EVENT`), which `DRMScanout`
    /// reads. False when no plane's setting changed: nothing was committed, and
    /// no event will come (a request naming no plane names no CRTC, and the
    /// kernel sends events only for the CRTCs a request touches).
    public func flip(_ settings: [DRMPlaneSetting]) throws(DRMError) -> Bool {
        let changed = changed(settings)
        guard !changed.isEmpty else { return false }
        try restoreIfPending()
        try commit(try properties(of: changed), flags: UInt32(DRM_MODE_PAGE_FLIP_EVENT) | UInt32(DRM_MODE_ATOMIC_NONBLOCK),
                   what: "atomic flip of \(changed.count) planes")
        remember(settings)
        return true
    }

    /// Makes the next commit send every plane's setting, not only those that
    /// changed: after anything else may have set the planes (another master
    /// before this one, a VT switch).
    public func resendAll() {
        committed = [:]
    }

    /// Forgets what the planes showed of `framebuffer`, before its owner
    /// removes it: the kernel reuses a removed framebuffer's ID, and a new
    /// buffer with the old one's ID and geometry must not pass for "unchanged".
    public func forget(framebuffer: UInt32) {
        committed = committed.filter { $0.value.framebuffer != framebuffer }
    }

    /// The settings that differ from what their planes show now.
    private func changed(_ settings: [DRMPlaneSetting]) -> [DRMPlaneSetting] {
        settings.filter { committed[$0.plane] != $0 }
    }

    private func remember(_ settings: [DRMPlaneSetting]) {
        for setting in settings { committed[setting.plane] = setting }
    }

    /// Whether a capture must take the output's connector off the CRTC while it runs.
    private var writebackAlone = false
    /// A capture's routing still to be undone: its restore commit failed.
    private var pendingRestore: (writeback: DRMWriteback, detachedOutput: Bool)?

    /// The writeback connector off the CRTC and, if a capture took it off, the output back on.
    private func restore(_ writeback: DRMWriteback, detachedOutput: Bool) throws(DRMError) {
        var restore: [(UInt32, UInt32, UInt64)] = [(writeback.connectorID, writeback.crtcProperty, 0)]
        if detachedOutput { restore.append((connectorID, connectorCRTC, UInt64(crtcID))) }
        pendingRestore = (writeback, detachedOutput)
        try commit(restore, flags: UInt32(DRM_MODE_ATOMIC_ALLOW_MODESET), what: "detaching the writeback connector")
        pendingRestore = nil
    }

    private func restoreIfPending() throws(DRMError) {
        if let pending = pendingRestore { try restore(pending.writeback, detachedOutput: pending.detachedOutput) }
    }

    /// One capture: false when the driver refused the capture commit (nothing changed); true
    /// once the frame is written. Other failures are thrown, after the planes' settings are
    /// remembered, since the capture commit applied them.
    private func commitCapturing(_ planes: [(UInt32, UInt32, UInt64)], _ settings: [DRMPlaneSetting],
                                 _ capture: DRMWriteback.Capture, detachingOutput: Bool) throws(DRMError) -> Bool {
        // The kernel writes a sync file descriptor here, signalled when the writeback is done.
        var fence: Int32 = -1
        let writeback = capture.writeback
        var request = planes
        if detachingOutput { request.append((connectorID, connectorCRTC, 0)) }
        let refused = withUnsafeMutablePointer(to: &fence) { pointer -> Bool in
            request += [(writeback.connectorID, writeback.crtcProperty, UInt64(crtcID)),
                        (writeback.connectorID, writeback.framebufferProperty, UInt64(capture.buffer.framebufferID)),
                        (writeback.connectorID, writeback.fenceProperty, UInt64(UInt(bitPattern: pointer)))]
            // Routing a connector to or from the CRTC is a modeset in the kernel's eyes.
            do {
                try commit(request, flags: UInt32(DRM_MODE_ATOMIC_ALLOW_MODESET), what: "atomic commit with writeback")
                return false
            } catch {
                return true
            }
        }
        if refused { return false }
        remember(settings)
        defer { if fence >= 0 { close(fence) } }
        var waited: DRMError?
        if fence >= 0 {
            var poll = pollfd(fd: fence, events: Int16(POLLIN), revents: 0)
            if Glibc.poll(&poll, 1, 5000) != 1 { waited = .call("poll of the writeback fence", errno: .timedOut, subject: card.path) }
        }
        // Put the output back on the CRTC and the writeback connector off it, whatever the wait gave;
        // a restore that fails is tried again before the next capture.
        try restore(writeback, detachedOutput: detachingOutput)
        if let waited { throw waited }
        return true
    }

    /// The property triples for `settings`; a setting that needs a property its plane lacks is refused.
    private func properties(of settings: [DRMPlaneSetting]) throws(DRMError) -> [(UInt32, UInt32, UInt64)] {
        var request: [(UInt32, UInt32, UInt64)] = []
        for setting in settings {
            guard let p = planes[setting.plane] else {
                throw .unsupported(card: card.path, reason: "plane \(setting.plane) is not one of this output's")
            }
            let plane = setting.plane
            guard setting.framebuffer != 0 else {
                request += [(plane, p.fbID, 0), (plane, p.crtcID, 0)]
                continue
            }
            let d = setting.destination
            request += [
                (plane, p.fbID, UInt64(setting.framebuffer)), (plane, p.crtcID, UInt64(crtcID)),
                (plane, p.srcX, UInt64(setting.source.x)), (plane, p.srcY, UInt64(setting.source.y)),
                (plane, p.srcW, UInt64(setting.source.width)), (plane, p.srcH, UInt64(setting.source.height)),
                // CRTC_X and CRTC_Y are signed 32-bit values in a 64-bit property.
                (plane, p.crtcX, UInt64(bitPattern: Int64(d.x))), (plane, p.crtcY, UInt64(bitPattern: Int64(d.y))),
                (plane, p.crtcW, UInt64(d.width)), (plane, p.crtcH, UInt64(d.height)),
            ]
            if let alpha = setting.alpha {
                guard let property = p.alpha else {
                    throw .unsupported(card: card.path, reason: "plane \(plane) has no alpha property")
                }
                request.append((plane, property, UInt64(alpha)))
            }
            if let zpos = setting.zpos {
                guard let property = p.zpos else { throw .unsupported(card: card.path, reason: "plane \(plane) has no zpos property") }
                request.append((plane, property, UInt64(zpos)))
            }
        }
        return request
    }

    private func commit(_ settings: [(UInt32, UInt32, UInt64)], flags: UInt32, what: String) throws(DRMError) {
        try card.atomicCommit(settings, flags: flags, what: what)
    }
}
