import Glibc
import VitrineCore
import VitrineRuntime
import VitrineSystem

/// Decodes slides in the sandboxed helpers (`DecodePool`): the kiosk opens
/// the file, hands the helper its descriptor and a buffer to write the frame
/// into, and shows what comes back. Whatever the picture does to the helper,
/// the kiosk gets a frame or a `SlideError` naming the file and the reason.
public final class SandboxedSlideDecoder: SlideDecoder, @unchecked Sendable {
    public let pool: DecodePool
    /// Where video slides go: a `vitrine-video` helper each.
    public let videos: SandboxedVideoOpener

    public init(pool: DecodePool, videos: SandboxedVideoOpener = SandboxedVideoOpener()) {
        self.pool = pool
        self.videos = videos
    }

    public func picture(for request: SlideRequest, frameStorage: PixelStorage?) throws(SlideError) -> DecodedSlide {
        guard let path = request.resolvedPath else { throw SlideError(file: request.file, reason: .notDownloaded) }
        let file = try Self.open(path, request: request)
        let info: stat
        do {
            info = try file.status()
        } catch {
            throw SlideError(file: request.file, reason: .file(error))
        }
        let key = RefusalBook.key(of: info)
        if let held = pool.refusals.heldBack(key) {
            throw SlideError(file: request.file, reason: .isolated(RefusalBook.heldBackReason(held)))
        }
        if VideoFile.isVideo(file) {
            // A video is composed from its ring, never scanned out from its poster's memory:
            // a scan-out buffer handed in goes back (and its budget with it) when this returns.
            let video = try openVideo(file, request: request, key: key,
                                      frameStorage: frameStorage?.reusableAfterEviction == false ? nil : frameStorage)
            return DecodedSlide(frame: video.poster, video: video)
        }
        do {
            let decoded = try decodeFallingBack(file, request: request, frameStorage: frameStorage)
            pool.refusals.decoded(key)
            return decoded
        } catch let stop as HelperStop {
            pool.refusals.record(key, file: request.file, reason: stop.description, heldBack: stop.blamesPicture)
            throw SlideError(file: request.file, reason: .isolated(stop.description))
        } catch let error as SlideError {
            pool.refusals.record(key, file: request.file, reason: error.reasonDescription, heldBack: false)
            throw error
        } catch {
            throw SlideError(file: request.file, reason: .isolated("\(error)"))
        }
    }

    /// Opens a video slide in a helper of its own; a video that stopped its helper is held back as a picture is.
    private func openVideo(_ file: borrowing OpenFile, request: SlideRequest, key: RefusedPictures.Key,
                           frameStorage: PixelStorage?) throws(SlideError) -> any SlideVideo {
        do {
            let video = try videos.open(request, descriptor: file.descriptor, posterStorage: frameStorage)
            pool.refusals.decoded(key)
            return video
        } catch {
            pool.refusals.record(key, file: request.file, reason: error.reasonDescription, heldBack: false)
            throw error
        }
    }

    private static func open(_ path: String, request: SlideRequest) throws(SlideError) -> OpenFile {
        do {
            return try OpenFile(path, O_RDONLY | O_CLOEXEC)
        } catch {
            throw SlideError(file: request.file, reason: .file(error))
        }
    }

    /// Helpers keep no scratch for the kiosk: each returns its memory after every job.
    public func releaseScratch() {}

    /// The pictures refused so far, newest first (for the status).
    /// Every picture the pool refused (uploads and downloads too), newest first.
    public var refusedPictures: [RefusedPicture] { pool.refusals.list }

    /// An operator's "try again" for `file`, or for every refused picture.
    @discardableResult
    public func retry(file: String?) -> Int { pool.refusals.retry(file: file) }

