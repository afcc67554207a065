import CLibDRM
import Glibc
import SystemPackage
import VitrineSystem

/// The two ways to program a CRTC, behind one interface, as wlroots' DRM
/// backend keeps them: atomic commits where the driver supports them, the
/// legacy SetCrtc/PageFlip ioctls where it does not.
protocol ModesetInterface: AnyObject {
    var name: String { get }
    /// Lights the connector up with `mode`, scanning out `framebuffer`; blocks until done.
    func modeset(framebuffer: UInt32, mode: DRMMode) throws(DRMError)
    /// Whether `test(framebuffer:mode:)` can ask the driver anything: false for
    /// the legacy ioctls, which have no way to ask without doing.
    var canTest: Bool { get }
    /// Asks the driver whether it would accept `modeset(framebuffer:mode:)`,
    /// changing nothing on screen. Throws the driver's refusal.
    func test(framebuffer: UInt32, mode: DRMMode) throws(DRMError)
    /// Queues `framebuffer` for the next vertical blank; a flip-complete event follows.
    func flip(framebuffer: UInt32) throws(DRMError)
    /// Turns the CRTC's output off or back on (display power), keeping its mode
    /// and buffers: on again, it scans out `framebuffer` at `mode`. Blocks until done.
    func setActive(_ active: Bool, framebuffer: UInt32, mode: DRMMode) throws(DRMError)
}

/// The CRTC, connector and primary plane one output uses.
struct OutputRouting {
    var connectorID: UInt32
    var crtcID: UInt32
    /// The CRTC's index in the resources, for the planes' `possible_crtcs` masks.
    var crtcIndex: Int
}

/// Maps errno from a modeset or flip: EACCES/EPERM mean somebody else is master.
func modesetError(_ call: String, card: DRMCard) -> DRMError {
    let error = Errno.lastCall
    if error == .permissionDenied || error == .notPermitted { return .masterHeld(path: card.path) }
    return .call(call, errno: error, subject: card.path)
}

/// `drmModeSetCrtc` and `drmModePageFlip`.
final class LegacyModeset: ModesetInterface {
    let name = "legacy"
    let canTest = false
    private let card: DRMCard
    private let routing: OutputRouting

    init(card: DRMCard, routing: OutputRouting) {
        self.card = card
        self.routing = routing
    }

    func modeset(framebuffer: UInt32, mode: DRMMode) throws(DRMError) {
        var connector = routing.connectorID
        var info = mode.info
        guard drmModeSetCrtc(card.descriptor, routing.crtcID, framebuffer, 0, 0, &connector, 1, &info) == 0 else {
            throw modesetError("drmModeSetCrtc \(mode)", card: card)
        }
    }

    /// The legacy interface cannot ask: `drmModeSetCrtc` itself reports a refusal.
    func test(framebuffer: UInt32, mode: DRMMode) throws(DRMError) {}

    func flip(framebuffer: UInt32) throws(DRMError) {
        guard drmModePageFlip(card.descriptor, routing.crtcID, framebuffer, UInt32(DRM_MODE_PAGE_FLIP_EVENT), nil) == 0 else {
            throw modesetError("drmModePageFlip", card: card)
        }
    }

    /// The connector's standard `DPMS` property (`drmModeConnectorSetProperty`),
    /// which the DRM core gives every connector: off blanks the panel and lets
    /// the monitor sleep while the CRTC keeps its mode and framebuffer, so on
    /// again needs no modeset. Without the property, the CRTC is switched off
    /// and set up again with `drmModeSetCrtc`.
    func setActive(_ active: Bool, framebuffer: UInt32, mode: DRMMode) throws(DRMError) {
        if let dpms = connectorProperty(named: "DPMS") {
            let value = UInt64(active ? DRM_MODE_DPMS_ON : DRM_MODE_DPMS_OFF)
            guard drmModeConnectorSetProperty(card.descriptor, routing.connectorID, dpms, value) == 0 else {
                throw modesetError("drmModeConnectorSetProperty DPMS \(active ? "on" : "off")", card: card)
            }
        } else if active {
            try modeset(framebuffer: framebuffer, mode: mode)
        } else {
            guard drmModeSetCrtc(card.descriptor, routing.crtcID, 0, 0, 0, nil, 0, nil) == 0 else {
                throw modesetError("drmModeSetCrtc (off)", card: card)
            }
        }
    }

