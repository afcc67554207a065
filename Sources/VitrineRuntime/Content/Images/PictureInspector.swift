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
    /// Decodes all of `bytes` (`ImageInspection.inspect`); `name` is what
    /// refusals call it (a URL, a channel's picture).
    func inspect(bytes: [UInt8], named name: String, maxPixels: Int) throws(ImageInspection.Failure) -> InspectedImage
    /// A PNG of the picture within `bounds` (`ImageInspection.thumbnail`).
    func thumbnail(bytes: [UInt8], bounds: PixelSize, maxPixels: Int) throws -> [UInt8]
    /// Why the picture whose first bytes are `head` cannot be shown, from its
    /// headers alone, or nil (`ImageInspection.headerProblem`).
    func headerProblem(_ head: [UInt8], fileGoesOn: Bool, maxPixels: Int) -> String?
}

/// `ImageInspection` in this process: for tests, and the commands that read
/// only files their user chose.
public struct InProcessPictureInspector: PictureInspector {
    public init() {}

    public func inspect(file path: String, named name: String, maxPixels: Int) throws -> InspectedImage {
        try ImageInspection.inspect(try MappedFile(path), maxPixels: maxPixels)
    }

    public func inspect(bytes: [UInt8], named name: String, maxPixels: Int) throws(ImageInspection.Failure) -> InspectedImage {
        try ImageInspection.inspect(bytes, maxPixels: maxPixels)
    }

    public func thumbnail(bytes: [UInt8], bounds: PixelSize, maxPixels: Int) throws -> [UInt8] {
        try ImageInspection.thumbnail(bytes, bounds: bounds, maxPixels: maxPixels)
    }

    public func headerProblem(_ head: [UInt8], fileGoesOn: Bool, maxPixels: Int) -> String? {
        ImageInspection.headerProblem(head, fileGoesOn: fileGoesOn, maxPixels: maxPixels)
    }
}
