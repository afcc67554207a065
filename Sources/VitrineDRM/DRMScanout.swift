import CLibDRM
import Glibc
import VitrineCore

/// Which modesetting interface to use.
public enum DRMInterfacePreference: String, Hashable, Sendable, CaseIterable {
    /// Atomic where the driver supports it, legacy otherwise.
    case auto, atomic, legacy
}

/// A flip that completed: the frame that was queued is now on screen.
public struct DRMFlipCompletion: Hashable, Sendable {
    /// When the flip happened on CLOCK_MONOTONIC, in nanoseconds (the vblank timestamp).
    public var timestampNanoseconds: Int64
    public var sequence: UInt32
}

/// One connector driven by one CRTC with two dumb buffers: the owner of every
/// kernel object it creates, and the one that gives the display back.
///
/// Double buffering: the kiosk draws only into the back buffer, and only while
/// no flip is pending; presenting queues the back buffer for the next vblank,
/// and the buffers swap roles when the kernel reports the flip complete. So the
/// buffer on screen is never drawn into, and a buffer is never reused before
/// its flip has completed.
public final class DRMScanout {
    public let card: DRMCard
    public private(set) var connector: DRMConnector
    public private(set) var mode: DRMMode
    private let routing: OutputRouting
    private var interface: ModesetInterface
    private var buffers: [DRMFramebuffer]
    private var front = 0
    private var pendingFlip = false
    private var modesetDone = false
    private let saved: SavedCRTC?
    private var restored = false

    /// Picks the connector (by name, or the first connected), the mode
    /// (requested, or preferred), and a CRTC; saves the CRTC's configuration
    /// for `restore()`; allocates and maps the two buffers. Nothing reaches the
    /// screen until the first `present()`.
    public init(card: DRMCard, connectorName: String? = nil, mode request: DRMModeRequest? = nil,
                interface preference: DRMInterfacePreference = .auto) throws(DRMError) {
        self.card = card
        guard card.supportsDumbBuffers else {
            throw .unsupported(card: card.path, reason: "the driver \(card.driver) has no dumb buffers for CPU drawing")
        }
        let atomicAvailable = preference != .legacy && card.enableAtomic()
        try card.acquireMaster()
        let connectors = try card.connectors()
        connector = try Self.choose(connectorNamed: connectorName, from: connectors, card: card)
        mode = try Self.choose(mode: request, for: connector)
        routing = try Self.route(connector, card: card)
        saved = SavedCRTC(card: card, crtcID: routing.crtcID, connectorID: connector.id)
        if atomicAvailable, let properties = AtomicProperties(card: card, routing: routing) {
            interface = AtomicModeset(card: card, routing: routing, properties: properties)
        } else if preference == .atomic {
            throw .unsupported(card: card.path, reason: "atomic modesetting was asked for, but the driver \(card.driver) does not support it")
        } else {
            interface = LegacyModeset(card: card, routing: routing)
        }
        buffers = [try DRMFramebuffer(card: card, size: mode.size), try DRMFramebuffer(card: card, size: mode.size)]
    }

    deinit { restore() }

    public var size: PixelSize { mode.size }
    /// "atomic" or "legacy".
    public var interfaceName: String { interface.name }
    public var isFlipPending: Bool { pendingFlip }

    /// The buffer to draw the next frame into, or nil while a flip is pending.
    public func backCanvas() -> PixelCanvas? {
        guard !pendingFlip, !restored else { return nil }
        return buffers[1 - front].canvas
    }

    /// Shows the back buffer: the first time by a modeset (blocking), then by a
    /// page flip that completes at the next vblank (see `handleEvents`).
    public func present() throws(DRMError) {
        precondition(!pendingFlip, "present() while a flip is pending")
        let back = 1 - front
        if !modesetDone {
            try interface.modeset(framebuffer: buffers[back].framebufferID, mode: mode)
            modesetDone = true
            front = back
        } else {
            try interface.flip(framebuffer: buffers[back].framebufferID)
            pendingFlip = true
        }
    }

    /// Reads the DRM fd's events; returns the flips that completed. Call when
    /// the descriptor is readable.
    public func handleEvents() throws(DRMError) -> [DRMFlipCompletion] {
        var buffer = [UInt8](repeating: 0, count: 1024)
        let count = buffer.withUnsafeMutableBytes { read(card.descriptor, $0.baseAddress, $0.count) }
        if count < 0 {
            if errno == EAGAIN || errno == EINTR { return [] }
            throw .call("read of DRM events", errno: errno, subject: card.path)
        }
        let completions = DRMEventParser.flipCompletions(in: Array(buffer.prefix(count)))
        if !completions.isEmpty, pendingFlip {
            pendingFlip = false
            front = 1 - front
        }
        return completions
    }

