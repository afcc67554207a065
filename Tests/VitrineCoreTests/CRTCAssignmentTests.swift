import Testing
import VitrineCore

@Suite("CRTC assignment")
struct CRTCAssignmentTests {
    typealias Connector = CRTCAssignment.Connector

    func assign(_ connectors: [Connector], crtcs: Int) -> [String: Int?] {
        Dictionary(uniqueKeysWithValues: CRTCAssignment(connectors: connectors, crtcCount: crtcs).outputs.map { ($0.connector, $0.crtc) })
    }

    @Test func noConnectorsGetNothing() {
        let assignment = CRTCAssignment(connectors: [], crtcCount: 4)
        #expect(assignment.outputs.isEmpty && assignment.unassigned.isEmpty)
        // No CRTCs at all: every connector is named as left without one.
        let none = CRTCAssignment(connectors: [Connector(name: "HDMI-A-1", possibleCRTCs: [0])], crtcCount: 0)
        #expect(none.unassigned == ["HDMI-A-1"] && none.crtc(for: "HDMI-A-1") == nil)
    }

    @Test func moreConnectorsThanCRTCsLeavesTheLastWithout() {
        let connectors = ["HDMI-A-1", "HDMI-A-2", "DP-1"].map { Connector(name: $0, possibleCRTCs: [0, 1]) }
        let assignment = CRTCAssignment(connectors: connectors, crtcCount: 2)
        #expect(assignment.outputs.map(\.crtc) == [0, 1, nil])
        #expect(assignment.unassigned == ["DP-1"])
        // The order given decides who goes without, not the names.
        let reversed = CRTCAssignment(connectors: connectors.reversed(), crtcCount: 2)
        #expect(reversed.unassigned == ["HDMI-A-1"])
    }

    @Test func aConnectorOnlyOneCRTCCanDriveTakesPrecedence() {
        // The first connector could take CRTC 0, but the second can have nothing else.
        let result = assign([Connector(name: "HDMI-A-1", possibleCRTCs: [0, 1]),
                             Connector(name: "DSI-1", possibleCRTCs: [0])], crtcs: 2)
        #expect(result == ["HDMI-A-1": 1, "DSI-1": 0])
        // A chain: each one's only free choice is pushed along by the next.
        let chain = assign([Connector(name: "A", possibleCRTCs: [0, 1]), Connector(name: "B", possibleCRTCs: [1, 2]),
                            Connector(name: "C", possibleCRTCs: [0])], crtcs: 3)
        #expect(chain == ["A": 1, "B": 2, "C": 0])
    }

    @Test func currentAssignmentsAreKept() {
        // Without a current CRTC, the lowest; with one, that one.
        #expect(assign([Connector(name: "HDMI-A-1", possibleCRTCs: [0, 1, 2])], crtcs: 3) == ["HDMI-A-1": 0])
        #expect(assign([Connector(name: "HDMI-A-1", possibleCRTCs: [0, 1, 2], currentCRTC: 2)], crtcs: 3) == ["HDMI-A-1": 2])
        // The second connector is lit on CRTC 0: the first, not lit, takes another.
        let lit = CRTCAssignment(connectors: [Connector(name: "HDMI-A-1", possibleCRTCs: [0, 1]),
                                              Connector(name: "HDMI-A-2", possibleCRTCs: [0, 1], currentCRTC: 0)], crtcCount: 2)
        #expect(lit.outputs.map(\.crtc) == [1, 0] && lit.outputs.map(\.isKept) == [false, true])
    }

    @Test func aCurrentCRTCGivesWayWhenKeepingItWouldLeaveADisplayDark() {
        // HDMI-A-1 sits on CRTC 0, which is the only one DSI-1 can use: it moves to 1.
        let result = assign([Connector(name: "HDMI-A-1", possibleCRTCs: [0, 1], currentCRTC: 0),
                             Connector(name: "DSI-1", possibleCRTCs: [0])], crtcs: 2)
        #expect(result == ["HDMI-A-1": 1, "DSI-1": 0])
        // Two lit, one of which must move: the most are kept (one), the earlier connector first.
        let kept = CRTCAssignment(connectors: [Connector(name: "A", possibleCRTCs: [0, 1], currentCRTC: 0),
                                               Connector(name: "B", possibleCRTCs: [0, 1], currentCRTC: 0)], crtcCount: 2)
        #expect(kept.outputs.map(\.crtc) == [0, 1] && kept.outputs.map(\.isKept) == [true, false])
    }

