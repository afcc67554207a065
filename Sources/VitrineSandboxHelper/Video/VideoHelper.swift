import Glibc
import VitrineCore
import VitrineSystem

/// A video decoder as the helper drives it: VitrineFFmpeg's `VideoFileReader`
/// in `vitrine-video`, a stand-in in tests. Declared here so that this module,
/// which the kiosk links, never links FFmpeg.
public protocol VideoFrameDecoder: AnyObject {
    var info: VideoInfo { get }
    /// Draws the next frame into `canvas`; its timestamp, or nil at the end.
    func nextFrame(into canvas: PixelCanvas, fit: FitMode, background: RGBAColor) throws -> Duration?
    func rewind() throws
}

/// The video helper: `vitrine-video`, started by the kiosk (`SandboxedVideo`)
/// with its socket as descriptor 3, one process for each video slide it
/// plays. It confines itself as a picture helper does (`HelperConfinement`,
/// the same system-call filter: FFmpeg decodes in memory and on threads,
/// reading the descriptor it is handed), says whether that worked, and then
/// serves the one video it is opened on until the kiosk closes the socket.
///
/// It is a program of its own, not `vitrine` started again as picture
/// helpers are, so that FFmpeg's libraries are never mapped into the kiosk;
/// `VideoJob.OpenJob.version` keeps the two from one package version.
public enum VideoHelper {
    /// The limits a video helper runs under: FFmpeg's frame threads and
    /// reference frames take more than a picture (a 4K HEVC stream holds about
    /// 16 frames of 12 MiB), and playing takes CPU for as long as the video
    /// loops, so the CPU backstop is hours, not minutes; the kiosk's deadline
    /// on each batch of frames is what catches a stalled decoder.
    public static let defaultLimits = HelperLimits(addressSpaceMiB: 1024, cpuSeconds: 6 * 3600, deadline: .seconds(10))

    public static func serve(limits: HelperLimits, open: (Int32, Int) throws -> any VideoFrameDecoder) -> Never {
        HelperHello.confineAndSayHello(limits)
        let socket = HelperHello.socket
        var session: Session?
        while true {
            let message: (bytes: [UInt8], descriptors: [Int32])?
            do {
                message = try DescriptorPassing.receive(socket, limit: 64 << 10, maxDescriptors: VideoJob.descriptorLimit)
            } catch {
                exit(1)
            }
            guard let message else { exit(0) }
            let reply: VideoReply
            switch Result(catching: { try VideoJob(decoding: message.bytes) }) {
            case .failure(let error):
                reply = .refused("\(error)")
            case .success(.open(let job)):
                if session != nil {
                    reply = .refused("a video helper plays one video")
                } else {
                    switch Result(catching: { try Session(job, descriptors: message.descriptors, open: open) }) {
                    case .success(let opened):
                        session = opened
                        reply = .opened(opened.decoder.info)
                    case .failure(let error):
                        reply = .refused("\(error)")
                    }
                }
            case .success(.fill(let slots)):
                reply = session?.fill(slots) ?? .refused("no video is open")
            case .success(.rewind):
                reply = session?.rewind() ?? .refused("no video is open")
            }
            // The video's descriptor is the session's, read for as long as it plays; the ring is mapped.
            if session == nil { for descriptor in message.descriptors { close(descriptor) } }
            guard (try? DescriptorPassing.send(socket, reply.encoded)) != nil else { exit(1) }
        }
    }

    /// The one video a helper plays, and the ring it writes frames into.
    package final class Session {
        let decoder: any VideoFrameDecoder
        let job: VideoJob.OpenJob
        private let ring: UnsafeMutableRawPointer
        private let ringBytes: Int
        private let frameBytes: Int

        struct Failure: Error, CustomStringConvertible { var description: String }

        init(_ job: VideoJob.OpenJob, descriptors: [Int32], open: (Int32, Int) throws -> any VideoFrameDecoder) throws {
            guard job.version == VitrineVersion.current else {
                throw Failure(description: "the video helper is version \(VitrineVersion.current), the kiosk \(job.version): reinstall the package")
            }
            guard descriptors.count == 2 else { throw Failure(description: "the video and its frame ring were not handed over") }
            frameBytes = job.framing.output.pixelCount * 4
            ringBytes = frameBytes * job.slotCount
            var info = stat()
            guard fstat(descriptors[1], &info) == 0, Int(info.st_size) >= ringBytes else {
                throw Failure(description: "the frame ring is smaller than \(job.slotCount) frames of \(job.framing.output)")
            }
            guard let mapped = mmap(nil, ringBytes, PROT_READ | PROT_WRITE, MAP_SHARED, descriptors[1], 0), mapped != MAP_FAILED else {
                throw Failure(description: "the frame ring cannot be mapped (\(String(cString: strerror(errno))))")
            }
            close(descriptors[1])
            do {
                decoder = try open(descriptors[0], job.framing.maxPixels)
            } catch {
                munmap(mapped, ringBytes)
                throw error
            }
            ring = mapped
            self.job = job
        }

        deinit { munmap(ring, ringBytes) }

        func fill(_ slots: [Int]) -> VideoReply {
            var frames: [VideoReply.DecodedVideoFrame] = []
            for slot in slots {
                guard slot < job.slotCount else { return .refused("slot \(slot) is outside the ring") }
                let canvas = PixelCanvas(base: (ring + slot * frameBytes).assumingMemoryBound(to: UInt32.self),
                                         size: job.framing.output, stride: job.framing.output.width)
                do {
                    guard let timestamp = try decoder.nextFrame(into: canvas, fit: job.framing.fit, background: job.framing.background) else {
                        return .frames(frames, ended: true)
                    }
                    frames.append(.init(slot: slot, timestamp: timestamp))
                } catch {
                    // The frames already written stand; the next fill reports the failure.
                    return frames.isEmpty ? .refused("\(error)") : .frames(frames, ended: false)
                }
            }
            return .frames(frames, ended: false)
        }

        func rewind() -> VideoReply {
            do {
                try decoder.rewind()
                return .rewound
            } catch {
                return .refused("\(error)")
            }
        }
    }
}
