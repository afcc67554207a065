import Glibc
import Synchronization
import VitrineCore
import VitrineRuntime
import VitrineSystem
import VitrineSandboxHelper

/// A video slide played from a `vitrine-video` helper of its own: the helper
/// decodes frames into a ring of output-sized slots shared with the kiosk
/// (`SharedPixelBuffer`), a worker thread here keeps the ring full ahead of
/// the slide's time, and the display thread takes the frame each refresh
/// shows (`VideoFramePacer`) without waiting.
///
/// Whatever the file does to the helper (a crash, a stall past the deadline,
/// a refusal), the video stops on the frame it showed last, `failure` says
/// why, and the kiosk goes on. The next playback (the slide shown again)
/// starts a fresh helper on the same file, so one bad moment does not freeze
/// the slide for good; a looping video (which may be the only slide, never
/// paged away from) goes on from where it stopped in a fresh helper after a
/// pause that doubles with each failure in a row (5 s up to 5 min). A helper that has used half its CPU backstop
/// (`HelperLimits.cpuSeconds`, which counts over the helper's whole life) is
/// replaced at the next rewind, so a video that loops for days is never
/// ended by it. The helper is killed when the slide is let go (`deinit`) and
/// reaped on another thread, so a video no longer resident holds no process
/// and the frame store's lock is never held while one exits.
public final class SandboxedVideo: SlideVideo, @unchecked Sendable {
    public let info: VideoInfo
    public let poster: PixelImage
    /// The slide's length: the stated one (the container's duration, a loop's
    /// or a stop's), until the last pass has ended and the end of its last
    /// frame is known (`VideoLoopTimeline.end(afterFinalPass:)`), which also
    /// gives a video whose container states no duration its length.
    public var length: Duration? {
        state.withLock { state in
            let stated = request.videoLength.slideDuration(videoDuration: info.duration)
            guard state.finished, let end = state.timeline.end(afterFinalPass: true) else { return stated }
            // A crafted timestamp must not hold the slide past what the file says by more than a moment.
            return stated.map { min(end, $0 + Self.lengthTolerance) } ?? end
        }
    }

    /// How far past its stated length the end of a video's last frame may hold the slide.
    static let lengthTolerance = Duration.milliseconds(500)

    /// The first pause before a looping video that failed goes on in a fresh helper; it doubles with each failure in a row.
    static let firstRetryPause = Duration.seconds(5)
    static let longestRetryPause = Duration.seconds(300)

    private let request: SlideRequest
    private let limits: HelperLimits
    private let executable: String
    /// The video file, kept open (a duplicate of the descriptor it was opened
    /// on) for a fresh helper after a failure or a tired one.
    private let file: Int32
    private let ring: SharedPixelBuffer
    /// One image over each slot of the ring.
    private let slots: [PixelImage]
    private let worker = SerialWorker(name: "vitrine video")
    private let state: Mutex<State>

    /// What the display thread and the worker share.
    /// Only the worker drives a helper (and `init` before it); the lock orders
    /// its handover to the worker, `deinit` and `helperID`.
    private struct DrivenHelper: @unchecked Sendable { let process: HelperProcess }

    private struct State {
        var helper: DrivenHelper
        /// The next fill starts a fresh helper first (the last one failed, or used half its CPU).
        var respawnWanted = false
        /// Decoded frames in slide time, oldest first; the first may be the one on screen.
        var queue: [(slot: Int, time: Duration)] = []
        var free: [Int]
        var timeline: VideoLoopTimeline
        var pacer: VideoFramePacer
        var shown: (slot: Int, time: Duration)?
        /// The slot shown before `shown`, not written again until the next frame is chosen.
        var retired: Int?
        /// The last pass ended, or the length was reached: no more frames come.
        var finished = false
        var failure: String?
        /// When (slide time) a looping video that failed goes on, in a fresh helper.
        var retryAt: Duration?
        /// Failures in a row without a frame between them, for the pause before the next try.
        var failuresInARow = 0
        var filling = false
        /// The display found no frame after the one it shows: wake it when one lands.
        var awaited = false
        var lastAsked: Duration?
        /// Bumped when the slide plays again from the start: a fill under way is of the old playback.
        var playback = 0
        var rewindWanted = false
        var wake: (@Sendable () -> Void)?
    }

