import VitrineCore

/// Where slides' pictures are decoded: the seam between the frame store and
/// the decoders. The kiosk's composition root hands every store the
/// sandboxed decoder (VitrineSandbox's `SandboxedSlideDecoder`), so that
/// untrusted bytes are never decoded in the process that drives the screen;
/// `vitrine render`, the benchmarks and unit tests decode in process
/// (`InProcessSlideDecoder`), which gives the same pixels.
///
/// Calls may block for as long as a decode takes: a store makes them on its
/// own decode queue, never on the display thread.
public protocol SlideDecoder: Sendable {
    /// `request`'s picture framed for its output, and an animation's frames.
    /// `frameStorage`, when given, is memory to reuse for the frame (a
    /// recycled frame's); the decoder may use other memory instead.
    func picture(for request: SlideRequest, frameStorage: PixelStorage?) throws(SlideError) -> DecodedSlide

    /// The store's queue has gone idle: scratch memory kept between decodes
    /// may go back to the system.
    func releaseScratch()

    /// The pictures refused so far, newest first: what the status lists.
    var refusedPictures: [RefusedPicture] { get }

    /// An operator's "try again": forgets the refusals of `file` (every
    /// file's when nil), so that the next decode tries it. Returns how many.
    func retry(file: String?) -> Int
}

/// A picture the decoder refused, as the status lists it.
public struct RefusedPicture: Hashable, Sendable {
    /// The file as the configuration names it.
    public var file: String
    public var reason: String
    /// Wall time of the last refusal, in nanoseconds since the epoch.
    public var lastRefused: Int64
    public var refusals: Int
    /// Not decoded again until an operator retries it: it stopped a decoding helper.
    public var heldBack: Bool

    public init(file: String, reason: String, lastRefused: Int64, refusals: Int, heldBack: Bool) {
        self.file = file
        self.reason = reason
        self.lastRefused = lastRefused
        self.refusals = refusals
        self.heldBack = heldBack
    }
}

extension SlideDecoder {
    /// The still frame alone (the placeholder's).
    public func frame(for request: SlideRequest) throws(SlideError) -> PixelImage {
        try picture(for: request, frameStorage: nil).frame
    }
}

/// Decodes in this process, on the caller's thread, with one workspace kept
/// between decodes (`SlideDecodingWorkspace`: a libjpeg decoder and scratch).
/// One decode at a time: calls are serialised by a lock.
public final class InProcessSlideDecoder: SlideDecoder, @unchecked Sendable {
    private let lock = Mutex()
    /// Guarded by `lock`: TurboJPEG handles are single-threaded.
    private var workspace: SlideDecodingWorkspace?
    /// Where video slides go; nil: a video slide fails with the reason. Video
    /// is never decoded in this process (FFmpeg is not linked into it), even
    /// here: a video helper decodes it (`SlideVideoOpener`).
    private let videos: (any SlideVideoOpener)?

    public init(videos: (any SlideVideoOpener)? = nil) {
        self.videos = videos
    }

    public func picture(for request: SlideRequest, frameStorage: PixelStorage?) throws(SlideError) -> DecodedSlide {
        if let path = request.resolvedPath, let file = VideoFile.openIfVideo(path) {
            guard let videos else {
                throw SlideError(file: request.file, reason: .isolated("video is not available here: only the kiosk, render and check-config play video"))
            }
            let video = try videos.open(request, descriptor: file.descriptor, posterStorage: frameStorage)
            return DecodedSlide(frame: video.poster, video: video)
        }
        // withLock rethrows untyped errors: carry the typed one out in a Result.
        return try lock.withLock {
            Result { () throws(SlideError) -> DecodedSlide in
                try SlideDecoding.picture(for: request, workspace: try workspaceLocked(), frameStorage: frameStorage)
            }
        }.get()
    }

    public func releaseScratch() {
        lock.withLock { workspace = nil }
    }

    /// In process nothing is held back: a failed slide is simply a failure (`SlideFrameStore`).
    public var refusedPictures: [RefusedPicture] { [] }

    public func retry(file: String?) -> Int { 0 }

    /// Whether a workspace is held now (for tests).
    public var holdsScratch: Bool { lock.withLock { workspace != nil } }

    private func workspaceLocked() throws(SlideError) -> SlideDecodingWorkspace {
        if let workspace { return workspace }
        do {
            let made = try SlideDecodingWorkspace()
            workspace = made
            return made
        } catch {
            throw SlideError(file: "(decoder)", reason: .decode(error))
        }
    }
}
