import Testing
import VitrineCore
@testable import VitrineDRM

@Suite("Plane shares")
struct PlaneShareTests {
    typealias Plane = DRMPlaneDescription

    /// A card laid out as vc4 lays out a Raspberry Pi 4's: a primary and a
    /// cursor plane of its own for each CRTC, then 16 overlay planes that can feed every CRTC.
    func vc4(crtcs: Int = 6) -> [Plane] {
        var planes: [Plane] = []
        for crtc in 0..<crtcs {
            planes.append(Plane(id: UInt32(100 + crtc * 2), kind: .primary, possibleCRTCs: 1 << UInt32(crtc)))
            planes.append(Plane(id: UInt32(101 + crtc * 2), kind: .cursor, possibleCRTCs: 1 << UInt32(crtc)))
        }
        for overlay in 0..<16 { planes.append(Plane(id: UInt32(200 + overlay), kind: .overlay, possibleCRTCs: (1 << UInt32(crtcs)) - 1)) }
        return planes
    }

    @Test func twoScreensOnVC4GetTheirOwnPrimariesAndEightOverlaysEach() throws {
        let share = try PlaneShare.decide(planes: vc4(), crtcs: [0, 2])
        #expect(share.shares.keys.sorted() == [0, 2])
        #expect(share.shares[0] == PlaneShare.Share(primary: 100, cursor: 101, overlays: Array(200..<216).filter { $0 % 2 == 0 }))
        #expect(share.shares[2] == PlaneShare.Share(primary: 104, cursor: 105, overlays: Array(200..<216).filter { $0 % 2 == 1 }))
        #expect(share.shares[0]?.description == "primary plane 100, cursor plane 101, 8 overlay planes (200, 202, 204, 206, 208, 210, 212, 214)")
    }

    @Test func oneScreenTakesEveryOverlay() throws {
        let share = try PlaneShare.decide(planes: vc4(), crtcs: [1])
        #expect(share.shares[1]?.overlays.count == 16)
        #expect(share.shares[1]?.primary == 102)
    }

    @Test func aCardWithoutOverlaysLeasesPrimaryAndCursor() throws {
        // virtio-gpu and bochs: a primary and a cursor per CRTC, nothing else.
        let planes = [Plane(id: 31, kind: .primary, possibleCRTCs: 0b01), Plane(id: 32, kind: .cursor, possibleCRTCs: 0b01),
                      Plane(id: 33, kind: .primary, possibleCRTCs: 0b10), Plane(id: 34, kind: .cursor, possibleCRTCs: 0b10)]
        let share = try PlaneShare.decide(planes: planes, crtcs: [0, 1])
        #expect(share.shares == [0: PlaneShare.Share(primary: 31, cursor: 32), 1: PlaneShare.Share(primary: 33, cursor: 34)])
        #expect(share.shares[1]?.description == "primary plane 33, cursor plane 34, no overlay planes")
        #expect(share.shares[1]?.planeIDs == [33, 34])
    }

    @Test func aPrimaryFeedingACRTCNowIsThatCRTCsOwn() throws {
        // Two primaries that could each feed both CRTCs: the one on CRTC 1 now is CRTC 1's.
        let planes = [Plane(id: 10, kind: .primary, possibleCRTCs: 0b11, feedingCRTC: 1),
                      Plane(id: 11, kind: .primary, possibleCRTCs: 0b11)]
        let share = try PlaneShare.decide(planes: planes, crtcs: [0, 1])
        #expect(share.shares[0]?.primary == 11)
        #expect(share.shares[1]?.primary == 10)
    }

    @Test func primariesThatCouldFeedSeveralGoInTheCardsOrder() throws {
        let planes = [Plane(id: 10, kind: .primary, possibleCRTCs: 0b11), Plane(id: 11, kind: .primary, possibleCRTCs: 0b11)]
        let share = try PlaneShare.decide(planes: planes, crtcs: [1])
        // Plane 10 is CRTC 0's own even though CRTC 0 is not leased: taking it for CRTC 1 would
        // break legacy SetCrtc on the lease, which needs the CRTC's own primary.
        #expect(share.shares == [1: PlaneShare.Share(primary: 11)])
    }

    @Test func aPrimaryForOneCRTCOnlyIsTakenBeforeTheCardsOrder() throws {
        let planes = [Plane(id: 10, kind: .primary, possibleCRTCs: 0b11), Plane(id: 11, kind: .primary, possibleCRTCs: 0b01)]
        let share = try PlaneShare.decide(planes: planes, crtcs: [0, 1])
        #expect(share.shares[0]?.primary == 11)
        #expect(share.shares[1]?.primary == 10)
    }