    /// Frames asked for at once: the helper's deadline (`HelperLimits.deadline`)
    /// is for one request, and a board that decodes a 4K frame in software in
    /// a second must not be taken for a stalled helper while it fills the ring.
    static let framesPerRequest = 2

    /// The most memory a ring may take: output-sized frames, at least three.
    public static let ringBudgetBytes = 48 << 20

    /// The slots a ring of `output`-sized frames has: as many as fit the budget, 3 to 8.
    static func slotCount(for output: PixelSize) -> Int {
        max(3, min(8, ringBudgetBytes / max(1, output.pixelCount * 4)))
    }

    /// Starts a helper, opens the video on `descriptor` in it, and decodes
    /// the first frame into `posterStorage` (or new memory).
    init(request: SlideRequest, descriptor: Int32, executable: String, limits: HelperLimits, refreshPeriod: Duration,
         posterStorage: PixelStorage?) throws(SlideError) {
        self.request = request
        self.limits = limits
        self.executable = executable
        let fail = { (reason: String) in SlideError(file: request.file, reason: .isolated(reason)) }
        let slotCount = Self.slotCount(for: request.output)
        let frameBytes = request.output.pixelCount * 4
        let ring: SharedPixelBuffer
        do {
            ring = try SharedPixelBuffer(byteCount: frameBytes * slotCount, name: "vitrine-video")
        } catch {
            throw SlideError(file: request.file, reason: .file(error))
        }
        let file = fcntl(descriptor, F_DUPFD_CLOEXEC, 0)
        guard file >= 0 else { throw fail("the video's descriptor cannot be kept: \(String(cString: strerror(errno)))") }
        let (helper, info): (HelperProcess, VideoInfo)
        do {
            (helper, info) = try Self.startHelper(request: request, file: file, ring: ring, slotCount: slotCount,
                                                  executable: executable, limits: limits)
        } catch {
            close(file)
            throw error
        }
        self.info = info
        self.file = file
        self.ring = ring
        slots = (0..<slotCount).map { PixelImage(size: request.output, storage: ring.storage(offset: $0 * frameBytes)) }
        // The first frame, now: it is the slide's still until the slide plays.
        var timeline = VideoLoopTimeline(length: request.videoLength, frameRate: info.frameRate)
        let first: VideoReply.DecodedVideoFrame
        do throws(SlideError) {
            switch try Self.ask(helper, .fill(slots: [0]), descriptors: [], limits: limits, file: request.file) {
            case .frames(let frames, _):
                guard let frame = frames.first, frame.slot == 0 else { throw fail("the video has no frame") }
                first = frame
            case .opened, .rewound, .refused: throw fail("decoding stopped: an answer to another request")
            }
        } catch {
            close(file)
            throw error
        }
        var state = State(helper: DrivenHelper(process: helper), free: Array(1..<slotCount), timeline: timeline,
                          pacer: VideoFramePacer(refreshPeriod: refreshPeriod))
        if let time = timeline.slideTime(ofFrameAt: first.timestamp) {
            state.queue = [(0, time)]
            state.timeline = timeline
        } else {
            state.free.append(0)
        }
        self.state = Mutex(state)
        let poster = PixelImage(size: request.output, storage: posterStorage ?? PixelStorage(capacity: frameBytes))
        _ = poster.pixels.update(fromContentsOf: slots[0].pixels)
        self.poster = poster
    }

    deinit {
        state.withLock { $0.helper.process.endInBackground() }
        close(file)
    }

