import Logging
import VitrineRuntime
import VitrineSandbox
import FoundationEssentials

/// Where the commands that read untrusted pictures decode them: in the
/// sandboxed helpers, unless `VITRINE_DECODE_SANDBOX=off` asks for this
/// process (for an emulator such as qemu-user, which cannot install a
/// seccomp filter; docs/threat-model.md says what that gives up).
enum DecodingChoice {
    static var sandboxed: Bool { ProcessInfo.processInfo.environment["VITRINE_DECODE_SANDBOX"] != "off" }

    /// One pool for the process: every output group, and every check, shares its helpers.
    static let pool = DecodePool()

    static func slideDecoder(logger: Logger) -> any SlideDecoder {
        guard sandboxed else {
            logger.warning("VITRINE_DECODE_SANDBOX=off: pictures are decoded inside the kiosk's own process, where a hostile file can crash or take over the kiosk")
            return InProcessSlideDecoder()
        }
        logger.info("pictures are decoded in sandboxed helpers (up to \(pool.size) at once, \(pool.limits.addressSpaceMiB) MiB of address space and \(pool.limits.deadline) each)")
        return SandboxedSlideDecoder(pool: pool)
    }
}

extension DecodingChoice {
    /// Uploads, downloads, thumbnails and configured pictures: the same pool's helpers.
    static func pictureInspector() -> any PictureInspector {
        sandboxed ? SandboxedPictureInspector(pool: pool) : InProcessPictureInspector()
    }
}