    /// Sets the mode again after a hotplug: re-probes the connector, keeps the
    /// requested (or newly preferred) mode, and reallocates the buffers if the
    /// size changed. Returns true if the output size changed.
    @discardableResult
    public func reconfigure(mode request: DRMModeRequest?) throws(DRMError) -> Bool {
        let connectors = try card.connectors()
        guard let current = connectors.first(where: { $0.id == connector.id }) else {
            throw .connectorNotFound(card: card.path, requested: connector.name, available: connectors.map(\.name))
        }
        connector = current
        guard current.status != .disconnected else {
            throw .noConnectedConnector(card: card.path, connectors: connectors.map(\.description))
        }
        let newMode = try Self.choose(mode: request, for: current)
        let resized = newMode.size != mode.size
        mode = newMode
        if resized {
            buffers = [try DRMFramebuffer(card: card, size: mode.size), try DRMFramebuffer(card: card, size: mode.size)]
        }
        // A flip queued before the unplug will not complete on a dead CRTC.
        pendingFlip = false
        modesetDone = false
        try present()
        return resized
    }

    /// Puts back the CRTC configuration found at start (the console, or whatever
    /// was shown) and frees both buffers. Safe to call more than once.
    public func restore() {
        guard !restored else { return }
        restored = true
        saved?.restore()
        buffers.removeAll()
    }

    /// Whether the connector is connected now (a fresh probe; for hotplug).
    public func isConnected() -> Bool {
        (try? card.connectors().first { $0.id == connector.id }?.status) != .disconnected
    }

    // MARK: Choosing

    static func choose(connectorNamed name: String?, from connectors: [DRMConnector], card: DRMCard) throws(DRMError) -> DRMConnector {
        if let name {
            guard let named = connectors.first(where: { $0.name == name }) else {
                throw .connectorNotFound(card: card.path, requested: name, available: connectors.map(\.name))
            }
            guard named.status != .disconnected else {
                throw .noConnectedConnector(card: card.path, connectors: connectors.map(\.description))
            }
            return named
        }
        guard let connected = connectors.first(where: { $0.status == .connected && !$0.modes.isEmpty }) else {
            throw .noConnectedConnector(card: card.path, connectors: connectors.map(\.description))
        }
        return connected
    }

    static func choose(mode request: DRMModeRequest?, for connector: DRMConnector) throws(DRMError) -> DRMMode {
        let available = connector.modes.map { $0.description + ($0.isPreferred ? " (preferred)" : "") }
        guard let request else {
            guard let preferred = connector.modes.preferred else {
                throw .modeUnavailable(connector: connector.name, requested: "any", available: available)
            }
            return preferred
        }
        guard let match = request.match(in: connector.modes) else {
            throw .modeUnavailable(connector: connector.name, requested: request.description, available: available)
        }
        return match
    }

    /// The CRTC for `connector`: the one its encoder drives now, else the first
    /// its encoders can drive.
    static func route(_ connector: DRMConnector, card: DRMCard) throws(DRMError) -> OutputRouting {
        try card.withResources { (resources) throws(DRMError) -> OutputRouting in
            let crtcs = (0..<Int(resources.count_crtcs)).map { resources.crtcs[$0] }
            if connector.currentEncoderID != 0, let encoder = drmModeGetEncoder(card.descriptor, connector.currentEncoderID) {
                let crtc = encoder.pointee.crtc_id
                drmModeFreeEncoder(encoder)
                if crtc != 0, let index = crtcs.firstIndex(of: crtc) {
                    return OutputRouting(connectorID: connector.id, crtcID: crtc, crtcIndex: index)
                }
            }
            for encoderID in connector.encoderIDs {
                guard let encoder = drmModeGetEncoder(card.descriptor, encoderID) else { continue }
                let possible = encoder.pointee.possible_crtcs
                drmModeFreeEncoder(encoder)
                if let index = crtcs.indices.first(where: { possible & (1 << UInt32($0)) != 0 }) {
                    return OutputRouting(connectorID: connector.id, crtcID: crtcs[index], crtcIndex: index)
                }
            }
            throw .unsupported(card: card.path, reason: "no CRTC can drive \(connector.name)")
        }
    }
}

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

/// Parses what `read` returns on a DRM fd: `struct drm_event` headers, each
/// followed by its payload; flip completions are `struct drm_event_vblank`.
public enum DRMEventParser {
    static let flipComplete: UInt32 = 0x02  // DRM_EVENT_FLIP_COMPLETE

    public static func flipCompletions(in bytes: [UInt8]) -> [DRMFlipCompletion] {
        func u32(_ at: Int) -> UInt32 {
            UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16 | UInt32(bytes[at + 3]) << 24
        }
        var completions: [DRMFlipCompletion] = []
        var offset = 0
        while offset + 8 <= bytes.count {
            let type = u32(offset), length = Int(u32(offset + 4))
            guard length >= 8, offset + length <= bytes.count else { break }
            // type, length, user_data (8), tv_sec, tv_usec, sequence, crtc_id
            if type == flipComplete, length >= 32 {
                let seconds = Int64(u32(offset + 16)), microseconds = Int64(u32(offset + 20))
                completions.append(DRMFlipCompletion(
                    timestampNanoseconds: seconds * 1_000_000_000 + microseconds * 1000, sequence: u32(offset + 24)))
            }
            offset += length
        }
        return completions
    }
}