    /// Starts a helper and opens the video on `file` in it, with `ring` to decode into.
    private static func startHelper(request: SlideRequest, file: Int32, ring: SharedPixelBuffer, slotCount: Int,
                                    executable: String, limits: HelperLimits) throws(SlideError) -> (HelperProcess, VideoInfo) {
        let helper: HelperProcess
        do {
            helper = try HelperProcess(executable: executable, name: "vitrine-video",
                                       arguments: ["--address-space-mib", "\(limits.addressSpaceMiB)", "--cpu-seconds", "\(limits.cpuSeconds)"],
                                       startDeadline: .seconds(10))
        } catch {
            throw SlideError(file: request.file, reason: .isolated(error.description))
        }
        // The helper reads from where the descriptor stands, which a helper before it moved
        // (a duplicate shares the offset): from the start, as a fresh open would.
        lseek(file, 0, SEEK_SET)
        let framing = WireFraming(file: request.file, fit: request.fit, background: request.background, output: request.output,
                                  maxPixels: request.maxPixels)
        let open = VideoJob.OpenJob(framing: framing, slotCount: slotCount, version: VitrineVersion.current)
        switch try ask(helper, .open(open), descriptors: [file, ring.descriptor], limits: limits, file: request.file) {
        case .opened(let info):
            // Checked here, on what the helper read from the file's headers: a helper that lied
            // could only have a video it decodes in its sandbox played.
            if let limit = request.maxVideoBitsPerSecond, let problem = info.bitRateProblem(limit: limit) {
                helper.end()
                throw SlideError(file: request.file, reason: .isolated(problem))
            }
            return (helper, info)
        case .frames, .rewound, .refused:
            helper.end()
            throw SlideError(file: request.file, reason: .isolated("decoding stopped: an answer to another request"))
        }
    }

    /// One request while opening, its refusal or the helper's stop as the slide's error.
    private static func ask(_ helper: HelperProcess, _ job: VideoJob, descriptors: [Int32], limits: HelperLimits,
                            file: String) throws(SlideError) -> VideoReply {
        let reply: VideoReply
        do {
            reply = try VideoReply(decoding: helper.exchange(job.encoded, descriptors: descriptors, deadline: limits.deadline))
        } catch let stop as HelperStop {
            throw SlideError(file: file, reason: .isolated(stop.description))
        } catch {
            throw SlideError(file: file, reason: .isolated("decoding stopped: \(error)"))
        }
        if case .refused(let why) = reply { throw SlideError(file: file, reason: .isolated(why)) }
        return reply
    }

    public var failure: String? { state.withLock { $0.failure } }
    /// The helper's process id (for tests that stop it).
    var helperID: pid_t { state.withLock { $0.helper.process.pid } }
    public var pacing: VideoPacingSummary { state.withLock { $0.pacer.summary } }
    public var shownTime: Duration? { state.withLock { $0.shown?.time } }
    public var played: Duration { state.withLock { state in state.shown.map { $0.time + state.timeline.frameInterval } ?? .zero } }

    public func paceTo(refreshInterval: Duration) {
        state.withLock { state in
            if state.pacer.refreshPeriod != refreshInterval { state.pacer.refreshPeriod = refreshInterval }
        }
    }

    /// Who to wake when a frame the display waited for lands (the frame store).
    public func whenFrameLands(_ wake: @escaping @Sendable () -> Void) {
        state.withLock { $0.wake = wake }
    }

    public func frame(at time: Duration) -> PixelImage {
        let (image, wantsFill) = state.withLock { state -> (PixelImage, Bool) in
            let chosen = choose(at: time, in: &state)
            if chosen.wantsFill { state.filling = true }
            return chosen
        }
        if wantsFill { worker.async { [weak self] in self?.fill() } }
        return image
    }

    public var currentFrame: PixelImage {
        state.withLock { state in state.shown.map { slots[$0.slot] } ?? poster }
    }

    public func frameNow(at time: Duration) -> PixelImage {
        while true {
            let done = state.withLock { state -> Bool in
                // Let go of what is past, so that the ring has room for what comes.
                _ = choose(at: time, in: &state)
                if state.finished || state.failure != nil { return true }
                let half = state.pacer.refreshPeriod / 2
                return state.queue.contains { $0.time >= time + half }
            }
            if done || !worker.sync({ [self] in fill() }) { break }
        }
        return state.withLock { state in choose(at: time, in: &state).image }
    }

