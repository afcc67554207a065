import ArgumentParser
import Foundation
import Logging
import VitrineConfig
import VitrineCore
import VitrineRuntime

/// Picks the display backend for `output.display`.
enum DisplaySelection {
    static func open(_ configuration: KioskConfiguration, logger: Logger) throws -> DisplayBackend {
        switch configuration.output.display {
        case .headless:
            return headless(configuration, logger: logger, reason: nil)
        case .auto, .drm:
            let cards = (try? FileManager.default.contentsOfDirectory(atPath: "/dev/dri"))?
                .filter { $0.hasPrefix("card") }.sorted() ?? []
            if cards.isEmpty {
                let reason = "no DRM device: /dev/dri has no card*"
                if configuration.output.display == .drm {
                    logger.critical("\(reason); output.display is drm, so there is nothing to show on")
                    throw ExitCode(1)
                }
                return headless(configuration, logger: logger, reason: reason)
            }
            let reason = "found /dev/dri/\(cards[0]), but this build has no DRM backend yet"
            if configuration.output.display == .drm {
                logger.critical("\(reason)")
                throw ExitCode(1)
            }
            return headless(configuration, logger: logger, reason: reason)
        }
    }

    private static func headless(_ configuration: KioskConfiguration, logger: Logger, reason: String?) -> DisplayBackend {
        let display = HeadlessDisplay(size: configuration.outputSize, previewPath: configuration.output.preview, logger: logger)
        let because = reason.map { "\($0); " } ?? ""
        logger.notice("\(because)running headless at \(configuration.outputSize), live preview PNG at \(configuration.output.preview)")
        return display
    }
}
