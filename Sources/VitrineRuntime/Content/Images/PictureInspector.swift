import VitrineCore
import VitrineSystem

/// Where pictures from outside are proven before the kiosk accepts them:
/// uploads, URL and channel downloads, thumbnails, and the pictures a
/// configuration names. The composition root hands the server the sandboxed
/// inspector (VitrineSandbox's `SandboxedPictureInspector`), so these
/// decodes, like the slides', never run in the process that drives the
/// screen; `InProcessPictureInspector` runs `ImageInspection` here, for tests.
public protocol PictureInspector: Sendable {
    /// Decodes all of the picture at `path` (`ImageInspection.inspect`);
    /// `name` is what refusals call it (an upload's name, a configured path).
    /// - Throws: `ImageInspection.Failure`, or `SystemError` when it cannot be opened.
    func inspect(file path: String, named name: String, maxPixels: Int) throws -> InspectedImage
    /// Decodes all of a download staged at `path` (a URL's, a channel's blob),
    /// whose SHA-256 is `sha256` in hex, or opens it in a video helper when it
    /// is a video. It is known by its content: the status lists its refusal
    /// (nobody else hears of it), and the same bytes downloaded again after
    /// they stopped a helper are held back.
    /// - Throws: `ImageInspection.Failure`, or `SystemError` when it cannot be opened.
    func inspect(download path: String, sha256: String, named name: String, maxPixels: Int) throws -> InspectedImage
    /// A PNG of the picture within `bounds` (`ImageInspection.thumbnail`).
    func thumbnail(bytes: [UInt8], bounds: PixelSize, maxPixels: Int) throws -> [UInt8]
    /// Why the picture whose first bytes are `head` cannot be shown, from its
    /// headers alone, or nil (`ImageInspection.headerProblem`).
    func headerProblem(_ head: [UInt8], fileGoesOn: Bool, maxPixels: Int) -> String?
    /// Why the video at `path` cannot be played, or nil: its container and
    /// stream opened and its first frame decoded, in a video helper, and its
    /// average bitrate within `maxVideoBitsPerSecond` (nil: any).
    func videoProblem(file path: String, maxPixels: Int, maxVideoBitsPerSecond: Int?) -> String?
    /// The video at `path`, opened in a video helper: its kind and size.
    /// - Throws: `ImageInspection.Failure` (`undecodable`, `overPixelLimit`,
    ///   `overBitrateLimit` when over `maxVideoBitsPerSecond`).
    func inspectVideo(file path: String, maxPixels: Int, maxVideoBitsPerSecond: Int?) throws(ImageInspection.Failure) -> InspectedImage
    /// A PNG of the video's first frame within `bounds`.
    func videoThumbnail(file path: String, bounds: PixelSize, maxPixels: Int) throws(ImageInspection.Failure) -> [UInt8]
}

extension PictureInspector {
    static var noVideoHelper: String { "a video, which only the video helper (vitrine-video) can open" }

    /// An inspector with no video helper says so.
    public func videoProblem(file path: String, maxPixels: Int, maxVideoBitsPerSecond: Int?) -> String? { "is \(Self.noVideoHelper)" }

    public func inspectVideo(file path: String, maxPixels: Int, maxVideoBitsPerSecond: Int?) throws(ImageInspection.Failure) -> InspectedImage {
        throw .undecodable("it is \(Self.noVideoHelper)")
    }

    public func videoThumbnail(file path: String, bounds: PixelSize, maxPixels: Int) throws(ImageInspection.Failure) -> [UInt8] {
        throw .undecodable("it is \(Self.noVideoHelper)")
    }
}

/// `ImageInspection` in this process: for tests, and the commands that read
/// only files their user chose.
public struct InProcessPictureInspector: PictureInspector {
    public init() {}

    public func inspect(file path: String, named name: String, maxPixels: Int) throws -> InspectedImage {
        try ImageInspection.inspect(try MappedFile(path), maxPixels: maxPixels)
    }

    public func inspect(download path: String, sha256: String, named name: String, maxPixels: Int) throws -> InspectedImage {
        if VideoFile.isVideo(atPath: path) { return try inspectVideo(file: path, maxPixels: maxPixels, maxVideoBitsPerSecond: nil) }
        return try inspect(file: path, named: name, maxPixels: maxPixels)
    }

    public func thumbnail(bytes: [UInt8], bounds: PixelSize, maxPixels: Int) throws -> [UInt8] {
        try ImageInspection.thumbnail(bytes, bounds: bounds, maxPixels: maxPixels)
    }

    public func headerProblem(_ head: [UInt8], fileGoesOn: Bool, maxPixels: Int) -> String? {
        ImageInspection.headerProblem(head, fileGoesOn: fileGoesOn, maxPixels: maxPixels)
    }
}