    public func nextChange(after time: Duration) -> Duration? {
        state.withLock { state in
            state.queue.first { frame in state.shown.map { frame.time > $0.time } ?? true && frame.time > time }?.time
        }
    }

    /// Under the lock: the frame for `time`, letting go of the frames before
    /// it; whether the worker should decode more.
    private func choose(at time: Duration, in state: inout State) -> (image: PixelImage, wantsFill: Bool) {
        // Asked for a time well before the last one: the slide plays again from its start.
        if let last = state.lastAsked, time + .milliseconds(500) < last {
            restart(&state)
        }
        state.lastAsked = time
        if state.failure != nil, let retryAt = state.retryAt, time >= retryAt {
            // A loop goes on in a fresh helper, its next pass from now.
            state.failure = nil
            state.retryAt = nil
            state.respawnWanted = true
            state.timeline.resume(at: time)
        }
        if let index = state.pacer.choose(from: state.queue.map(\.time), at: time), state.queue[index].slot != state.shown?.slot {
            // The frame that leaves the screen is kept one choice longer: a
            // compose or a plane upload begun with it may still read it.
            for released in state.queue[..<index] where released.slot != state.shown?.slot {
                state.free.append(released.slot)
            }
            if let retired = state.retired { state.free.append(retired) }
            state.retired = state.shown?.slot
            state.queue.removeFirst(index)
            state.shown = state.queue.first
        }
        let hasNext = state.queue.count > 1 || (state.shown == nil && !state.queue.isEmpty)
        if !hasNext && !state.finished && state.failure == nil { state.awaited = true }
        let wantsFill = !state.filling && !state.finished && state.failure == nil && !state.free.isEmpty
        let image = state.shown.map { slots[$0.slot] } ?? poster
        return (image, wantsFill)
    }

    /// Under the lock: every decoded frame is let go, and the video starts
    /// again; after a failure, in a fresh helper.
    private func restart(_ state: inout State) {
        // The frame on screen is kept one choice longer, as when frames follow
        // each other: a compose or a plane upload begun with it may still read it.
        state.free.append(contentsOf: state.queue.map(\.slot).filter { $0 != state.shown?.slot })
        if let retired = state.retired { state.free.append(retired) }
        state.retired = state.shown?.slot
        state.queue.removeAll()
        state.shown = nil
        state.finished = false
        state.failuresInARow = 0
        state.retryAt = nil
        if state.failure != nil {
            state.failure = nil
            state.respawnWanted = true
        }
        state.timeline = VideoLoopTimeline(length: request.videoLength, frameRate: info.frameRate)
        state.pacer = VideoFramePacer(refreshPeriod: state.pacer.refreshPeriod)
        state.playback += 1
        state.rewindWanted = true
    }

