import Glibc
import VitrineCore
import VitrineRuntime
import VitrineSystem
import VitrineSandboxHelper

/// One job done inside the helper, with the decoders the kiosk itself used
/// to run: the same code, so the same pixels, in another process.
enum DecodeWork {
    static func run(_ job: DecodeJob, input: Int32, buffers: [Int32]) -> DecodeReply {
        switch job {
        case .slide(let slide):
            return decodeSlide(slide, input: input, buffers: buffers)
        case .inspect(let maxPixels):
            do {
                let mapped = try MappedFile(descriptor: input, path: "the picture")
                let image = try ImageInspection.inspect(mapped, maxPixels: maxPixels)
                return .inspected(kind: image.kind, size: image.size)
            } catch let failure as ImageInspection.Failure {
                return refusal(failure)
            } catch {
                return .refused(.undecodable, message: "\(error)")
            }
        case .thumbnail(let bounds, let maxPixels):
            guard let output = buffers.first else { return .refused(.undecodable, message: "no buffer was handed over") }
            do {
                let bytes = try FileIO.read(OpenFile(adopting: dup(input), path: "the picture"))
                let png = try ImageInspection.thumbnail(bytes, bounds: bounds, maxPixels: maxPixels)
                let buffer = try MappedBuffer(descriptor: output)
                guard png.count <= buffer.count else { return .refused(.undecodable, message: "the thumbnail is larger than its buffer") }
                png.withUnsafeBytes { buffer.base.copyMemory(from: $0.baseAddress!, byteCount: png.count) }
                return .thumbnail(byteCount: png.count)
            } catch let failure as ImageInspection.Failure {
                return refusal(failure)
            } catch {
                return .refused(.undecodable, message: "\(error)")
            }
        case .header(let maxPixels, let fileGoesOn):
            var head = [UInt8](repeating: 0, count: 1 << 20)
            let count = (try? head.withUnsafeMutableBytes { try FileIO.read(input, into: $0, path: "the picture") }) ?? 0
            return .header(problem: ImageInspection.headerProblem(Array(head.prefix(count)), fileGoesOn: fileGoesOn, maxPixels: maxPixels))
        }
    }

    private static func refusal(_ failure: ImageInspection.Failure) -> DecodeReply {
        switch failure {
        case .notAnImage(let why): .refused(.notAnImage, message: why)
        case .undecodable(let why): .refused(.undecodable, message: why)
        case .overPixelLimit(let why): .refused(.overPixelLimit, message: why)
        // Pictures have no bitrate; videos are never inspected in a picture helper.
        case .overBitrateLimit(let why): .refused(.undecodable, message: why)
        }
    }

    /// Decodes straight into the kiosk's frame buffer, and copies an
    /// animation's frames (decoded into the helper's own memory) into the
    /// animation buffer when they fit; when they do not, the slide plays its
    /// first frame, as it does in process when an animation is too large.
    private static func decodeSlide(_ job: DecodeJob.SlideJob, input: Int32, buffers: [Int32]) -> DecodeReply {
        guard let frameDescriptor = buffers.first else { return .refused(.slide, message: "no frame buffer was handed over") }
        let decoded: DecodedSlide
        let frameBuffer: MappedBuffer
        do {
            frameBuffer = try MappedBuffer(descriptor: frameDescriptor)
        } catch {
            return .refused(.slide, message: "\(error)")
        }
        guard frameBuffer.count >= job.frameBytes else { return .refused(.slide, message: "the frame buffer is smaller than announced") }
        let storage = PixelStorage(borrowing: frameBuffer.base, byteCount: frameBuffer.count, owner: frameBuffer)
        do {
            let workspace = try SlideDecodingWorkspace()
            let file = OpenFile(adopting: dup(input), path: job.file)
            decoded = try SlideDecoding.picture(of: file, request: job.request, workspace: workspace, frameStorage: storage)
        } catch let error as SlideError {
            return .refused(.slide, message: error.reasonDescription)
        } catch {
            return .refused(.slide, message: "\(error)")
        }
        // A frame larger than the buffer went to the helper's own memory: refused, never cut.
        guard decoded.frame.storage.memoryOwner === frameBuffer else {
            return .refused(.slide, message: "its frame (\(decoded.frame.size)) is larger than the kiosk allowed for")
        }
        var layout: DecodeReply.AnimationLayout?
        if let animation = decoded.animation, let animationDescriptor = buffers.dropFirst().first,
           let stored = animation.frames.first?.size, animation.frames.allSatisfy({ $0.size == stored }),
           WireBounds.animationFrames.contains(animation.frames.count),
           let buffer = try? MappedBuffer(descriptor: animationDescriptor) {
            let candidate = DecodeReply.AnimationLayout(storedSize: stored, orientation: animation.orientation,
                                                         frameDurations: animation.timeline.frameDurations, plays: animation.timeline.plays)
            if candidate.byteCount <= buffer.count {
                let frameBytes = stored.pixelCount * 4
                for (index, frame) in animation.frames.enumerated() {
                    (buffer.base + index * frameBytes).copyMemory(from: frame.pixels.baseAddress!, byteCount: frameBytes)
                }
                layout = candidate
            }
        }
        return .slide(frame: decoded.frame.size, animation: layout)
    }
}

/// A buffer the kiosk handed over, mapped shared and writable for as long as this lives.
final class MappedBuffer {
    let base: UnsafeMutableRawPointer
    let count: Int

    init(descriptor: Int32) throws(SystemError) {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw SystemError("fstat", subject: "the kiosk's buffer") }
        count = Int(info.st_size)
        guard count > 0, let mapped = mmap(nil, count, PROT_READ | PROT_WRITE, MAP_SHARED, descriptor, 0), mapped != MAP_FAILED else {
            throw SystemError("mmap", subject: "the kiosk's buffer")
        }
        base = mapped
    }

    deinit { munmap(base, count) }
}
