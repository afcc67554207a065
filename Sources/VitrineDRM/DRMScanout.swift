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
    /// Whether the pending flip shows the back buffer, so that its completion
    /// swaps the buffers: false for a frame on planes that drew nothing into it
    /// (the primary plane shows a slide's own buffer, or the still background).
    private var flipShowsBack = true
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
            flipShowsBack = true
            state = .flipPending
        }
    }

    // MARK: Planes

    public var crtcID: UInt32 { routing.crtcID }
    /// The CRTC's index among the card's (a lease's own) CRTCs: what a plane's `possible_crtcs` mask names.
    public var crtcIndex: Int { routing.crtcIndex }
    /// The back buffer's framebuffer ID: what the primary plane takes for a frame composed into `backCanvas()`.
    public var backFramebufferID: UInt32? { buffers.count == 2 ? buffers[1 - front].framebufferID : nil }

    /// Whether a frame may go on the planes now: the mode is set (the first
    /// frame goes by `present()`, a modeset), no flip is pending, and the
    /// display is there and lit.
    public var acceptsPlaneFrame: Bool {
        if case .scanningOut(let panel) = state { panel.isLit } else { false }
    }

    /// Shows a frame whose planes `commit` queues (`DRMPlaneCommitter.flip`),
    /// with the flip's completion read as `present()`'s is. `composedIntoBack`:
    /// the primary plane shows the back buffer, drawn for this frame, so the
    /// buffers swap at the flip. `commit` returns false when nothing changed on
    /// the planes: no flip is pending then. Call it only when `acceptsPlaneFrame`.
    public func presentPlanes(composedIntoBack: Bool, commit: () throws(DRMError) -> Bool) throws(DRMError) -> Bool {
        guard acceptsPlaneFrame else { throw notShowing }
        guard try commit() else { return false }
        flipShowsBack = composedIntoBack
        state = .flipPending
        return true
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
            if flipShowsBack { front = 1 - front }
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
}