    @Test func anOverlayOnlyOneCRTCCanUseGoesToItFirst() throws {
        let planes = [Plane(id: 1, kind: .primary, possibleCRTCs: 0b01), Plane(id: 2, kind: .primary, possibleCRTCs: 0b10),
                      Plane(id: 3, kind: .overlay, possibleCRTCs: 0b11), Plane(id: 4, kind: .overlay, possibleCRTCs: 0b11),
                      Plane(id: 5, kind: .overlay, possibleCRTCs: 0b10)]
        let share = try PlaneShare.decide(planes: planes, crtcs: [0, 1])
        // Plane 5 goes to CRTC 1 first; then 3 to CRTC 0, which has fewer; 4 on the tie to the lower CRTC.
        #expect(share.shares[0]?.overlays == [3, 4])
        #expect(share.shares[1]?.overlays == [5])
    }

    @Test func overlaysNoLeasedCRTCCanUseAreLeftOut() throws {
        let planes = [Plane(id: 1, kind: .primary, possibleCRTCs: 0b01), Plane(id: 2, kind: .primary, possibleCRTCs: 0b10),
                      Plane(id: 3, kind: .overlay, possibleCRTCs: 0b10), Plane(id: 4, kind: .overlay, possibleCRTCs: 0b01)]
        let share = try PlaneShare.decide(planes: planes, crtcs: [0])
        #expect(share.shares == [0: PlaneShare.Share(primary: 1, overlays: [4])])
    }

    @Test func aCRTCWithNoPrimaryOfItsOwnIsRefused() {
        let planes = [Plane(id: 1, kind: .primary, possibleCRTCs: 0b01), Plane(id: 3, kind: .overlay, possibleCRTCs: 0b11)]
        #expect(throws: PlaneShare.Refusal.noPrimaryPlane(crtc: 1)) { try PlaneShare.decide(planes: planes, crtcs: [0, 1]) }
        #expect(PlaneShare.Refusal.noPrimaryPlane(crtc: 1).description == "no primary plane is CRTC 1's own")
    }

    /// Over made-up cards: no plane is in two shares (the second lease would fail with
    /// EBUSY), each share's planes can feed its CRTC, and the overlays any leased CRTC
    /// can use are all shared out, as evenly as the masks allow.
    @Test func sharesNeverOverlapAndEveryPlaneCanFeedItsCRTC() throws {
        var generator = SplitMix64(seed: 39)  // seeded, so that a failure shows again on the next run
        var checked = 0
        for _ in 0..<500 {
            let crtcCount = Int.random(in: 1...4, using: &generator)
            var planes: [Plane] = []
            var id: UInt32 = 1
            for crtc in 0..<crtcCount {
                planes.append(Plane(id: id, kind: .primary, possibleCRTCs: 1 << UInt32(crtc)))
                id += 1
                if Bool.random(using: &generator) {
                    planes.append(Plane(id: id, kind: .cursor, possibleCRTCs: 1 << UInt32(crtc)))
                    id += 1
                }
            }
            for _ in 0..<Int.random(in: 0...12, using: &generator) {
                planes.append(Plane(id: id, kind: .overlay, possibleCRTCs: UInt32.random(in: 1..<(1 << UInt32(crtcCount)), using: &generator)))
                id += 1
            }
            planes.shuffle(using: &generator)
            let leased = (0..<crtcCount).filter { _ in Bool.random(using: &generator) }
            guard !leased.isEmpty else { continue }
            let share = try PlaneShare.decide(planes: planes, crtcs: leased)
            let all = share.shares.values.flatMap(\.planeIDs)
            #expect(Set(all).count == all.count)
            for (crtc, planesOfCRTC) in share.shares {
                for planeID in planesOfCRTC.planeIDs {
                    #expect(planes.first { $0.id == planeID }!.canFeed(crtc: crtc))
                }
            }
            let usable = planes.filter { plane in plane.kind == .overlay && leased.contains { plane.canFeed(crtc: $0) } }
            #expect(share.shares.values.map(\.overlays.count).reduce(0, +) == usable.count)
            // Overlays every leased CRTC can use never leave two CRTCs more than one apart.
            if usable.allSatisfy({ plane in leased.allSatisfy { plane.canFeed(crtc: $0) } }) {
                let counts = share.shares.values.map(\.overlays.count)
                #expect(counts.max()! - counts.min()! <= 1)
            }
            checked += 1
        }
        #expect(checked > 300)  // a draw that leases no CRTC is skipped: about a quarter of them
    }
}
