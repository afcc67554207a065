import Dispatch
import VitrineCore
import VitrineJPEG
import VitrineSystem

/// Decoded slide frames: decoded on a background queue, handed to the display
/// thread, and bounded in number.
///
/// The display thread says which slides it wants next (`request`), nearest
/// first; the store decodes the missing ones one at a time off the display
/// thread, wakes it when one is ready, and keeps at most `capacity` frames,
/// evicting the least recently shown that is not wanted. Memory therefore
/// depends on the output size and `capacity`, never on the playlist's length.
public final class SlideFrameStore: @unchecked Sendable {
    public enum State: Sendable {
        case absent
        case pending
        case ready(PixelImage)
        case failed(SlideError)
    }

    /// What the decode worker does with its scratch memory (the decoder's
    /// buffers, the read buffer, the strip and ring of rows, and one recycled
    /// frame: about 8.5 MiB at 1080p, more after a picture EXIF turns, which is
    /// decoded whole) once no decode is queued.
    public enum ScratchPolicy: Sendable {
        /// Returned to the system: a kiosk decodes a picture or two per page
        /// change and is idle in between, so holding scratch for the next one
        /// would keep a frame's worth of memory for a few milliseconds of page faults.
        case releasedWhenIdle
        /// Kept for the next decode: for runs of decodes (render, benchmarks).
        case keptWarm
    }

    private let lock = Mutex()
    /// Guarded by `lock`: a slide's request changes when its URL's download does (`replace`).
    private var requests: [SlideRequest]
    /// The size every frame is decoded for.
    public let outputSize: PixelSize
    private let placeholderRequest: SlideRequest?
    private let capacity: Int
    private let queue = DispatchQueue(label: "vitrine.decode", qos: .userInitiated)
    private let onChange: @Sendable () -> Void
    private let metrics: KioskMetrics?
    private let scratchPolicy: ScratchPolicy
    /// Used only on `queue`, which is serial: TurboJPEG handles are single-threaded.
    nonisolated(unsafe) private var workspace: SlideDecodingWorkspace?

    // Guarded by `lock`.
    private var frames: [Int: PixelImage] = [:]
    private var recency: [Int] = []
    private var failures: [Int: SlideError] = [:]
    private var inFlight: Set<Int> = []
    private var wanted: [Int] = []
    private var unreported: [(slide: Int?, error: SlideError)] = []
    private var placeholderState: State = .absent
    private var changeCount = 0
    /// Decodes queued and not finished (the placeholder's included).
    private var queuedDecodes = 0
    /// Memory of evicted frames, reused for the next decode so that a page
    /// change does not fault in a fresh frame's worth of pages. At most one is kept.
    private var recycled: PixelStorage?
    /// Bumped by `replace`: a decode that began before is of the old file, and is not kept.
    private var generations: [Int: Int] = [:]
    /// Frames of a replaced request, shown until the new file's frame is ready.
    private var outdated: Set<Int> = []

    /// - Parameters:
    ///   - slides: one request per playlist slide.
    ///   - placeholder: the placeholder picture, decoded while a failed slide or an
    ///     empty carousel could show it.
    ///   - capacity: the most slide frames held at once (the placeholder aside).
    ///   - onChange: called on the decode queue whenever a frame is ready or failed.
    ///   - metrics: where decode times are counted.
    ///   - scratch: what happens to decode scratch once the queue is empty.
    public init(slides: [SlideRequest], placeholder: SlideRequest?, capacity: Int, metrics: KioskMetrics? = nil,
                scratch: ScratchPolicy = .releasedWhenIdle, onChange: @escaping @Sendable () -> Void) {
        self.metrics = metrics
        self.scratchPolicy = scratch
        self.requests = slides
        self.outputSize = slides.first?.output ?? placeholder?.output ?? PixelSize(width: 0, height: 0)
        self.placeholderRequest = placeholder
        self.capacity = max(capacity, 1)
        self.onChange = onChange
        if placeholder != nil {
            placeholderState = .pending
            queuedDecodes = 1
            queue.async { self.decodePlaceholder() }
        }
    }

    /// Bumps whenever a frame becomes ready or fails: the display thread redraws
    /// when it changes.
    public var version: Int { lock.withLock { changeCount } }

