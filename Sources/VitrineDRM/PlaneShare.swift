/// One plane as a card lists it to a client that asked for universal planes.
public struct DRMPlaneDescription: Sendable, Equatable, CustomStringConvertible {
    public enum Kind: String, Sendable, CaseIterable {
        case primary, overlay, cursor
    }

    public var id: UInt32
    public var kind: Kind
    /// Bit `i` set: the plane can feed the CRTC at index `i` of the card's list (`possible_crtcs`).
    public var possibleCRTCs: UInt32
    /// The index of the CRTC the plane feeds now, if any: which primary is a
    /// CRTC's own when a primary could feed several.
    public var feedingCRTC: Int?

    public init(id: UInt32, kind: Kind, possibleCRTCs: UInt32, feedingCRTC: Int? = nil) {
        self.id = id
        self.kind = kind
        self.possibleCRTCs = possibleCRTCs
        self.feedingCRTC = feedingCRTC
    }

    public func canFeed(crtc index: Int) -> Bool { index >= 0 && index < 32 && possibleCRTCs & (1 << UInt32(index)) != 0 }

    public var description: String { "\(kind.rawValue) plane \(id)" }
}

/// The planes each leased CRTC gets: its own primary (and cursor) plane and a
/// share of the overlay planes, decided once per card for every CRTC the
/// output plan drives or waits on.
///
/// Why once per card: a lease cannot be changed after it is made, and on vc4
/// the overlay planes can feed every CRTC, so two leases must not both ask
/// for the same one (the second `drmModeCreateLease` would fail with EBUSY).
/// Deciding for the outputs that wait for a display as well means that a
/// hotplug never changes a share, so no lease is made again: a screen that
/// comes or goes keeps the planes it started with, and the others are never touched.
///
/// Why name the primary and cursor planes at all: for a lessor with
/// `DRM_CLIENT_CAP_UNIVERSAL_PLANES`, the kernel no longer adds each CRTC's
/// own primary and cursor plane to a lease (`drm_lease.c`, `fill_object_idr`),
/// and legacy `drmModeSetCrtc` on the lease needs exactly the CRTC's own
/// primary (`crtc->primary`, which the kernel does not list). Which primary
/// is whose is inferred, as wlroots does, in this order: the CRTC a primary
/// feeds now; a primary that can feed one CRTC only; then, in the card's
/// order, the lowest CRTC a primary can feed that has none yet. The kernel
/// warns at boot when a driver gives a CRTC a primary that cannot feed it, or
/// one primary to two CRTCs (`drm_mode_config_validate`), so every CRTC has one.
public struct PlaneShare: Sendable, Equatable {
    /// One CRTC's planes.
    public struct Share: Sendable, Equatable, CustomStringConvertible {
        public var primary: UInt32
        public var cursor: UInt32?
        public var overlays: [UInt32]

        public init(primary: UInt32, cursor: UInt32? = nil, overlays: [UInt32] = []) {
            self.primary = primary
            self.cursor = cursor
            self.overlays = overlays
        }

        /// Every plane to lease, primary first.
        public var planeIDs: [UInt32] { [primary] + (cursor.map { [$0] } ?? []) + overlays }

        public var description: String {
            "primary plane \(primary)" + (cursor.map { ", cursor plane \($0)" } ?? "")
                + (overlays.isEmpty ? ", no overlay planes" : ", \(overlays.count) overlay plane\(overlays.count == 1 ? "" : "s") (\(overlays.map(String.init).joined(separator: ", ")))")
        }
    }

    /// Why no share could be decided.
    public enum Refusal: Error, Equatable, CustomStringConvertible {
        /// No primary plane can be told to be this CRTC's own.
        case noPrimaryPlane(crtc: Int)

        public var description: String {
            switch self {
            case .noPrimaryPlane(let crtc): "no primary plane is CRTC \(crtc)'s own"
            }
        }
    }

    /// By CRTC index.
    public var shares: [Int: Share]

    public init(shares: [Int: Share]) {
        self.shares = shares
    }

    /// Shares `planes` among the CRTCs at `crtcs` (indices in the card's list).
    ///
    /// Overlays go to the CRTCs that can use them, the most constrained
    /// overlay first, each to the CRTC that has the fewest so far (the lower
    /// index on a tie): vc4's 16 overlays, which can feed every CRTC, come to
    /// 8 each for two screens; an overlay that only one CRTC can use goes to it.
    public static func decide(planes: [DRMPlaneDescription], crtcs: [Int]) throws(Refusal) -> PlaneShare {
        let wanted = Array(Set(crtcs)).sorted()
        let primaries = ownPlanes(planes.filter { $0.kind == .primary })
        let cursors = ownPlanes(planes.filter { $0.kind == .cursor })
        var shares: [Int: Share] = [:]
        for crtc in wanted {
            guard let primary = primaries[crtc] else { throw .noPrimaryPlane(crtc: crtc) }
            shares[crtc] = Share(primary: primary, cursor: cursors[crtc])
        }
        let overlays = planes.enumerated()
            .filter { $0.element.kind == .overlay }
            .map { (order: $0.offset, plane: $0.element, usable: wanted.filter($0.element.canFeed(crtc:))) }
            .filter { !$0.usable.isEmpty }
            .sorted { ($0.usable.count, $0.order) < ($1.usable.count, $1.order) }
        for overlay in overlays {
            let crtc = overlay.usable.min { (shares[$0]!.overlays.count, $0) < (shares[$1]!.overlays.count, $1) }!
            shares[crtc]!.overlays.append(overlay.plane.id)
        }
        // In the card's order, which is the order drivers stack them by default.
        let order = Dictionary(uniqueKeysWithValues: planes.enumerated().map { ($0.element.id, $0.offset) })
        for crtc in wanted { shares[crtc]!.overlays.sort { order[$0]! < order[$1]! } }
        return PlaneShare(shares: shares)
    }

    /// Which of `planes` (all primary, or all cursor) is which CRTC's own: by CRTC index.
    private static func ownPlanes(_ planes: [DRMPlaneDescription]) -> [Int: UInt32] {
        var own: [Int: UInt32] = [:]
        var left = planes
        func take(_ plane: DRMPlaneDescription, for crtc: Int) {
            own[crtc] = plane.id
            left.removeAll { $0.id == plane.id }
        }
        // The CRTC a plane feeds now is the surest sign.
        for plane in planes {
            if let crtc = plane.feedingCRTC, plane.canFeed(crtc: crtc), own[crtc] == nil { take(plane, for: crtc) }
        }
        // A plane that can feed one CRTC only.
        for plane in left where plane.possibleCRTCs.nonzeroBitCount == 1 {
            let crtc = plane.possibleCRTCs.trailingZeroBitCount
            if own[crtc] == nil { take(plane, for: crtc) }
        }
        // The rest in the card's order, each to the lowest CRTC it can feed that has none.
        for plane in left {
            if let crtc = (0..<32).first(where: { plane.canFeed(crtc: $0) && own[$0] == nil }) { take(plane, for: crtc) }
        }
        return own
    }
}
