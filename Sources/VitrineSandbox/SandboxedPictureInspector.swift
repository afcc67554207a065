import Glibc
import CLinuxProcess
import VitrineCore
import VitrinePNG
import VitrineRuntime
import VitrineSystem

/// Proves uploads, downloads and configured pictures in the sandboxed
/// helpers (`DecodePool`). A helper that stops on a picture makes it
/// undecodable, with the reason ("decoding stopped: …"): a 422 for an
/// upload, a refused download, a problem line in `check-config`.
///
/// Which refusals the status lists (`RefusalBook`): every picture that stopped
/// a helper, which is held back; and a download's ordinary refusal, which
/// nobody else hears of. A file's ordinary refusal is not listed: the one who
/// sent it (an upload's 415 or 422, `check-config`'s problem line) is told,
/// and a rejected upload's staging file is gone, with nothing to try again.
public struct SandboxedPictureInspector: PictureInspector {
    public let pool: DecodePool
    /// Where videos are probed: a `vitrine-video` helper each.
    public let videos: SandboxedVideoOpener

    public init(pool: DecodePool, videos: SandboxedVideoOpener = SandboxedVideoOpener()) {
        self.pool = pool
        self.videos = videos
    }

    /// Opens the video in a helper and decodes its first frame, at a small size.
    public func videoProblem(file path: String, maxPixels: Int, maxVideoBitsPerSecond: Int?) -> String? {
        do {
            _ = try inspectVideo(file: path, maxPixels: maxPixels, maxVideoBitsPerSecond: maxVideoBitsPerSecond)
            return nil
        } catch {
            return error.problem
        }
    }

    public func inspectVideo(file path: String, maxPixels: Int, maxVideoBitsPerSecond: Int?) throws(ImageInspection.Failure) -> InspectedImage {
        let video = try openVideo(path, output: PixelSize(width: 64, height: 36), maxPixels: maxPixels)
        if let limit = maxVideoBitsPerSecond, let problem = video.info.bitRateProblem(limit: limit) { throw .overBitrateLimit(problem) }
        return InspectedImage(kind: InspectedImage.Kind(video: video.info), size: video.info.displaySize)
    }

    /// The first frame, fitted within `bounds` at the video's own shape, as a PNG.
    public func videoThumbnail(file path: String, bounds: PixelSize, maxPixels: Int) throws(ImageInspection.Failure) -> [UInt8] {
        let probe = try openVideo(path, output: PixelSize(width: 64, height: 36), maxPixels: maxPixels)
        let placed = SlideLayout.placement(of: probe.info.displaySize, in: bounds, fit: .contain)
        let video = try openVideo(path, output: PixelSize(width: placed.width, height: placed.height), maxPixels: maxPixels)
        do {
            return try PNGCodec.encode(video.poster, fast: true)
        } catch {
            throw .undecodable("its thumbnail cannot be written: \(error)")
        }
    }

    private func openVideo(_ path: String, output: PixelSize, maxPixels: Int) throws(ImageInspection.Failure) -> any SlideVideo {
        do {
            let file = try OpenFile(path, O_RDONLY | O_CLOEXEC)
            return try openVideo(descriptor: file.descriptor, named: path, output: output, maxPixels: maxPixels)
        } catch let error as ImageInspection.Failure {
            throw error
        } catch {
            throw .undecodable("\(error)")
        }
    }

    /// The video open on `descriptor`, in a helper, framed at `output`.
    private func openVideo(descriptor: Int32, named name: String, output: PixelSize,
                           maxPixels: Int) throws(ImageInspection.Failure) -> any SlideVideo {
        let request = SlideRequest(file: name, resolvedPath: name, fit: .contain, background: RGBAColor(red: 0, green: 0, blue: 0),
                                   output: output, maxPixels: maxPixels)
        do throws(SlideError) {
            return try videos.open(request, descriptor: descriptor, posterStorage: nil)
        } catch {
            let reason = error.reasonDescription
            throw reason.contains("decode.maxPixels") ? .overPixelLimit(reason) : .undecodable(reason)
        }
    }

    public func inspect(file path: String, named name: String, maxPixels: Int) throws -> InspectedImage {
        try inspect(path, named: name, maxPixels: maxPixels, download: nil)
    }

    public func inspect(download path: String, sha256: String, named name: String, maxPixels: Int) throws -> InspectedImage {
        try inspect(path, named: name, maxPixels: maxPixels, download: sha256)
    }

    /// A file's picture, known by the file (its refusal its sender's to hear),
    /// or a download's, known by its SHA-256 `download` (its refusal listed).
    private func inspect(_ path: String, named name: String, maxPixels: Int, download sha256: String?) throws -> InspectedImage {
        // A download's bitrate is held to the configuration when it plays: a configuration names it, not the download.
        if VideoFile.isVideo(atPath: path) { return try inspectVideo(file: path, maxPixels: maxPixels, maxVideoBitsPerSecond: nil) }
        let file = try OpenFile(path, O_RDONLY | O_CLOEXEC)
        let key = try sha256.flatMap(RefusalBook.key(ofSHA256:)) ?? RefusalBook.key(of: file.status())
        return try inspected(pool.runHoldingBack(.inspect(maxPixels: maxPixels), descriptors: [file.descriptor], key: key, name: name,
                                                 listingRefusals: sha256 != nil))
    }