    /// The slides to keep decoded, nearest first; missing ones are queued.
    public func request(_ slides: [Int]) {
        let (toDecode, placeholderToDecode) = lock.withLock { () -> ([Int], Bool) in
            wanted = slides.filter { requests.indices.contains($0) }
            let missing = wanted.filter { (frames[$0] == nil || outdated.contains($0)) && failures[$0] == nil && !inFlight.contains($0) }
            inFlight.formUnion(missing)
            queuedDecodes += missing.count
            return (missing, updatePlaceholder())
        }
        if placeholderToDecode { queue.async { self.decodePlaceholder() } }
        for slide in toDecode { queue.async { self.decode(slide) } }
    }

    /// New requests for some slides (their URL's downloaded copy changed). The
    /// frame each had stays on show until the new file's frame is ready, so the
    /// picture changes in place without a blank frame; wanted ones decode again
    /// at once, the others when next requested. Slides not named are untouched.
    public func replace(_ changed: [Int: SlideRequest]) {
        let toDecode = lock.withLock { () -> [Int] in
            for (slide, request) in changed where requests.indices.contains(slide) {
                requests[slide] = request
                generations[slide, default: 0] += 1
                failures[slide] = nil
                if frames[slide] != nil { outdated.insert(slide) }
            }
            // One in flight finds its generation changed, and decodes again itself.
            let again = wanted.filter { changed[$0] != nil && !inFlight.contains($0) }
            inFlight.formUnion(again)
            queuedDecodes += again.count
            changeCount += 1
            return again
        }
        for slide in toDecode { queue.async { self.decode(slide) } }
    }

    public func state(of slide: Int) -> State {
        lock.withLock {
            if let frame = frames[slide] { return .ready(frame) }
            if let failure = failures[slide] { return .failed(failure) }
            return inFlight.contains(slide) ? .pending : .absent
        }
    }

    /// Ready or failed: nothing more will come for this slide.
    public func isSettled(_ slide: Int) -> Bool {
        switch state(of: slide) {
        case .ready, .failed: return true
        case .absent, .pending: return false
        }
    }

    /// The frame for `slide`, marking it recently used.
    public func frame(of slide: Int) -> PixelImage? {
        lock.withLock {
            guard let frame = frames[slide] else { return nil }
            touch(slide)
            return frame
        }
    }

    /// `.absent` also while no frame could show it (see `updatePlaceholder`).
    public var placeholder: State { lock.withLock { placeholderState } }

    public var placeholderFrame: PixelImage? {
        if case .ready(let frame) = placeholder { return frame }
        return nil
    }

    /// Failures not yet reported, each exactly once; `slide` is nil for the placeholder.
    public func takeNewFailures() -> [(slide: Int?, error: SlideError)] {
        lock.withLock {
            defer { unreported.removeAll() }
            return unreported
        }
    }

    /// How many slide frames are held now (for tests and the memory benchmark).
    public var residentFrameCount: Int { lock.withLock { frames.count } }

    /// Blocks until every queued decode has finished (render, tests).
    public func waitUntilIdle() {
        // A decode can queue another (a failed slide queues the placeholder's).
        repeat { queue.sync {} } while lock.withLock { queuedDecodes > 0 }
    }

    // MARK: Decode queue

    private func workspaceOnQueue() throws(SlideError) -> SlideDecodingWorkspace {
        if let workspace { return workspace }
        do {
            let made = try SlideDecodingWorkspace()
            workspace = made
            return made
        } catch {
            throw SlideError(file: "(decoder)", reason: .decode(error))
        }
    }

    private func decode(_ slide: Int) {
        defer { finishedQueuedDecode() }
        // A slide that left the wanted window while queued is not worth decoding.
        let stillWanted = lock.withLock {
            if wanted.contains(slide) { return true }
            inFlight.remove(slide)
            return false
        }
        guard stillWanted else { return }
        let storage = lock.withLock { () -> PixelStorage? in
            defer { recycled = nil }
            return recycled
        }
        let (request, generation) = lock.withLock { (requests[slide], generations[slide, default: 0]) }
        let started = MonotonicClock.now()
        let result = Result { () throws(SlideError) -> PixelImage in
            try SlideDecoding.frame(for: request, workspace: try workspaceOnQueue(), frameStorage: storage)
        }
        if case .success = result { metrics?.decoded(in: MonotonicClock.now() - started) }
        let (placeholderToDecode, again) = lock.withLock { () -> (Bool, Bool) in
            // Replaced while decoding: this frame is of the old file.
            if generations[slide, default: 0] != generation {
                if wanted.contains(slide) {
                    queuedDecodes += 1
                    return (false, true)
                }
                inFlight.remove(slide)
                return (false, false)
            }
            inFlight.remove(slide)
            outdated.remove(slide)
            switch result {
            case .success(let frame):
                frames[slide] = frame
                touch(slide)
                evict()
            case .failure(let error):
                frames[slide] = nil
                recency.removeAll { $0 == slide }
                failures[slide] = error
                unreported.append((slide, error))
            }
            changeCount += 1
            return (updatePlaceholder(), false)
        }
        if again {
            queue.async { self.decode(slide) }
            return
        }
        if placeholderToDecode { queue.async { self.decodePlaceholder() } }
        onChange()
    }