    /// On the worker: decodes frames into the free slots, rewinding for a
    /// loop or a new playback, and starting a fresh helper where one is due.
    /// Returns whether it made progress: a frame, the end, or a new pass.
    @discardableResult
    private func fill() -> Bool {
        let (slotsToFill, playback, rewind, respawn, helper) = state.withLock { state in
            state.filling = true
            let slots = state.finished || state.failure != nil ? [] : Array(state.free.prefix(Self.framesPerRequest))
            // A rewind or a fresh helper waits for the fill that has slots to write.
            let rewind = state.rewindWanted && !slots.isEmpty, respawn = state.respawnWanted && !slots.isEmpty
            if !slots.isEmpty {
                state.rewindWanted = false
                state.respawnWanted = false
            }
            return (slots, state.playback, rewind, respawn, state.helper.process)
        }
        defer { state.withLock { $0.filling = false } }
        guard !slotsToFill.isEmpty else { return false }
        do {
            var current = helper
            if respawn || (rewind && isTired(helper)) {
                current = try replace(helper)
            } else if rewind {
                try exchangeRewind(helper)
            }
            let bytes = try current.exchange(VideoJob.fill(slots: slotsToFill).encoded, descriptors: [], deadline: limits.deadline)
            let reply = try VideoReply(decoding: bytes)
            var needsRewind = false
            let (wake, progressed) = state.withLock { state -> ((@Sendable () -> Void)?, Bool) in
                // A new playback began while this fill was under way: its frames are of the old one.
                guard state.playback == playback else { return (nil, true) }
                let queued = state.queue.count
                switch reply {
                case .frames(let frames, let ended):
                    for frame in frames {
                        guard let index = state.free.firstIndex(of: frame.slot) else { continue }
                        guard let time = state.timeline.slideTime(ofFrameAt: frame.timestamp) else {
                            state.finished = true
                            break
                        }
                        state.free.remove(at: index)
                        state.queue.append((frame.slot, time))
                    }
                    if ended && !state.finished {
                        if state.timeline.passEnded() { needsRewind = true } else { state.finished = true }
                    }
                    // A reply with no frame, no end and no new pass would have the display
                    // thread's `frameNow` ask again for ever: the helper is not playing.
                    if state.queue.count == queued && !state.finished && !needsRewind {
                        fail("decoding stopped: the video helper answered with no frame", in: &state)
                    }
                case .refused(let why):
                    fail(why, in: &state)
                case .opened, .rewound:
                    fail("decoding stopped: an answer to another request", in: &state)
                }
                if state.queue.count > queued { state.failuresInARow = 0 }
                let progressed = state.failure == nil
                guard state.awaited || !progressed else { return (nil, progressed) }
                state.awaited = false
                return (state.wake, progressed)
            }
            if needsRewind { state.withLock { $0.rewindWanted = true } }
            wake?()
            return progressed
        } catch {
            let reason = (error as? HelperStop)?.description ?? (error as? SlideError)?.reasonDescription ?? "decoding stopped: \(error)"
            let wake = state.withLock { state -> (@Sendable () -> Void)? in
                // A fill of the playback before a restart: its helper may be gone, but this playback has not failed.
                guard state.playback == playback else {
                    state.respawnWanted = true
                    return nil
                }
                fail(reason, in: &state)
                return state.wake
            }
            wake?()
            return false
        }
    }

    /// Under the lock: the video stops on the frame it shows, saying why; a
    /// looping one goes on in a fresh helper after a pause (`choose`).
    private func fail(_ reason: String, in state: inout State) {
        state.failure = reason
        guard request.videoLength.loops else { return }
        let pause = min(Self.longestRetryPause, Self.firstRetryPause * (1 << min(state.failuresInARow, 10)))
        state.failuresInARow += 1
        state.retryAt = (state.lastAsked ?? .zero) + pause
    }

    /// Whether `helper` has used half its CPU backstop: it is replaced at the next rewind.
    private func isTired(_ helper: HelperProcess) -> Bool {
        helper.cpuTime.map { $0 >= .seconds(limits.cpuSeconds) / 2 } ?? false
    }

    /// On the worker: ends `helper` and opens the video from its start in a fresh one.
    private func replace(_ helper: HelperProcess) throws -> HelperProcess {
        helper.endInBackground()
        let (fresh, reopened) = try Self.startHelper(request: request, file: file, ring: ring, slotCount: slots.count,
                                                     executable: executable, limits: limits)
        guard reopened.size == info.size, reopened.frameRate == info.frameRate else {
            fresh.end()
            throw HelperStop.malformedReply("the video file changed while it played (\(info.size) became \(reopened.size))")
        }
        state.withLock { $0.helper = DrivenHelper(process: fresh) }
        return fresh
    }

    private func exchangeRewind(_ helper: HelperProcess) throws {
        let reply = try VideoReply(decoding: helper.exchange(VideoJob.rewind.encoded, descriptors: [], deadline: limits.deadline))
        guard reply == .rewound else {
            if case .refused(let why) = reply { throw HelperStop.malformedReply(why) }
            throw HelperStop.malformedReply("an answer to another request")
        }
    }
}
