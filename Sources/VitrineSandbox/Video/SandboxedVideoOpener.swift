import Glibc
import VitrineCore
import VitrineRuntime
import VitrineSandboxHelper

/// Opens video slides in `vitrine-video` helpers (`SandboxedVideo`), one for
/// each video slide resident in a frame store, so at most a store's capacity
/// of them run for each configuration being shown or readied.
public final class SandboxedVideoOpener: SlideVideoOpener, @unchecked Sendable {
    /// The helper program, or nil when it is not installed (every video slide
    /// then fails with the reason, and pictures play on).
    public let executable: String?
    public let limits: HelperLimits
    /// The screen's refresh period, for the cadence of frames.
    public let refreshPeriod: Duration

    public init(executable: String? = SandboxedVideoOpener.installedHelper(), limits: HelperLimits = VideoHelper.defaultLimits,
                refreshPeriod: Duration = .nanoseconds(16_666_667)) {
        self.executable = executable
        self.limits = limits
        self.refreshPeriod = refreshPeriod
    }

    public func open(_ request: SlideRequest, descriptor: Int32, posterStorage: PixelStorage?) throws(SlideError) -> any SlideVideo {
        guard let executable else {
            throw SlideError(file: request.file, reason: .isolated(
                "video is not available: the video helper (vitrine-video) is not installed beside vitrine or in /usr/libexec/vitrine"))
        }
        return try SandboxedVideo(request: request, descriptor: descriptor, executable: executable, limits: limits,
                                  refreshPeriod: refreshPeriod, posterStorage: posterStorage)
    }

    /// Where `vitrine-video` is (`VideoHelperLocation`).
    public static func installedHelper() -> String? { VideoHelperLocation.installed() }
}