    private func decodePlaceholder() {
        defer { finishedQueuedDecode() }
        guard let request = placeholderRequest else { return }
        // Queued while a slide had failed, or before the first request: not worth
        // decoding if nothing needs it any more.
        let stillNeeded = lock.withLock {
            if placeholderNeeded { return true }
            placeholderState = .absent
            return false
        }
        guard stillNeeded else { return }
        let result = Result { () throws(SlideError) -> PixelImage in
            try SlideDecoding.frame(for: request, workspace: try workspaceOnQueue())
        }
        lock.withLock {
            switch result {
            case .success(let frame): placeholderState = .ready(frame)
            case .failure(let error):
                placeholderState = .failed(error)
                unreported.append((nil, error))
            }
            changeCount += 1
        }
        onChange()
    }

    /// On `queue`, after each queued decode: with nothing more queued, the
    /// scratch goes back to the system (`ScratchPolicy.releasedWhenIdle`).
    /// Buffers of 256 KiB and more are each their own mapping (`MemoryPolicy`),
    /// so freeing them lowers the resident set at once.
    private func finishedQueuedDecode() {
        let idle = lock.withLock { () -> Bool in
            queuedDecodes -= 1
            guard queuedDecodes == 0, scratchPolicy == .releasedWhenIdle else { return false }
            recycled = nil
            return true
        }
        if idle {
            workspace = nil
            // libjpeg's smaller pools and the framing's row buffers came from the
            // heap, below the mmap threshold: trimming returns their pages too.
            MemoryPolicy.returnFreedMemory()
        }
    }

    /// Whether the decode worker holds scratch memory now (for tests).
    var holdsScratch: Bool { queue.sync { workspace != nil } || lock.withLock { recycled != nil } }

    /// Under `lock`: whether a frame could show the placeholder now. A failed
    /// slide shows it, and so does a carousel with no pages (an empty playlist,
    /// or every slide skipped); a slide still decoding shows the background.
    private var placeholderNeeded: Bool {
        placeholderRequest != nil && (wanted.isEmpty || wanted.contains { failures[$0] != nil })
    }

    /// Under `lock`: the placeholder is decoded when something could show it
    /// and let go when nothing can, so a playlist whose pictures all decode does
    /// not hold an output-sized frame it never shows. Returns whether its decode
    /// must be queued.
    private func updatePlaceholder() -> Bool {
        switch placeholderState {
        case .absent:
            guard placeholderNeeded else { return false }
            placeholderState = .pending
            queuedDecodes += 1
            return true
        case .ready:
            // The display thread may still hold the frame for a compose: it goes when that ends.
            if !placeholderNeeded { placeholderState = .absent }
            return false
        case .pending, .failed:
            return false
        }
    }

    /// Under `lock`.
    private func touch(_ slide: Int) {
        recency.removeAll { $0 == slide }
        recency.append(slide)
    }

    /// Under `lock`: drops least recently used frames that are not wanted until within capacity.
    private func evict() {
        var index = 0
        while frames.count > capacity, index < recency.count {
            let candidate = recency[index]
            if wanted.contains(candidate) {
                index += 1
            } else {
                var evicted = frames.removeValue(forKey: candidate)
                recency.remove(at: index)
                // Only memory nobody else holds can be reused: the display thread may
                // still be compositing from a frame it fetched before the eviction.
                if isKnownUniquelyReferenced(&evicted) {
                    let storage = evicted?.storage
                    evicted = nil
                    recycled = storage
                }
            }
        }
    }
}
