import CLibDRM
import VitrineCore

/// How a scanout picks its connector, mode and CRTC: pure decisions on what the
/// card lists, and the driver's test of each mode, best first.
extension DRMScanout {
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
