import Glibc
import VitrineCore
import VitrineRuntime
import VitrineSystem
import VitrineSandboxHelper

/// What decoding one picture cost, in a sandboxed helper as the kiosk decodes a slide.
public struct SandboxedDecodeCost: Sendable, Equatable {
    /// From asking for the slide to having its frame: what the kiosk's decode
    /// queue waits (the helper's work, the frame's hand-over, the checks of the reply).
    public var wall: Duration
    /// The helper's CPU time for the job, every thread's: more than `wall`
    /// when the decoder used several cores (libheif decodes a grid's tiles on
    /// threads of its own). Nil when the helper's clock could not be read.
    public var cpu: Duration?
    /// The helper's peak resident memory (`VmHWM`), in KiB: its start's and
    /// the job's, the frame it wrote into the kiosk's shared memory included.
    /// Nil when it could not be read.
    public var peakResidentKiB: Int?
    /// The frame the picture was decoded to: fitted into the output (`contain`).
    public var frame: PixelSize

    public init(wall: Duration, cpu: Duration?, peakResidentKiB: Int?, frame: PixelSize) {
        self.wall = wall
        self.cpu = cpu
        self.peakResidentKiB = peakResidentKiB
        self.frame = frame
    }
}

/// Times the decoding of one picture on the path the kiosk takes for an
/// untrusted one: `SandboxedSlideDecoder` over a `DecodePool`, the picture's
/// descriptor handed to a helper that writes the frame into shared memory.
/// `vitrine doctor`'s "Decoding" section is made of these.
///
/// Each picture gets a pool of its own, one helper, started (and confined)
/// by a header check of the picture before the clock starts, as a kiosk's
/// helpers are waiting when a slide is asked for: the figures are the decode's,
/// not a process start's, and the helper's peak memory is this picture's. The
/// file is read once before too, so that the figure is the decoder's, not the
/// storage's, and the same on a second run.
public struct SandboxedDecodeTimer: Sendable {
    /// The `vitrine` binary the helper runs as `vitrine decode-helper`.
    public var executable: String
    public var limits: HelperLimits

    /// Why a picture could not be timed.
    public enum Failure: Error, Equatable, Sendable, CustomStringConvertible {
        /// No helper could be started, or it could not confine itself: the
        /// kiosk would refuse every picture with this reason.
        case cannotStart(String)
        /// The picture was refused (it cannot be read, or its decode failed or
        /// stopped the helper), in words naming the file: the kiosk would refuse it too.
        case refused(String)

        public var description: String {
            switch self {
            case .cannotStart(let why), .refused(let why): why
            }
        }
    }

    /// The doctor's pictures are at most a few MiB; a larger file is not one of them.
    static let pictureByteLimit = 64 << 20

    public init(executable: String = "/proc/self/exe", limits: HelperLimits = HelperLimits()) {
        self.executable = executable
        self.limits = limits
    }

    /// Decodes the picture at `path` into a frame for `output`, as a still slide
    /// with `fit: contain`, and says what it cost.
    public func measure(_ path: String, output: PixelSize, maxPixels: Int) throws(Failure) -> SandboxedDecodeCost {
        let byteCount: Int
        do {
            byteCount = try FileIO.read(path, limit: Self.pictureByteLimit).count
        } catch {
            // "/x/photo.jpg: No such file or directory", or "…: File too large".
            throw .refused("\(path): \(error.reason)")
        }
        let pool = DecodePool(executable: executable, size: 1, limits: limits)
        let helper = try startHelper(in: pool, checking: path, byteCount: byteCount, maxPixels: maxPixels)
        let request = SlideRequest(file: path, resolvedPath: path, fit: .contain, background: .black, output: output, maxPixels: maxPixels)
        let decoder = SandboxedSlideDecoder(pool: pool)
        let cpuBefore = try? ProcessCPUClock.time(of: helper)
        let start = MonotonicClock.now()
        let frame: PixelSize
        do {
            frame = try decoder.picture(for: request, frameStorage: nil).frame.size
        } catch {
            throw .refused(error.description)
        }
        let wall = MonotonicClock.now() - start
        // The same helper, waiting again: its clock and its peak now hold the job. A helper
        // that retired after it (`HelperLimits.decodesPerHelper`) took its figures with it.
        guard pool.idleHelperIDs == [helper] else {
            return SandboxedDecodeCost(wall: wall, cpu: nil, peakResidentKiB: nil, frame: frame)
        }
        let cpuAfter = try? ProcessCPUClock.time(of: helper)
        let cpu = cpuBefore.flatMap { before in cpuAfter.map { $0 - before } }
        return SandboxedDecodeCost(wall: wall, cpu: cpu, peakResidentKiB: pool.helperMemory().first?.peakKiB, frame: frame)
    }

    /// Starts the pool's helper with the picture's header check: the helper's
    /// process id, once it waits for the next job.
    private func startHelper(in pool: DecodePool, checking path: String, byteCount: Int, maxPixels: Int) throws(Failure) -> pid_t {
        let reply: DecodeReply
        do {
            let file = try OpenFile(path, O_RDONLY | O_CLOEXEC)
            // The helper reads at most its first MiB (`DecodeWork`, the header job).
            reply = try pool.run(.header(maxPixels: maxPixels, fileGoesOn: byteCount > 1 << 20), descriptors: [file.descriptor])
        } catch let stop as HelperStop {
            throw stop.blamesPicture ? .refused("\(path): \(stop)") : .cannotStart(stop.description)
        } catch let error as SystemError {
            throw .refused("\(path): \(error.reason)")
        } catch {
            throw .refused("\(path): \(error)")
        }
        switch reply {
        case .header(problem: nil): break
        case .header(problem: let problem?): throw .refused("\(path): \(problem)")
        case .refused(_, let message): throw .refused("\(path): \(message)")
        default: throw .cannotStart("decoding stopped: an answer to another job")
        }
        guard let helper = pool.idleHelperIDs.first else { throw .cannotStart("decoding stopped: the helper ended after its first job") }
        return helper
    }
}
