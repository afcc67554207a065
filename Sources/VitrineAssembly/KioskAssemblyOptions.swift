import VitrineConfig
import VitrineCore
import VitrineRuntime
import VitrineChannel

/// How `KioskAssembly` differs between `vitrine run` and a test.
public struct KioskAssemblyOptions {
    /// The displays for the configuration, one per output group: the DRM/headless
    /// selection in `vitrine run`, headless in tests.
    public var openDisplays: (KioskConfiguration) throws -> KioskDisplays
    /// Changes made after the configuration is read (`vitrine run --display`, `--preview`).
    public var adjust: (inout KioskConfiguration) -> Void
    /// The name plays are reported under; nil: the channel's device name, else the host name.
    public var device: String?
    /// The channel's poll policy; nil: the one the configuration asks for.
    public var channelPolicy: ChannelPollPolicy?
    /// Where every output group's pictures are decoded: the sandboxed helpers
    /// in `vitrine run` (`SandboxedSlideDecoder`), in process in some tests.
    public var decoder: any SlideDecoder
    /// Where uploads, downloads, thumbnails and pushed pictures are proven: the sandboxed helpers in `vitrine run`.
    public var pictures: any PictureInspector

    public init(openDisplays: @escaping (KioskConfiguration) throws -> KioskDisplays, decoder: any SlideDecoder,
                pictures: any PictureInspector, adjust: @escaping (inout KioskConfiguration) -> Void = { _ in },
                device: String? = nil, channelPolicy: ChannelPollPolicy? = nil) {
        self.openDisplays = openDisplays
        self.decoder = decoder
        self.pictures = pictures
        self.adjust = adjust
        self.device = device
        self.channelPolicy = channelPolicy
    }

    /// One display, for the configuration as it is (or as its connector's `outputs` entry shows it).
    public init(openDisplay: @escaping (KioskConfiguration) throws -> DisplayBackend, decoder: any SlideDecoder,
                pictures: any PictureInspector, adjust: @escaping (inout KioskConfiguration) -> Void = { _ in },
                device: String? = nil, channelPolicy: ChannelPollPolicy? = nil) {
        self.init(openDisplays: { KioskDisplays(try openDisplay($0)) }, decoder: decoder, pictures: pictures, adjust: adjust, device: device,
                  channelPolicy: channelPolicy)
    }
}