    public func thumbnail(bytes: [UInt8], bounds: PixelSize, maxPixels: Int) throws -> [UInt8] {
        let sealed = try SealedBytes(bytes)
        // A PNG of `bounds` stored uncompressed, with its filter bytes and chunk headers, is the most it can take.
        let output = try SharedPixelBuffer(byteCount: bounds.pixelCount * 4 + bounds.height * 8 + (64 << 10), name: "vitrine-thumbnail")
        switch try pool.runOrRefuse(.thumbnail(bounds: bounds, maxPixels: maxPixels), descriptors: [sealed.descriptor, output.descriptor]) {
        case .thumbnail(let count) where count <= output.byteCount: return output.bytes(count: count)
        case .refused(let refusal, let message): throw Self.failure(refusal, message)
        default: throw ImageInspection.Failure.undecodable("decoding stopped: an answer that does not fit")
        }
    }

    public func headerProblem(_ head: [UInt8], fileGoesOn: Bool, maxPixels: Int) -> String? {
        guard let sealed = try? SealedBytes(head) else { return "cannot be checked: no memory for its header" }
        do throws(ImageInspection.Failure) {
            switch try pool.runOrRefuse(.header(maxPixels: maxPixels, fileGoesOn: fileGoesOn), descriptors: [sealed.descriptor]) {
            case .header(let problem): return problem
            case .refused(let refusal, let message): return Self.failure(refusal, message).problem
            default: return "cannot be checked: decoding stopped: an answer to another job"
            }
        } catch {
            return error.problem
        }
    }

    private func inspected(_ reply: DecodeReply) throws(ImageInspection.Failure) -> InspectedImage {
        switch reply {
        case .inspected(let kind, let size): return InspectedImage(kind: kind, size: size)
        case .refused(let refusal, let message): throw Self.failure(refusal, message)
        default: throw .undecodable("decoding stopped: an answer to another job")
        }
    }

    private static func failure(_ refusal: DecodeReply.Refusal, _ message: String) -> ImageInspection.Failure {
        switch refusal {
        case .notAnImage: .notAnImage(message)
        case .overPixelLimit: .overPixelLimit(message)
        case .undecodable, .slide: .undecodable(message)
        }
    }
}

extension DecodePool {
    /// `runOrRefuse`, for a picture that may be held back: one that stopped a
    /// helper before is refused at once, and one that stops a helper now is
    /// held back (`RefusalBook`), so a download served again, or the same
    /// upload sent again, does not cost another helper. Those are listed; the
    /// decoder's ordinary refusals only with `listingRefusals`.
    func runHoldingBack(_ job: DecodeJob, descriptors: [Int32], key: RefusedPictures.Key, name: String, listingRefusals: Bool)
        throws(ImageInspection.Failure) -> DecodeReply {
        if let held = refusals.heldBack(key) { throw .undecodable(RefusalBook.heldBackReason(held)) }
        let reply: DecodeReply
        do {
            reply = try run(job, descriptors: descriptors)
        } catch {
            refusals.record(key, file: name, reason: error.description, heldBack: error.blamesPicture)
            throw .undecodable(error.description)
        }
        // A picture the decoder refused is listed too (a URL slide's download, say), but not held back:
        // refusing it again costs one ordinary decode.
        if case .refused(_, let message) = reply {
            if listingRefusals { refusals.record(key, file: name, reason: message, heldBack: false) }
        } else {
            refusals.decoded(key)
        }
        return reply
    }

    /// `run`, with a helper's stop as the picture's failure to decode.
    func runOrRefuse(_ job: DecodeJob, descriptors: [Int32]) throws(ImageInspection.Failure) -> DecodeReply {
        do {
            return try run(job, descriptors: descriptors)
        } catch {
            throw .undecodable(error.description)
        }
    }
}

/// Bytes in memory handed to a helper as a file: an anonymous file written
/// once and sealed against every change (`F_SEAL_WRITE` too), so the helper
/// reads exactly what the kiosk checked and can alter nothing.
final class SealedBytes {
    let descriptor: Int32

    init(_ bytes: [UInt8]) throws(SystemError) {
        let fd = memfd_create("vitrine-picture", vitrine_mfd_cloexec | vitrine_mfd_allow_sealing)
        guard fd >= 0 else { throw SystemError("memfd_create", subject: "a picture") }
        do {
            try FileIO.writeAll(bytes, to: fd, path: "a picture")
        } catch {
            close(fd)
            throw error
        }
        let seals = vitrine_f_seal_shrink | vitrine_f_seal_grow | vitrine_f_seal_write | vitrine_f_seal_seal
        guard fcntl(fd, vitrine_f_add_seals, seals) == 0, lseek(fd, 0, SEEK_SET) == 0 else {
            let error = SystemError("fcntl(F_ADD_SEALS)", subject: "a picture")
            close(fd)
            throw error
        }
        descriptor = fd
    }

    deinit { close(descriptor) }
}
