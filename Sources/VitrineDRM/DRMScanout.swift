import CLibDRM
import Glibc
import VitrineCore
import SystemPackage
import VitrineSystem

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
    private var state: ScanoutState = .awaitingFirstFrame(.lit)
    private let saved: SavedCRTC?

    /// Picks the connector (by name, or the first connected), the mode
    /// (requested, or preferred, as far as the driver accepts it: see
    /// `firstAccepted`), and a CRTC (`crtcIndex`, an `OutputPlan`'s, when the
    /// connector's encoders can drive it; else as `route` chooses); saves the
    /// CRTC's configuration for `restore()`; allocates and maps the two
    /// buffers. Nothing reaches the screen until the first `present()`.
    public init(card: DRMCard, connectorName: String? = nil, mode request: DRMModeRequest? = nil, crtcIndex: Int? = nil,
                interface preference: DRMInterfacePreference = .auto) throws(DRMError) {
        self.card = card
        let atomicAvailable = try Self.prepare(card, preference)
        let connectors = try card.connectors()
        connector = try Self.choose(connectorNamed: connectorName, from: connectors, card: card.path)
        let candidates = try Self.candidates(mode: request, for: connector)
        routing = try Self.route(connector, card: card, preferring: crtcIndex)
        saved = SavedCRTC(card: card, crtcID: routing.crtcID, connectorID: connector.id)
        interface = try Self.interface(card: card, routing: routing, atomic: atomicAvailable, preference: preference)
        (mode, buffers) = try Self.firstAccepted(candidates, on: connector, interface: interface, card: card)
    }

    /// Opens a connector whose display is not there yet (an output that
    /// `wait`s: unplugged, or switched off at boot): the CRTC (`crtcIndex`,
    /// the plan's kept one) is routed and saved, but no buffer is allocated
    /// and no mode set. Until a hotplug finds a display on it (`followHotplug`
    /// then sets the mode as after a replug) `isShowing` is false, and `size`
    /// and `mode` are `standIn`'s, the size the kiosk lays out at meanwhile.
    public init(card: DRMCard, waitingOn connectorName: String, standIn: (width: Int, height: Int, refreshHertz: Int),
                crtcIndex: Int? = nil, interface preference: DRMInterfacePreference = .auto) throws(DRMError) {
        self.card = card
        let atomicAvailable = try Self.prepare(card, preference)
        let connectors = try card.connectors()
        guard let named = connectors.first(where: { $0.name == connectorName }) else {
            throw .connectorNotFound(card: card.path, requested: connectorName, available: connectors.map(\.name))
        }
        connector = named
        routing = try Self.route(named, card: card, preferring: crtcIndex)
        saved = SavedCRTC(card: card, crtcID: routing.crtcID, connectorID: named.id)
        interface = try Self.interface(card: card, routing: routing, atomic: atomicAvailable, preference: preference)
        mode = .standIn(width: standIn.width, height: standIn.height, refreshHertz: standIn.refreshHertz)
        buffers = []
        state = .awaitingFirstFrame(ScanoutState.Panel(connection: .unplugged, power: .on))
    }

    deinit { restore() }

    /// What every scanout needs of its card first: dumb buffers, atomic
    /// modesetting unless `legacy` is asked for (returned: whether the driver
    /// took it), and DRM master.
    private static func prepare(_ card: DRMCard, _ preference: DRMInterfacePreference) throws(DRMError) -> Bool {
        guard card.supportsDumbBuffers else {
            throw .unsupported(card: card.path, reason: "the driver \(card.driver) has no dumb buffers for CPU drawing")
        }
        let atomicAvailable = preference != .legacy && card.enableAtomic()
        try card.acquireMaster()
        return atomicAvailable
    }

    /// The atomic interface where the driver has it and its properties resolve, else the legacy one
    /// (unless `atomic` was asked for).
    private static func interface(card: DRMCard, routing: OutputRouting, atomic atomicAvailable: Bool,
                                  preference: DRMInterfacePreference) throws(DRMError) -> ModesetInterface {
        if atomicAvailable, let properties = AtomicProperties(card: card, routing: routing) {
            return AtomicModeset(card: card, routing: routing, properties: properties)
        }
        if preference == .atomic {
            throw .unsupported(card: card.path, reason: "atomic modesetting was asked for, but the driver \(card.driver) does not support it")
        }
        return LegacyModeset(card: card, routing: routing)
    }

    public var size: PixelSize { mode.size }
    /// "atomic" or "legacy".
    public var interfaceName: String { interface.name }
    public var isFlipPending: Bool { state == .flipPending }

    /// The buffer to draw the next frame into, or nil while a flip is pending
    /// or the display is away.
    public func backCanvas() -> PixelCanvas? {
        switch state {
        case .awaitingFirstFrame(let panel), .scanningOut(let panel):
            panel.isLit ? buffers[1 - front].canvas : nil
        case .flipPending, .givenBack:
            nil
        }
    }

    /// Shows the back buffer: the first time by a modeset (blocking), then by a
    /// page flip that completes at the next vblank (see `handleEvents`).
    public func present() throws(DRMError) {
        // Each refusal is the caller's mistake (it draws only when `backCanvas()`
        // gave a buffer), but a kiosk must not crash over one frame: refuse the frame.
        let back = 1 - front
        switch state {
        case .flipPending:
            throw .call("present while a page flip is pending", errno: .resourceBusy, subject: card.path)
        case .givenBack:
            throw notShowing
        case .awaitingFirstFrame(let panel):
            guard panel.isLit else { throw notShowing }
            try interface.modeset(framebuffer: buffers[back].framebufferID, mode: mode)
            front = back
            state = .scanningOut(panel)
        case .scanningOut(let panel):
            guard panel.isLit else { throw notShowing }
            try interface.flip(framebuffer: buffers[back].framebufferID)
            state = .flipPending
        }
    }

    private var notShowing: DRMError {
        .unsupported(card: card.path, reason: "\(connector.name) is not showing (disconnected, switched off, or given back)")
    }

    /// Reads the DRM fd's events; returns the flips that completed. Call when
    /// the descriptor is readable.
    public func handleEvents() throws(DRMError) -> [DRMFlipCompletion] {
        var buffer = [UInt8](repeating: 0, count: 1024)
        let count = buffer.withUnsafeMutableBytes { read(card.descriptor, $0.baseAddress, $0.count) }
        if count < 0 {
            let error = Errno.lastCall
            // The descriptor is non-blocking: nothing to read yet, or a signal first; the loop polls again.
            if error == .resourceTemporarilyUnavailable || error == .interrupted { return [] }
            throw .call("read of DRM events", errno: error, subject: card.path)
        }
        let completions = DRMEventParser.flipCompletions(in: Array(buffer.prefix(count)))
        if !completions.isEmpty, state == .flipPending {
            state = .scanningOut(.lit)
            front = 1 - front
        }
        return completions
    }

    // MARK: Power

    /// False from `setPower(on: false)` until `setPower(on: true)`, and once
    /// the display is given back: the panel is dark and nothing is presented.
    public var isPoweredOn: Bool { state.panel?.power == .on }

    /// Turns the display off or on (atomic `ACTIVE`, or the legacy `DPMS`
    /// property), keeping the mode and both buffers, so waking shows the frame
    /// last presented at once. Call it with no flip pending: a commit behind a
    /// pending nonblocking flip fails with EBUSY. Off before the first frame, or
    /// while unplugged, only records the state: the next modeset honours it.
    public func setPower(on: Bool) throws(DRMError) {
        let power: ScanoutState.Panel.Power = on ? .on : .off
        switch state {
        case .givenBack:
            return
        case .flipPending:
            // A pending flip means the panel is on.
            guard !on else { return }
            throw .call("display power change while a page flip is pending", errno: .resourceBusy, subject: card.path)
        case .awaitingFirstFrame(var panel):
            panel.power = power
            state = .awaitingFirstFrame(panel)
        case .scanningOut(var panel):
            guard panel.power != power else { return }
            if panel.connection == .connected {
                try interface.setActive(on, framebuffer: buffers[front].framebufferID, mode: mode)
            }
            panel.power = power
            state = .scanningOut(panel)
        }
    }

    // MARK: Hotplug

    /// What a hotplug did to this output.
    public enum HotplugResult: Equatable, Sendable {
        /// Nothing that concerns it: the display is still there with the same
        /// mode (the event was about another connector), or still away.
        case unchanged
        /// The display went away: presenting stops until it comes back.
        case disconnected
        /// The display is back, or another one with other modes took its place:
        /// the mode was set again. The frame last shown is on screen (black if
        /// the size changed) until the next `present()`.
        case modeSet(previous: DRMMode, resized: Bool)
    }

    /// False from a hotplug that finds the connector disconnected until one that
    /// finds a display on it again and sets its mode, and once the display is
    /// given back; nothing is presented meanwhile.
    public var isShowing: Bool { state.panel?.connection == .connected }

    /// Follows a hotplug uevent: probes the connector again and stops
    /// presenting, or sets the mode again, as the probe says. Call it with no
    /// flip pending (wait for the flip's completion first): a blocking modeset
    /// behind a pending nonblocking commit waits for it in the kernel, and
    /// after a modeset the pending flip's event would swap the buffers wrongly.
    /// (The kernel always delivers a requested flip event, even when the CRTC
    /// is turned off, so waiting for it cannot hang.)
    ///
    /// Throws when the display is there but cannot be used (none of its modes
    /// fits the request, the modeset fails); nothing is presented then until
    /// a later hotplug brings a usable display, and every buffer is kept.
    public func followHotplug(mode request: DRMModeRequest?) throws(DRMError) -> HotplugResult {
        let panel: ScanoutState.Panel
        switch state {
        case .givenBack:
            return .unchanged
        case .flipPending:
            throw .call("hotplug handling while a page flip is pending", errno: .resourceBusy, subject: card.path)
        case .awaitingFirstFrame(let current), .scanningOut(let current):
            panel = current
        }
        var unplugged = panel
        unplugged.connection = .unplugged
        // A full probe (drmModeGetConnector), not the cached state: after a
        // replug only a probe reads the new display's EDID and so its modes. It
        // may take a few milliseconds of DDC traffic, once per hotplug.
        let connectors = try card.connectors()
        let probed = connectors.first { $0.id == connector.id }
        if let probed { connector = probed }
        switch Self.hotplugDecision(showing: panel.connection == .connected, current: mode, probed: probed, request: request) {
        case .none:
            return .unchanged
        case .stop:
            // Keep the buffers, the CRTC and its mode as they are: the kernel
            // keeps scanning out the last frame into a connector that has no
            // display, which costs nothing, and turning the CRTC off would only
            // make the replug slower. The kiosk keeps running and draws nothing.
            state = state.with(unplugged)
            return .disconnected
        case .unusable(let error):
            state = state.with(unplugged)
            throw error
        case .modeset(let newMode):
            let previous = mode
            let resized: Bool
            do {
                // The decision's mode first, then what the driver may accept instead.
                let others = ((try? Self.candidates(mode: request, for: connector)) ?? []).filter { !$0.hasSameTimings(as: newMode) }
                resized = try setMode([newMode] + others)
            } catch {
                state = state.with(unplugged)
                throw error
            }
            do {
                // A display plugged in while the screen is switched off stays dark.
                if panel.power == .off { try interface.setActive(false, framebuffer: buffers[front].framebufferID, mode: mode) }
            } catch {
                state = .scanningOut(unplugged)
                throw error
            }
            state = .scanningOut(ScanoutState.Panel(connection: .connected, power: panel.power))
            return .modeSet(previous: previous, resized: resized)
        }
    }

    /// What a hotplug means, from the connector's fresh probe (nil when it is
    /// gone from the card): a pure decision, so that it can be tested.
    enum HotplugDecision: Equatable {
        case none, stop
        case modeset(DRMMode)
        case unusable(DRMError)
    }

    static func hotplugDecision(showing: Bool, current: DRMMode, probed: DRMConnector?,
                                request: DRMModeRequest?) -> HotplugDecision {
        // A connector that vanished (a DisplayPort MST branch unplugged) or has
        // no display: stop. A replugged MST display comes back as a new
        // connector with a new ID, which this output does not follow.
        guard let probed, probed.status != .disconnected, !probed.modes.isEmpty else { return showing ? .stop : .none }
        let wanted: DRMMode
        do {
            wanted = try choose(mode: request, for: probed)
        } catch {
            return .unusable(error)
        }
        // Still showing with the same timings: the event was about something
        // else (another connector, a property). A modeset would make a real
        // monitor resynchronise, blank for a second, for nothing.
        if showing, wanted.hasSameTimings(as: current) { return .none }
        return .modeset(wanted)
    }

    /// Sets the first of `candidates` the driver accepts on the CRTC, with new
    /// buffers if the size changed. The modeset scans out the front buffer,
    /// which holds the frame last shown (or black, if the buffers are new), so
    /// that the back buffer is free for the kiosk's next frame, which follows
    /// as a page flip. Returns whether the size changed.
    private func setMode(_ candidates: [DRMMode]) throws(DRMError) -> Bool {
        let (newMode, next) = try Self.firstAccepted(candidates, on: connector, interface: interface, card: card,
                                                     reusing: buffers)
        let resized = newMode.size != mode.size
        let shown = resized ? 0 : front
        try interface.modeset(framebuffer: next[shown].framebufferID, mode: newMode)
        // The old buffers are freed only now that the CRTC scans out a new one:
        // removing the framebuffer being scanned out (drmModeRmFB) would switch
        // the CRTC off.
        buffers = next
        front = shown
        mode = newMode
        return resized
    }

    /// Puts back the CRTC configuration found at start (the console, or whatever
    /// was shown) and frees both buffers. Safe to call more than once.
    public func restore() {
        guard state != .givenBack else { return }
        state = .givenBack
        saved?.restore()
        buffers.removeAll()
    }

    // MARK: Choosing

    static func choose(connectorNamed name: String?, from connectors: [DRMConnector], card: String) throws(DRMError) -> DRMConnector {
        if let name {
            guard let named = connectors.first(where: { $0.name == name }) else {
                throw .connectorNotFound(card: card, requested: name, available: connectors.map(\.name))
            }
            guard named.status != .disconnected else {
                throw .noConnectedConnector(card: card, connectors: connectors.map(\.description))
            }
            return named
        }
        guard let connected = connectors.first(where: isDefaultCandidate) else {
            throw .noConnectedConnector(card: card, connectors: connectors.map(\.description))
        }
        return connected
    }

    /// How many modes `firstAccepted` asks the driver about before it gives up.
    static let maximumModesTried = 8

    /// The modes to offer the driver, best first: the requested one (or the
    /// preferred one). With no request, the connector's other modes follow,
    /// largest and fastest first, for a driver that refuses the best (an HDMI
    /// port's clock limit, a panel's EDID promising more than the link carries).
    /// An explicit request is honoured or refused, never swapped for another size.
    static func candidates(mode request: DRMModeRequest?, for connector: DRMConnector) throws(DRMError) -> [DRMMode] {
        let first = try choose(mode: request, for: connector)
        guard request == nil else { return [first] }
        var others: [DRMMode] = []
        for mode in connector.modes.sorted(by: { ($0.width * $0.height, $0.refreshMillihertz) > ($1.width * $1.height, $1.refreshMillihertz) })
        where !mode.hasSameTimings(as: first) && !others.contains(where: { $0.hasSameTimings(as: mode) }) {
            others.append(mode)
        }
        return [first] + others
    }

    /// The first of `candidates` the driver accepts on this output, with two
    /// buffers of its size (`reusing` the ones given, when they have it). The
    /// atomic interface asks with a test commit (`DRM_MODE_ATOMIC_TEST_ONLY`),
    /// so a refused mode gives way to the next rather than to a black screen;
    /// the legacy one cannot ask, so its first candidate is taken and the
    /// modeset reports a refusal. Another process holding the display is not a
    /// refusal of the mode: that error ends the search. At most
    /// `maximumModesTried` are asked: each needs buffers of its size (a 5K
    /// mode's are 88 MB), and a driver that refuses that many refuses them all.
    static func firstAccepted(_ candidates: [DRMMode], on connector: DRMConnector, interface: ModesetInterface,
                              card: DRMCard, reusing existing: [DRMFramebuffer] = []) throws(DRMError) -> (DRMMode, [DRMFramebuffer]) {
        var refusals: [String] = []
        var buffers = existing
        for mode in candidates.prefix(maximumModesTried) {
            if buffers.count != 2 || buffers[0].size != mode.size {
                buffers = [try DRMFramebuffer(card: card, size: mode.size), try DRMFramebuffer(card: card, size: mode.size)]
            }
            guard interface.canTest else { return (mode, buffers) }
            do {
                try interface.test(framebuffer: buffers[0].framebufferID, mode: mode)
                return (mode, buffers)
            } catch .masterHeld(let path) {
                throw .masterHeld(path: path)
            } catch {
                refusals.append("\(mode): \(error)")
            }
        }
        throw .modeRefused(connector: connector.name, refusals: refusals)
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

    /// The CRTC for `connector`: `preferred` when its encoders can drive it,
    /// else the one its encoder drives now, else the first its encoders can
    /// drive (`routeIndex`).
    static func route(_ connector: DRMConnector, card: DRMCard, preferring preferred: Int? = nil) throws(DRMError) -> OutputRouting {
        try card.withResources { (resources) throws(DRMError) -> OutputRouting in
            let crtcs = (0..<Int(resources.count_crtcs)).map { resources.crtcs[$0] }
            if let preferred, (0..<min(crtcs.count, 32)).contains(preferred),
               connector.encoderIDs.contains(where: { (card.encoder($0)?.possibleCRTCs ?? 0) & (1 << UInt32(preferred)) != 0 }) {
                return OutputRouting(connectorID: connector.id, crtcID: crtcs[preferred], crtcIndex: preferred)
            }
            let current = card.currentCRTC(of: connector, among: crtcs)
            // The encoders are asked only when the connector is on no CRTC, as they always were.
            let masks = current != nil ? [] : connector.encoderIDs.map { card.encoder($0)?.possibleCRTCs ?? 0 }
            guard let index = routeIndex(current: current, encoderMasks: masks, crtcCount: crtcs.count) else {
                throw .unsupported(card: card.path, reason: "no CRTC can drive \(connector.name)")
            }
            return OutputRouting(connectorID: connector.id, crtcID: crtcs[index], crtcIndex: index)
        }
    }

    /// The CRTC index the one output takes, as it always has: the one it is on
    /// now, else, encoder by encoder in the connector's order, the lowest its
    /// encoder can drive. (`CRTCAssignment` gives the same for a connector alone
    /// on a card, except where a later encoder can drive a lower CRTC than the first.)
    static func routeIndex(current: Int?, encoderMasks: [UInt32], crtcCount: Int) -> Int? {
        if let current, (0..<crtcCount).contains(current) { return current }
        for mask in encoderMasks {
            if let index = (0..<min(crtcCount, 32)).first(where: { mask & (1 << UInt32($0)) != 0 }) { return index }
        }
        return nil
    }

    /// Whether `choose(connectorNamed: nil, …)` may take this connector: the
    /// first connected one that offers modes is the kiosk's one output.
    static func isDefaultCandidate(_ connector: DRMConnector) -> Bool {
        connector.status == .connected && !connector.modes.isEmpty
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