    private func connectorProperty(named wanted: String) -> UInt32? {
        guard let list = drmModeObjectGetProperties(card.descriptor, routing.connectorID, UInt32(DRM_MODE_OBJECT_CONNECTOR)) else {
            return nil
        }
        defer { drmModeFreeObjectProperties(list) }
        for index in 0..<Int(list.pointee.count_props) {
            guard let property = drmModeGetProperty(card.descriptor, list.pointee.props[index]) else { continue }
            defer { drmModeFreeProperty(property) }
            let name = withUnsafeBytes(of: property.pointee.name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name == wanted { return property.pointee.prop_id }
        }
        return nil
    }
}

/// The property IDs an atomic commit needs, looked up by name once
/// (`drmModeObjectGetProperties`, `drmModeGetProperty`) rather than per frame.
struct AtomicProperties {
    struct Connector {
        var crtcID: UInt32

        init?(_ properties: DRMObjectProperties) {
            guard let crtcID = properties["CRTC_ID"]?.id else { return nil }
            self.crtcID = crtcID
        }
    }

    struct CRTC {
        var modeID: UInt32
        var active: UInt32

        init?(_ properties: DRMObjectProperties) {
            guard let modeID = properties["MODE_ID"]?.id, let active = properties["ACTIVE"]?.id else { return nil }
            self.modeID = modeID
            self.active = active
        }
    }

    /// A plane's position properties, and its `alpha` and `zpos` where it has them.
    struct Plane {
        var fbID: UInt32, crtcID: UInt32
        var srcX: UInt32, srcY: UInt32, srcW: UInt32, srcH: UInt32
        var crtcX: UInt32, crtcY: UInt32, crtcW: UInt32, crtcH: UInt32
        var alpha: UInt32?, zpos: UInt32?

        /// Nil when a position property is missing.
        init?(_ p: DRMObjectProperties) {
            guard let fbID = p["FB_ID"]?.id, let crtcID = p["CRTC_ID"]?.id,
                  let srcX = p["SRC_X"]?.id, let srcY = p["SRC_Y"]?.id, let srcW = p["SRC_W"]?.id, let srcH = p["SRC_H"]?.id,
                  let crtcX = p["CRTC_X"]?.id, let crtcY = p["CRTC_Y"]?.id, let crtcW = p["CRTC_W"]?.id, let crtcH = p["CRTC_H"]?.id
            else { return nil }
            (self.fbID, self.crtcID) = (fbID, crtcID)
            (self.srcX, self.srcY, self.srcW, self.srcH) = (srcX, srcY, srcW, srcH)
            (self.crtcX, self.crtcY, self.crtcW, self.crtcH) = (crtcX, crtcY, crtcW, crtcH)
            alpha = p["alpha"]?.id
            zpos = p["zpos"]?.id
        }
    }

    var connector: Connector
    var crtc: CRTC
    var plane: Plane
    var planeID: UInt32

    /// Nil when the driver lacks a property or a primary plane for the CRTC:
    /// the caller then uses the legacy interface.
    init?(card: DRMCard, routing: OutputRouting) {
        // The primary plane that can feed this CRTC.
        guard let primary = card.primaryPlane(feeding: routing.crtcIndex) else { return nil }
        guard let connector = Connector(card.properties(of: routing.connectorID, type: UInt32(DRM_MODE_OBJECT_CONNECTOR))),
              let crtc = CRTC(card.properties(of: routing.crtcID, type: UInt32(DRM_MODE_OBJECT_CRTC))),
              let plane = Plane(primary.properties) else { return nil }
        self.connector = connector
        self.crtc = crtc
        self.plane = plane
        self.planeID = primary.id
    }
}

/// `drmModeAtomicCommit` with properties resolved once. Tests and real
/// commits take the same path (`commit(_:flags:testOnly:what:)`), so what
/// a test accepted is exactly what the real commit then sends.
final class AtomicModeset: ModesetInterface {
    let name = "atomic"
    let canTest = true
    private let card: DRMCard
    private let routing: OutputRouting
    private let properties: AtomicProperties
    /// The mode on screen, kept until the next modeset replaces it.
    private var modeBlob: DRMPropertyBlob?

    init(card: DRMCard, routing: OutputRouting, properties: AtomicProperties) {
        self.card = card
        self.routing = routing
        self.properties = properties
    }

    func modeset(framebuffer: UInt32, mode: DRMMode) throws(DRMError) {
        try modeset(framebuffer: framebuffer, mode: mode, testOnly: false)
    }

    func test(framebuffer: UInt32, mode: DRMMode) throws(DRMError) {
        try modeset(framebuffer: framebuffer, mode: mode, testOnly: true)
    }

