import Testing
import VitrineCore
@testable import VitrineDRM

@Suite("DRM outputs")
struct DRMOutputsTests {
    let fullHD = mode(1920, 1080, clock: 148_500, htotal: 2200, vtotal: 1125, preferred: true)

    func output(_ name: String, _ status: DRMConnector.Status, masks: [UInt32], current: Int? = nil,
                id: UInt32 = 40) -> DRMOutputs.Output {
        DRMOutputs.Output(connector: DRMConnector(id: id, name: name, status: status, modes: status == .connected ? [fullHD] : []),
                          encoderCRTCMasks: masks, currentCRTC: current)
    }

    @Test func theOneOutputRoutesAsItAlwaysHas() {
        // On a CRTC now: that one, whatever the encoders could do.
        #expect(DRMScanout.routeIndex(current: 2, encoderMasks: [0b0001], crtcCount: 4) == 2)
        // On none: encoder by encoder, the lowest CRTC of the first that can drive any.
        #expect(DRMScanout.routeIndex(current: nil, encoderMasks: [0b1100, 0b0001], crtcCount: 4) == 2)
        #expect(DRMScanout.routeIndex(current: nil, encoderMasks: [0, 0b0010], crtcCount: 4) == 1)
        // A mask past the card's CRTCs, and no encoder at all: none.
        #expect(DRMScanout.routeIndex(current: nil, encoderMasks: [0b1_0000], crtcCount: 4) == nil)
        #expect(DRMScanout.routeIndex(current: nil, encoderMasks: [], crtcCount: 4) == nil)
    }

    /// With one connected connector, as every kiosk has today, the assignment picks the
    /// connector and the CRTC that `DRMScanout` picks: for every single-encoder mask over
    /// four CRTCs, with and without a current CRTC, and disconnected connectors around it.
    @Test func aSingleConnectedOutputGetsTheCRTCDRMScanoutTakes() {
        var compared = 0
        for mask in UInt32(1)..<16 {
            let currents = [nil] + (0..<4).filter { mask & (1 << UInt32($0)) != 0 }
            for current in currents {
                for position in 0..<3 {
                    var outputs = [output("HDMI-A-1", .disconnected, masks: [0b1111], id: 41),
                                   output("HDMI-A-2", .disconnected, masks: [0b1111], id: 42)]
                    outputs.insert(output("DSI-1", .connected, masks: [mask], current: current, id: 43), at: position)
                    let card = DRMOutputs(card: "/dev/dri/card0", crtcIDs: [31, 32, 33, 34], outputs: outputs)
                    let single = card.singleOutput
                    let chosen = try? DRMScanout.choose(connectorNamed: nil, from: outputs.map(\.connector), card: card.card)
                    #expect(single?.connector.name == "DSI-1" && chosen?.name == "DSI-1")
                    #expect(single?.crtc != nil && card.assignment.crtc(for: "DSI-1") == single?.crtc,
                            "mask \(mask), current \(String(describing: current))")
                    #expect(card.assignment.outputs.map(\.connector) == ["DSI-1"])
                    // The plan without an outputs section drives the same connector on the same CRTC.
                    let plan = card.plan(nil, single: OutputPlan.SingleOutput())
                    #expect(plan.driven.map(\.connector) == ["DSI-1"] && plan.driven.first?.crtc == single?.crtc)
                    compared += 1
                }
            }
        }
        #expect(compared == 3 * (15 + 32))
    }

    @Test func twoConnectedOutputsGetTwoCRTCs() {
        // virtio-gpu with two heads: each encoder can drive either CRTC; the console is on 0.
        let card = DRMOutputs(card: "/dev/dri/card0", crtcIDs: [35, 36], outputs: [
            output("Virtual-1", .connected, masks: [0b11], current: 0, id: 37),
            output("Virtual-2", .connected, masks: [0b11], id: 38),
        ])
        #expect(card.assignment.outputs.map(\.crtc) == [0, 1])
        #expect(card.singleOutput?.connector.name == "Virtual-1" && card.singleOutput?.crtc == 0)
        // A connected connector that reports no modes is not the one output, but gets its CRTC.
        let noModes = DRMOutputs(card: "/dev/dri/card0", crtcIDs: [35, 36], outputs: [
            DRMOutputs.Output(connector: DRMConnector(id: 37, name: "Virtual-1", status: .connected, modes: []),
                              encoderCRTCMasks: [0b11], currentCRTC: nil),
            output("Virtual-2", .connected, masks: [0b11], id: 38),
        ])
        #expect(noModes.singleOutput?.connector.name == "Virtual-2" && noModes.assignment.outputs.map(\.crtc) == [0, 1])
    }

    @Test func theMasksOfAConnectorsEncodersAreJoined() {
        #expect(output("DP-1", .connected, masks: [0b0001, 0b0100]).possibleCRTCMask == 0b0101)
        // Where DRMScanout and the assignment part: a later encoder that can drive a lower CRTC.
        let card = DRMOutputs(card: "/dev/dri/card0", crtcIDs: [31, 32, 33], outputs: [output("DP-1", .connected, masks: [0b100, 0b001])])
        #expect(card.singleOutput?.crtc == 2 && card.assignment.crtc(for: "DP-1") == 0)
    }

    /// What the plan is given: each connector's status, size, modes and the union of its encoders' masks.
    @Test func thePlanSeesEveryConnectorAsTheCardReportsIt() {
        let card = DRMOutputs(card: "/dev/dri/card0", crtcIDs: [31, 32, 33], outputs: [
            output("HDMI-A-1", .connected, masks: [0b001, 0b100], current: 2, id: 41),
            output("HDMI-A-2", .disconnected, masks: [0b010], id: 42),
        ])
        let connectors = card.planConnectors
        #expect(connectors.map(\.name) == ["HDMI-A-1", "HDMI-A-2"] && connectors.map(\.status) == [.connected, .disconnected])
        #expect(connectors.map(\.possibleCRTCs) == [[0, 2], [1]] && connectors.map(\.currentCRTC) == [2, nil])
        #expect(connectors[0].modes == [fullHD.outputMode] && connectors[0].modes[0].description == "1920x1080@60")
        // An outputs section naming both: the connected one on the CRTC it is on, the other missing with CRTC 1 kept.
        let plan = card.plan(OutputLayout([ConfiguredOutput(name: "HDMI-A-2"), ConfiguredOutput(name: "HDMI-A-1")]), single: OutputPlan.SingleOutput())
        #expect(plan.driven.map(\.connector) == ["HDMI-A-1"] && plan.driven[0].crtc == 2 && plan.driven[0].keepsCRTC)
        #expect(plan.missing.map(\.keptCRTC) == [1])
    }
}