    /// A decode into memory that is never reused (a scan-out buffer's DMA-BUF)
    /// that fails is tried once more into a memfd of the decoder's own. If that
    /// decodes, the memory was at fault (a driver whose DMA-BUFs a helper cannot
    /// map or write), and its maker is told, so that it hands out no more; if
    /// it fails too, the picture was, and that failure is the one reported.
    private func decodeFallingBack(_ file: borrowing OpenFile, request: SlideRequest, frameStorage: PixelStorage?) throws -> DecodedSlide {
        guard let given = frameStorage?.memoryOwner as? any SharedFrameMemory, !given.reusableAfterEviction else {
            return try decode(file, request: request, frameStorage: frameStorage)
        }
        do {
            return try decode(file, request: request, frameStorage: frameStorage)
        } catch {
            // The helper read the file through a duplicate of this descriptor, which shares its offset.
            lseek(file.descriptor, 0, SEEK_SET)
            let decoded = try decode(file, request: request, frameStorage: nil)
            given.helperCouldNotUse("\(error)")
            return decoded
        }
    }

    private func decode(_ file: borrowing OpenFile, request: SlideRequest, frameStorage: PixelStorage?) throws -> DecodedSlide {
        let frameBytes = Self.largestFrameBytes(request)
        // The memory handed in (a scan-out buffer's DMA-BUF, or a recycled memfd) when the
        // largest frame fits it and it is ready for writes; otherwise a memfd of its own.
        let frameBuffer: any SharedFrameMemory, frameBufferStorage: PixelStorage
        if let frameStorage, let given = frameStorage.memoryOwner as? any SharedFrameMemory, given.byteCount >= frameBytes,
           given.beginWrites() {
            (frameBuffer, frameBufferStorage) = (given, frameStorage)
        } else {
            let fresh = try SharedPixelBuffer(byteCount: frameBytes)
            (frameBuffer, frameBufferStorage) = (fresh, fresh.storage())
        }
        defer { frameBuffer.endWrites() }
        // Sparse: pages are taken only for the frames a helper writes.
        let animationBuffer = try SharedPixelBuffer(byteCount: SlideDecoding.animationByteLimit, name: "vitrine-animation")
        let job = DecodeJob.SlideJob(request, frameBytes: frameBuffer.byteCount, animationBytes: animationBuffer.byteCount)
        let reply = try pool.run(.slide(job), descriptors: [file.descriptor, frameBuffer.descriptor, animationBuffer.descriptor])
        switch reply {
        case .slide(let size, let layout):
            guard size.pixelCount * 4 <= frameBuffer.byteCount else {
                throw HelperStop.malformedReply("a frame of \(size) does not fit its buffer")
            }
            let frame = PixelImage(size: size, storage: frameBufferStorage)
            guard let layout, layout.frameDurations.count > 1 else { return DecodedSlide(frame: frame) }
            guard layout.byteCount <= animationBuffer.byteCount else {
                throw HelperStop.malformedReply("an animation of \(layout.byteCount) bytes does not fit its buffer")
            }
            let frameBytes = layout.storedSize.pixelCount * 4
            let frames = layout.frameDurations.indices.map { index in
                PixelImage(size: layout.storedSize, storage: animationBuffer.storage(offset: index * frameBytes))
            }
            let timeline = AnimationTimeline(durations: layout.frameDurations, plays: layout.plays)
            return DecodedSlide(frame: frame, animation: AnimatedFrames(frames: frames, orientation: layout.orientation, timeline: timeline))
        case .refused(_, let message):
            throw SlideError(file: request.file, reason: .isolated(message))
        case .inspected, .thumbnail, .header:
            throw HelperStop.malformedReply("an answer to another job")
        }
    }

    /// The largest frame `request` can have (`SlideRequest.frameSize`: the
    /// output's, or up to `frameScale` times finer for Ken Burns).
    static func largestFrameBytes(_ request: SlideRequest) -> Int {
        let width = Int((Double(request.output.width) * request.frameScale).rounded(.down))
        let height = Int((Double(request.output.height) * request.frameScale).rounded(.down))
        return max(1, max(width, request.output.width) * max(height, request.output.height)) * 4
    }
}
