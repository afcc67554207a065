/// Which CRTC (display controller) drives which connector, when a card has
/// several displays attached: a pure decision on the connectors' names, the
/// CRTCs their encoders can drive (the kernel's `possible_crtcs` masks) and the
/// CRTC each is on now. VitrineDRM reads those; nothing here touches a card.
///
/// The assignment, in this order of importance:
/// 1. gives a CRTC to as many connectors as can have one (a maximum bipartite
///    matching, so a connector that only one CRTC can drive gets that one and
///    one that can take several makes way);
/// 2. of those, keeps the most connectors on the CRTC they are on now, so that
///    a display already lit (the console, a previous run) is not moved to
///    another controller and made to blank for a modeset;
/// 3. of those, the first in connector order (the card's): each connector,
///    in turn, keeps its current CRTC if it can, else takes the lowest-numbered
///    CRTC it can, else goes without; an earlier connector wins a CRTC that
///    only one of two can have.
/// So identical inputs give identical outputs, whatever order the CRTCs were
/// tried in. Modelled on the allocation wlroots' DRM backend does for its
/// outputs (backend/drm/drm.c, `realloc_crtcs`), without its libdrm types.
public struct CRTCAssignment: Hashable, Sendable {
    /// A connected connector as the assignment sees it.
    public struct Connector: Hashable, Sendable {
        /// The kernel's name: `HDMI-A-1`, `DSI-1`, `Virtual-1`.
        public var name: String
        /// The indices (in the card's CRTC list) of the CRTCs any of its encoders can drive.
        public var possibleCRTCs: Set<Int>
        /// The index of the CRTC it is on now, if any.
        public var currentCRTC: Int?

        public init(name: String, possibleCRTCs: Set<Int>, currentCRTC: Int? = nil) {
            self.name = name
            self.possibleCRTCs = possibleCRTCs
            self.currentCRTC = currentCRTC
        }

        /// From the union of its encoders' `possible_crtcs` bitmasks (bit n: CRTC index n).
        public init(name: String, possibleCRTCMask: UInt32, currentCRTC: Int? = nil) {
            self.init(name: name, possibleCRTCs: Set((0..<32).filter { possibleCRTCMask & (1 << UInt32($0)) != 0 }),
                      currentCRTC: currentCRTC)
        }
    }

    /// One connector and the CRTC it was given (nil: none was left for it).
    public struct Output: Hashable, Sendable {
        public var connector: String
        public var crtc: Int?
        /// Whether the CRTC is the one the connector is on now.
        public var isKept: Bool
    }

    /// Every connector given, in the order given.
    public let outputs: [Output]

    /// The CRTC index `connector` was given; nil for none, or a name not given.
    public func crtc(for connector: String) -> Int? {
        outputs.first { $0.connector == connector }?.crtc
    }

    /// The connectors left without a CRTC, in the order given.
    public var unassigned: [String] { outputs.filter { $0.crtc == nil }.map(\.connector) }

    /// Assigns CRTCs `0..<crtcCount` to `connectors` (the connected ones, in the
    /// card's order). A possible or current CRTC outside that range is ignored,
    /// as is a current CRTC the connector's encoders cannot drive.
    public init(connectors: [Connector], crtcCount: Int) {
        let count = max(0, crtcCount)
        let possible = connectors.map { $0.possibleCRTCs.filter { (0..<count).contains($0) } }
        let current = connectors.indices.map { index in connectors[index].currentCRTC.flatMap { possible[index].contains($0) ? $0 : nil } }
        // One more than the most CRTCs any assignment can keep, so that one
        // connector more with a CRTC outweighs every kept CRTC together.
        let perOutput = connectors.count + 1
        func weight(_ connector: Int, _ crtc: Int) -> Int {
            guard possible[connector].contains(crtc) else { return 0 }
            return perOutput + (current[connector] == crtc ? 1 : 0)
        }
        // The best total: how many get a CRTC and how many keep theirs, at once.
        func best(from first: Int, taken: Set<Int>) -> Int {
            guard first < connectors.count else { return 0 }
            let rows = (first..<connectors.count).map { connector in
                (0..<count).map { crtc in taken.contains(crtc) ? 0 : weight(connector, crtc) }
            }
            return MaximumWeightMatching.bestWeight(rows)
        }
        let target = best(from: 0, taken: [])
        // Connector by connector, the first choice that still lets the rest
        // reach the best total: a greedy walk over optimal assignments only.
        var chosen: [Int?] = []
        var taken: Set<Int> = []
        var reached = 0
        for index in connectors.indices {
            let preferences = (current[index].map { [$0] } ?? []) + possible[index].sorted().filter { $0 != current[index] }
            var pick: Int?
            for crtc in preferences where !taken.contains(crtc) {
                let gained = weight(index, crtc)
                if reached + gained + best(from: index + 1, taken: taken.union([crtc])) == target {
                    pick = crtc
                    reached += gained
                    break
                }
            }
            if let pick { taken.insert(pick) }
            chosen.append(pick)
        }
        outputs = connectors.indices.map { index in
            Output(connector: connectors[index].name, crtc: chosen[index],
                   isKept: chosen[index] != nil && chosen[index] == current[index])
        }
    }
}