    /// The whole output's state in one commit: connector routed to the CRTC,
    /// the mode, ACTIVE, and the primary plane covering it with `framebuffer`.
    private func modeset(framebuffer: UInt32, mode: DRMMode, testOnly: Bool) throws(DRMError) {
        // A failed commit below, or a test, drops `blob` as the scope ends: its deinit destroys it.
        let blob = try DRMPropertyBlob(card: card, mode: mode)
        let p = properties
        let request: [(UInt32, UInt32, UInt64)] = [
            (routing.connectorID, p.connector.crtcID, UInt64(routing.crtcID)),
            (routing.crtcID, p.crtc.modeID, UInt64(blob.id)),
            (routing.crtcID, p.crtc.active, 1),
        ] + planeSettings(framebuffer: framebuffer, width: mode.width, height: mode.height)
        try commit(request, flags: UInt32(DRM_MODE_ATOMIC_ALLOW_MODESET), testOnly: testOnly,
                   what: "atomic modeset \(mode)")
        guard !testOnly else { return }
        // The mode on screen until now is destroyed here, by the assignment.
        modeBlob = consume blob
    }

    func flip(framebuffer: UInt32) throws(DRMError) {
        try commit([(properties.planeID, properties.plane.fbID, UInt64(framebuffer))],
                   flags: UInt32(DRM_MODE_PAGE_FLIP_EVENT) | UInt32(DRM_MODE_ATOMIC_NONBLOCK), testOnly: false,
                   what: "atomic page flip")
    }

    /// The CRTC's `ACTIVE` property. Off leaves `MODE_ID`, the connector's
    /// routing and the plane's framebuffer in the state (enabled but inactive:
    /// what DPMS off means in atomic terms), so on again is the same state with
    /// `ACTIVE` set: the kernel counts both as modesets, hence ALLOW_MODESET.
    func setActive(_ active: Bool, framebuffer: UInt32, mode: DRMMode) throws(DRMError) {
        guard active else {
            try commit([(routing.crtcID, properties.crtc.active, 0)], flags: UInt32(DRM_MODE_ATOMIC_ALLOW_MODESET),
                       testOnly: false, what: "atomic commit ACTIVE=0")
            return
        }
        try modeset(framebuffer: framebuffer, mode: mode)
    }

    private func planeSettings(framebuffer: UInt32, width: Int, height: Int) -> [(UInt32, UInt32, UInt64)] {
        let plane = properties.planeID, p = properties.plane
        let width = UInt64(width), height = UInt64(height)
        return [
            (plane, p.fbID, UInt64(framebuffer)), (plane, p.crtcID, UInt64(routing.crtcID)),
            // Source coordinates are 16.16 fixed point; destination ones whole pixels.
            (plane, p.srcX, 0), (plane, p.srcY, 0), (plane, p.srcW, width << 16), (plane, p.srcH, height << 16),
            (plane, p.crtcX, 0), (plane, p.crtcY, 0), (plane, p.crtcW, width), (plane, p.crtcH, height),
        ]
    }

    /// `drmModeAtomicCommit` of `settings`. A test (`DRM_MODE_ATOMIC_TEST_ONLY`)
    /// runs the driver's whole check and changes nothing; it cannot ask for a
    /// flip event (the kernel refuses the pair with EINVAL), so that flag is dropped.
    private func commit(_ settings: [(UInt32, UInt32, UInt64)], flags: UInt32, testOnly: Bool,
                        what: String) throws(DRMError) {
        let flags = testOnly ? flags & ~UInt32(DRM_MODE_PAGE_FLIP_EVENT) | UInt32(DRM_MODE_ATOMIC_TEST_ONLY) : flags
        try card.atomicCommit(settings, flags: flags, what: testOnly ? "test of \(what)" : what)
    }
}

extension DRMCard {
    /// One `drmModeAtomicCommit` of `settings` (object, property, value), built
    /// with `drmModeAtomicAlloc` and `drmModeAtomicAddProperty`; a refusal
    /// names `what` (`modesetError`: a lost master is `.masterHeld`).
    func atomicCommit(_ settings: [(UInt32, UInt32, UInt64)], flags: UInt32, what: String) throws(DRMError) {
        guard let request = drmModeAtomicAlloc() else { throw .call("drmModeAtomicAlloc", errno: .noMemory, subject: path) }
        defer { drmModeAtomicFree(request) }
        for (object, property, value) in settings {
            guard drmModeAtomicAddProperty(request, object, property, value) >= 0 else {
                throw .call("drmModeAtomicAddProperty", errno: .lastCall, subject: path)
            }
        }
        guard drmModeAtomicCommit(descriptor, request, flags, nil) == 0 else { throw modesetError(what, card: self) }
    }
}
