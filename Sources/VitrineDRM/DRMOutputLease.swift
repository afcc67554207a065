import CLibDRM
import Glibc
import SystemPackage
import VitrineSystem

/// One output of a card leased to this process's own use
/// (`drmModeCreateLease`): its connector and its CRTC, with the CRTC's own
/// primary (and cursor) plane and its share of the overlay planes
/// (`PlaneShare`), on a descriptor of their own.
///
/// Why a lease: each group of outputs runs its own display loop on a thread
/// of its own. On one descriptor the flip-complete events of every CRTC
/// arrive together, and whichever loop reads first takes them all. A lease
/// gives each output a descriptor with only its own events, and master rights
/// over only its own objects, so no loop can touch another's CRTC. Inside the
/// lease the card shows only the leased objects, and the kernel renumbers
/// `possible_crtcs` for them (`drm_lease_filter_crtcs`), so `DRMScanout` picks
/// the one CRTC there is as it picks a card's.
///
/// The card that made the lease (the lessor) stays open and master for as
/// long as the lease lives: the kernel revokes every lease when the lessor's
/// master goes away. The leased card holds it, so whoever holds the lease's
/// card (its `DRMScanout`) keeps the lessor open. Closing the lease's
/// descriptor ends the lease and hands its objects back, so the lease ends
/// when its last owner lets go.
public final class DRMOutputLease {
    /// The leased objects as a card of their own: the one to pass to `DRMScanout`.
    public let card: DRMCard
    /// The kernel's id for the lease (`drmModeListLessees` lists it).
    public let lesseeID: UInt32
    public let connectorName: String
    /// The planes named in the lease; nil: the CRTC's own primary and cursor, added by the kernel.
    public let planes: PlaneShare.Share?
    /// The card the lease came from, kept open (and master) while the lease lives.
    public let lessor: DRMCard

    /// Leases the connector `connectorName` and the CRTC at `crtcIndex` in
    /// the card's list (an `OutputPlan`'s), with `planes`. The lessor becomes
    /// DRM master first, if it is not.
    ///
    /// With `planes` (a `PlaneShare`'s, decided once for the card), the lease
    /// holds exactly those: the lessor must have asked for universal planes
    /// (`planeDescriptions()` does), and then the kernel adds none itself.
    /// Without, the planes are left to the kernel: for a lessor that has not
    /// asked for universal planes it adds the CRTC's own primary and cursor
    /// planes (`drm_lease.c`, `fill_object_idr`), which legacy SetCrtc and
    /// PageFlip and an atomic commit on the lease all need.
    public init(from lessor: DRMCard, connectorName: String, crtcIndex: Int, planes: PlaneShare.Share? = nil) throws(DRMError) {
        try lessor.acquireMaster()
        // Only the connector's id is wanted: the plan has just probed every connector.
        let connectors = try lessor.connectors(probing: false)
        guard let connector = connectors.first(where: { $0.name == connectorName }) else {
            throw .connectorNotFound(card: lessor.path, requested: connectorName, available: connectors.map(\.name))
        }
        let crtcIDs = try lessor.withResources { resources in
            (0..<Int(resources.count_crtcs)).map { resources.crtcs[$0] }
        }
        guard crtcIDs.indices.contains(crtcIndex) else {
            throw .unsupported(card: lessor.path, reason: "no CRTC \(crtcIndex) to lease for \(connectorName): the card has \(crtcIDs.count)")
        }
        let objects = [connector.id, crtcIDs[crtcIndex]] + (planes?.planeIDs ?? [])
        var lessee: UInt32 = 0
        let descriptor = objects.withUnsafeBufferPointer { buffer in
            drmModeCreateLease(lessor.descriptor, buffer.baseAddress, Int32(buffer.count), O_CLOEXEC | O_NONBLOCK, &lessee)
        }
        // libdrm returns -errno rather than setting errno.
        guard descriptor >= 0 else {
            let error = Errno(rawValue: -descriptor)
            if error == .permissionDenied || error == .notPermitted { throw .masterHeld(path: lessor.path) }
            throw .call("drmModeCreateLease of \(connectorName) and CRTC \(crtcIndex)", errno: error, subject: lessor.path)
        }
        card = DRMCard(adopting: OpenFile(adopting: descriptor, path: "\(lessor.path) lease \(lessee) (\(connectorName))"),
                       driver: lessor.driver, lessor: lessor)
        lesseeID = lessee
        self.planes = planes
        self.connectorName = connectorName
        self.lessor = lessor
    }
}
