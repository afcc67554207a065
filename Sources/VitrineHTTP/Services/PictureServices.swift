import VitrineRuntime

/// Where the API's pictures are decoded, and how many uploads it takes at once.
public struct PictureServices: Sendable {
    /// Where uploads, thumbnails and pushed pictures are proven: the sandboxed helpers.
    public let inspector: any PictureInspector
    /// Where the display loops' slides are decoded: its refused pictures, and an operator's "try again".
    public let slides: any SlideDecoder
    /// Uploads read and inspected at once (`UploadGate`).
    public let uploads = UploadGate()
    /// The largest upload taken, in bytes (`api.maxUploadSize`).
    public let maxUploadBytes: Int

    public init(inspector: any PictureInspector, slides: any SlideDecoder, maxUploadBytes: Int) {
        self.inspector = inspector
        self.slides = slides
        self.maxUploadBytes = maxUploadBytes
    }
}
