import ArgumentParser
import Logging
import VitrineConfig
import VitrineCore
import VitrineDRM
import VitrineRuntime

/// Picks the display backend for `output.display`: KMS/DRM, or headless.
/// With `auto`, any reason DRM cannot be used is logged in one line and the
/// kiosk runs headless; with `drm`, the same reason ends the process.
enum DisplaySelection {
    static func open(_ configuration: KioskConfiguration, logger: Logger) throws -> DisplayBackend {
        let output = configuration.output
        switch output.display {
        case .headless:
            return headless(configuration, logger: logger, reason: nil)
        case .auto, .drm:
            do {
                let scanout = try openScanout(output)
                let display = DRMDisplay(scanout: scanout, modeRequest: output.mode, logger: logger)
                logger.notice("displaying on \(display.description)")
                return display
            } catch {
                if output.display == .drm {
                    logger.critical("cannot use the display: \(error)")
                    throw ExitCode(1)
                }
                return headless(configuration, logger: logger, reason: "\(error)")
            }
        }
    }

    /// The configured card, or else the first card with a connected display.
    static func openScanout(_ output: OutputConfiguration) throws(DRMError) -> DRMScanout {
        let interface = DRMInterfacePreference(rawValue: output.modesetting.rawValue) ?? .auto
        let request = output.mode
        func open(_ path: String) throws(DRMError) -> DRMScanout {
            try DRMScanout(card: try DRMCard(path: path), connectorName: output.connector, mode: request, interface: interface)
        }
        if let path = output.card { return try open(path) }
        let cards = DRMCard.cardPaths()
        guard !cards.isEmpty else { throw .noCard(directory: "/dev/dri") }
        var errors: [DRMError] = []
        for path in cards {
            do {
                return try open(path)
            } catch {
                errors.append(error)
            }
        }
        // A card with no display attached is the least telling reason: report a
        // real problem (permission, DRM master, mode) if any card had one.
        let isNoDisplay = { (error: DRMError) -> Bool in
            if case .noConnectedConnector = error { return true }
            return false
        }
        throw errors.first { !isNoDisplay($0) } ?? errors[0]
    }

    private static func headless(_ configuration: KioskConfiguration, logger: Logger, reason: String?) -> DisplayBackend {
        // `off`: no PNG at all. Many headless kiosks on one machine (the fleet
        // test) would otherwise each encode one at every slide change, all at once.
        let path = configuration.output.preview == "off" ? nil : configuration.output.preview
        let display = HeadlessDisplay(size: configuration.outputSize, previewPath: path, logger: logger)
        let because = reason.map { "\($0); " } ?? ""
        let preview = path.map { "live preview PNG at \($0)" } ?? "no preview PNG"
        logger.notice("\(because)running headless at \(configuration.outputSize), \(preview)")
        return display
    }
}
