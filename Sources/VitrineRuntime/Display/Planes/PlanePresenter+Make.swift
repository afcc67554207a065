import Logging
import VitrineCore
import VitrineDRM

extension PlanePresenter {
    /// A presenter for `scanout`'s output, or nil (logged) where frames are
    /// composed on the CPU as before: `output.planes: cpu`, a turned panel, legacy modesetting
    /// (no atomic commits to test and set planes with), or no overlay plane for
    /// the output's CRTC (bochs, virtio-gpu; a lease with no overlays in its share).
    static func make(for scanout: DRMScanout, options: PlaneOptions, logger: Logger) -> PlanePresenter? {
        let connector = scanout.connector.name
        guard options.mode == .auto else {
            logger.info("\(connector): every frame is composed on the CPU (output.planes: cpu)")
            return nil
        }
        guard !options.turned else {
            logger.info("\(connector): every frame is composed on the CPU: the panel is turned (rotation), which the planes are not asked to do")
            return nil
        }
        guard scanout.interfaceName == "atomic" else {
            logger.info("\(connector): every frame is composed on the CPU: planes need atomic modesetting, and this output uses \(scanout.interfaceName)")
            return nil
        }
        let card = scanout.card
        do {
            let planes = (try card.planeDetails() ?? []).filter { $0.plane.canFeed(crtc: scanout.crtcIndex) }.map(\.displayPlane)
            let overlays = planes.filter { $0.kind == .overlay }
            guard !overlays.isEmpty else {
                logger.info("\(connector): every frame is composed on the CPU: \(card.driver) has no overlay plane for it")
                return nil
            }
            let committer = try DRMPlaneCommitter(card: card, connectorID: scanout.connector.id, crtcID: scanout.crtcID,
                                                  planeIDs: planes.map(\.id))
            let planner = PlanePlanner(planes: planes, traits: .of(driver: card.driver), refreshHz: scanout.mode.refreshHertz)
            logger.notice("\(connector): frames go on the display's planes where \(card.driver) takes them", metadata: [
                "overlays": "\(overlays.count)", "plane_memory_mib": "\(options.memoryBytes >> 20)",
            ])
            return PlanePresenter(card: card, planes: planes, committer: committer, planner: planner,
                                  memoryBytes: options.memoryBytes, logger: logger)
        } catch {
            logger.warning("\(connector): every frame is composed on the CPU: cannot use the planes (\(error))")
            return nil
        }
    }
}