    @Test func theMostCurrentCRTCsAreKeptNotTheFirst() {
        // Keeping A on its CRTC 1 (which D needs, E being on 0) moves B and C off theirs:
        // two kept. Moving A to 2 keeps B, C and E: three. Found by a search over random cards.
        let assignment = CRTCAssignment(connectors: [
            Connector(name: "A", possibleCRTCs: [0, 1, 2, 4], currentCRTC: 1),
            Connector(name: "B", possibleCRTCs: [1, 3, 4], currentCRTC: 4),
            Connector(name: "C", possibleCRTCs: [1, 2, 3], currentCRTC: 3),
            Connector(name: "D", possibleCRTCs: [0, 1]),
            Connector(name: "E", possibleCRTCs: [0, 3], currentCRTC: 0),
        ], crtcCount: 5)
        #expect(assignment.outputs.map(\.crtc) == [2, 4, 3, 1, 0])
        #expect(assignment.outputs.map(\.isKept) == [false, true, true, false, true])
    }

    @Test func outOfRangeAndImpossibleCRTCsAreIgnored() {
        // A current CRTC its encoders cannot drive, and a possible one past the card's count.
        let result = assign([Connector(name: "HDMI-A-1", possibleCRTCs: [1, 7], currentCRTC: 0)], crtcs: 2)
        #expect(result == ["HDMI-A-1": 1])
        #expect(assign([Connector(name: "HDMI-A-1", possibleCRTCs: [5])], crtcs: 2) == ["HDMI-A-1": nil])
        #expect(Connector(name: "X", possibleCRTCMask: 0b1010_0001).possibleCRTCs == [0, 5, 7])
    }

