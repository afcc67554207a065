import CLibDRM
import VitrineCore

/// Every connector of a card with what choosing a CRTC for it needs: the
/// CRTCs its encoders can drive (`possible_crtcs`) and the one it is on now.
/// Read once by `DRMCard.outputs()` into Swift values; no libdrm object
/// outlives the call that read it.
public struct DRMOutputs: Sendable {
    /// One connector and its routes.
    public struct Output: Hashable, Sendable {
        public let connector: DRMConnector
        /// Each of its encoders' `possible_crtcs` mask (bit n: the card's CRTC
        /// at index n), in the connector's encoder order; 0 for an encoder the
        /// kernel would not describe.
        public let encoderCRTCMasks: [UInt32]
        /// The index of the CRTC its encoder drives now (the console's, or a
        /// previous run's), if any.
        public let currentCRTC: Int?

        /// Every CRTC any of its encoders can drive.
        public var possibleCRTCMask: UInt32 { encoderCRTCMasks.reduce(0, |) }

        /// The CRTC a scanout of it takes on a card of `crtcCount` CRTCs: the
        /// one it is on now, or the first its encoders can drive (`DRMScanout.routeIndex`).
        public func crtcIndex(crtcCount: Int) -> Int? {
            DRMScanout.routeIndex(current: currentCRTC, encoderMasks: encoderCRTCMasks, crtcCount: crtcCount)
        }

        init(connector: DRMConnector, encoderCRTCMasks: [UInt32], currentCRTC: Int?) {
            self.connector = connector
            self.encoderCRTCMasks = encoderCRTCMasks
            self.currentCRTC = currentCRTC
        }
    }

    /// The card's device path.
    public let card: String
    /// The card's CRTC object IDs, in the kernel's order: a CRTC's index here is its bit in the masks.
    public let crtcIDs: [UInt32]
    /// Every connector, in the card's order.
    public let outputs: [Output]

    init(card: String, crtcIDs: [UInt32], outputs: [Output]) {
        self.card = card
        self.crtcIDs = crtcIDs
        self.outputs = outputs
    }

    /// A CRTC for as many connected connectors as the card can drive at once
    /// (`CRTCAssignment`): what a kiosk with several outputs would take.
    public var assignment: CRTCAssignment {
        CRTCAssignment(
            connectors: outputs.filter { $0.connector.status == .connected }.map {
                CRTCAssignment.Connector(name: $0.connector.name, possibleCRTCMask: $0.possibleCRTCMask, currentCRTC: $0.currentCRTC)
            },
            crtcCount: crtcIDs.count)
    }

    /// Every connector as `OutputPlan` takes it.
    public var planConnectors: [OutputPlan.Connector] {
        outputs.map { output in
            let connector = output.connector
            let status: OutputPlan.Connector.Status = switch connector.status {
            case .connected: .connected
            case .disconnected: .disconnected
            case .unknown: .unknown
            }
            return OutputPlan.Connector(
                name: connector.name, status: status, widthMillimetres: connector.widthMillimetres,
                heightMillimetres: connector.heightMillimetres, modes: connector.modes.map(\.outputMode),
                possibleCRTCs: CRTCAssignment.Connector(name: connector.name, possibleCRTCMask: output.possibleCRTCMask).possibleCRTCs,
                currentCRTC: output.currentCRTC)
        }
    }

    /// The plan for this card: `layout` (a configuration's `outputs`), or
    /// without one the output `single` chooses.
    public func plan(_ layout: OutputLayout?, single: OutputPlan.SingleOutput) -> OutputPlan {
        OutputPlan(layout: layout, single: single, connectors: planConnectors, crtcCount: crtcIDs.count)
    }

    /// The one output a configuration that names no connector drives today, as
    /// `DRMScanout` chooses it: the first connected connector with modes, on
    /// the CRTC it is on now or else the first its encoders can drive (nil
    /// when none can). Nil when no connector is connected.
    public var singleOutput: (connector: DRMConnector, crtc: Int?)? {
        guard let output = outputs.first(where: { DRMScanout.isDefaultCandidate($0.connector) }) else { return nil }
        return (output.connector, DRMScanout.routeIndex(current: output.currentCRTC, encoderMasks: output.encoderCRTCMasks,
                                                        crtcCount: crtcIDs.count))
    }
}

extension DRMCard {
    /// Every connector, probed, with its encoders' CRTC masks and its current
    /// CRTC (`drmModeGetResources`, `drmModeGetConnector`, `drmModeGetEncoder`).
    /// A connector or encoder the kernel will not describe (gone in between, as
    /// an unplugged DisplayPort MST branch is) is left out, as `connectors()` does.
    public func outputs() throws(DRMError) -> DRMOutputs {
        try withResources { resources in
            let crtcs = (0..<Int(resources.count_crtcs)).map { resources.crtcs[$0] }
            let outputs = (0..<Int(resources.count_connectors)).compactMap { index -> DRMOutputs.Output? in
                guard let connector = drmModeGetConnector(descriptor, resources.connectors[index]) else { return nil }
                defer { drmModeFreeConnector(connector) }
                let probed = DRMConnector(connector.pointee)
                return DRMOutputs.Output(connector: probed, encoderCRTCMasks: probed.encoderIDs.map { encoder($0)?.possibleCRTCs ?? 0 },
                                         currentCRTC: currentCRTC(of: probed, among: crtcs))
            }
            return DRMOutputs(card: path, crtcIDs: crtcs, outputs: outputs)
        }
    }

    /// An encoder's CRTC now (0 for none) and the CRTCs it can drive (`drmModeGetEncoder`);
    /// nil when the kernel does not describe it.
    func encoder(_ id: UInt32) -> (crtcID: UInt32, possibleCRTCs: UInt32)? {
        guard let encoder = drmModeGetEncoder(descriptor, id) else { return nil }
        defer { drmModeFreeEncoder(encoder) }
        return (encoder.pointee.crtc_id, encoder.pointee.possible_crtcs)
    }

    /// The index in `crtcs` of the CRTC the connector's current encoder drives, if any.
    func currentCRTC(of connector: DRMConnector, among crtcs: [UInt32]) -> Int? {
        guard connector.currentEncoderID != 0, let crtc = encoder(connector.currentEncoderID)?.crtcID, crtc != 0 else { return nil }
        return crtcs.firstIndex(of: crtc)
    }
}