    /// The Raspberry Pi 4 (BCM2711) under vc4-kms-v3d, as the vc4 driver builds it: each encoder
    /// can drive exactly one pixelvalve (drivers/gpu/drm/vc4/vc4_crtc.c: `bcm2711_pv*_data.encoder_types`
    /// and `vc4_set_crtc_possible_masks`): DSI1 on pixelvalve 1, HDMI0 on pixelvalve 2, HDMI1 on
    /// pixelvalve 4. CRTC indices follow the order they are made in: the TXP writeback CRTC first
    /// (vc4_drv.c's `component_drivers` binds vc4_txp before vc4_crtc), then the pixelvalves in
    /// device-tree order (arch/arm/boot/dts/broadcom/bcm2711.dtsi lists pixelvalve0, 1, 2, 4, then 3
    /// at 0x7ec12000), all enabled by Raspberry Pi's overlays/vc4-kms-v3d-pi4-overlay.dts (txp and
    /// pixelvalve0-4 "okay"): six CRTCs, DSI-1 `possible_crtcs` 0x04, HDMI-A-1 0x08, HDMI-A-2 0x10.
    @Test func raspberryPi4WithTwoHDMIAndDSI() {
        let pi4 = [Connector(name: "HDMI-A-1", possibleCRTCMask: 0x08, currentCRTC: 3),
                   Connector(name: "HDMI-A-2", possibleCRTCMask: 0x10),
                   Connector(name: "DSI-1", possibleCRTCMask: 0x04)]
        let assignment = CRTCAssignment(connectors: pi4, crtcCount: 6)
        #expect(assignment.outputs.map(\.crtc) == [3, 4, 2] && assignment.unassigned.isEmpty)
        #expect(assignment.outputs.map(\.isKept) == [true, false, false])
        // The fixed masks leave nothing to choose: the same without the console's CRTC.
        #expect(CRTCAssignment(connectors: pi4.map { Connector(name: $0.name, possibleCRTCs: $0.possibleCRTCs) },
                               crtcCount: 6).outputs.map(\.crtc) == [3, 4, 2])
        // Without the TXP the indices shift down by one, and so does every assignment.
        let withoutTXP = pi4.map { Connector(name: $0.name, possibleCRTCs: Set($0.possibleCRTCs.map { $0 - 1 })) }
        #expect(CRTCAssignment(connectors: withoutTXP, crtcCount: 5).outputs.map(\.crtc) == [2, 3, 1])
    }

    @Test func identicalInputsGiveIdenticalOutputs() {
        let connectors = [Connector(name: "A", possibleCRTCs: [0, 1, 2, 3]), Connector(name: "B", possibleCRTCs: [3, 2, 1]),
                          Connector(name: "C", possibleCRTCs: [1, 0], currentCRTC: 1), Connector(name: "D", possibleCRTCs: [2, 0])]
        let first = CRTCAssignment(connectors: connectors, crtcCount: 4)
        for _ in 0..<50 {
            // Sets are built afresh each time, so their iteration order may differ; the result may not.
            let again = connectors.map { Connector(name: $0.name, possibleCRTCs: Set(Array($0.possibleCRTCs).shuffled()),
                                                   currentCRTC: $0.currentCRTC) }
            #expect(CRTCAssignment(connectors: again, crtcCount: 4) == first)
        }
        #expect(first.outputs.map(\.crtc) == [0, 3, 1, 2])
    }

    /// Every graph of up to three connectors and three CRTCs, with every current CRTC, against
    /// a brute force over every assignment: the most connectors with a CRTC, then the most kept,
    /// then the connectors' own preferences in order (current, then lowest index, then none).
    @Test func everySmallCardAgreesWithBruteForce() {
        var cases = 0
        for connectorCount in 0...3 {
            for crtcCount in 0...3 {
                let masks = 1 << crtcCount
                let shapes = (0..<connectorCount).reduce(1) { total, _ in total * masks * (crtcCount + 1) }
                for shape in 0..<shapes {
                    var rest = shape
                    var connectors: [Connector] = []
                    for index in 0..<connectorCount {
                        let mask = rest % masks; rest /= masks
                        let current = rest % (crtcCount + 1); rest /= (crtcCount + 1)
                        connectors.append(Connector(name: "C\(index)", possibleCRTCMask: UInt32(mask),
                                                    currentCRTC: current == crtcCount ? nil : current))
                    }
                    let expected = bruteForce(connectors, crtcCount: crtcCount)
                    let got = CRTCAssignment(connectors: connectors, crtcCount: crtcCount).outputs.map(\.crtc)
                    #expect(got == expected, "\(connectors) over \(crtcCount) CRTCs")
                    cases += 1
                }
            }
        }
        // Σ over 0...3 CRTCs c and 0...3 connectors n of (2^c masks × (c + 1) currents)^n.
        #expect(cases == 35_799)
    }

    func bruteForce(_ connectors: [Connector], crtcCount: Int) -> [Int?] {
        func rank(_ connector: Connector, _ crtc: Int?) -> Int {
            guard let crtc else { return Int.max }
            if crtc == connector.currentCRTC { return -1 }
            return crtc
        }
        var best: (key: [Int], assignment: [Int?])?
        func walk(_ index: Int, _ taken: Set<Int>, _ so: [Int?]) {
            if index == connectors.count {
                let assigned = so.compactMap { $0 }.count
                let kept = zip(connectors, so).filter { $1 != nil && $0.currentCRTC == $1 }.count
                let key = [-assigned, -kept] + zip(connectors, so).map { rank($0, $1) }
                if best == nil || key.lexicographicallyPrecedes(best!.key) { best = (key, so) }
                return
            }
            walk(index + 1, taken, so + [nil])
            for crtc in connectors[index].possibleCRTCs.sorted() where crtc < crtcCount && !taken.contains(crtc) {
                walk(index + 1, taken.union([crtc]), so + [crtc])
            }
        }
        walk(0, [], [])
        return best!.assignment
    }
}
