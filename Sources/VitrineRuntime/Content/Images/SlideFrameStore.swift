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
/// depends on the output size and `capacity`, never on the playlist's length:
/// each frame is output-sized, or for a Ken Burns slide finer, up to its
/// closest zoom squared times that and never over
/// `SlideRequest.kenBurnsFramePixelLimit` (64 MiB), so at most `capacity`
/// such frames, the placeholder's output-sized one and the decode scratch
/// (with one recycled frame) are held.
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
    /// decoded whole, or after a Ken Burns slide's finer frame) once no decode is queued.
    public enum ScratchPolicy: Sendable {
        /// Returned to the system: a kiosk decodes a picture or two per page
        /// change and is idle in between, so holding scratch for the next one
        /// would keep a frame's worth of memory for a few milliseconds of page faults.
        case releasedWhenIdle
        /// Kept for the next decode: for runs of decodes (render, benchmarks).
        case keptWarm
    }

    private let lock = Mutex()
    /// The size every frame is decoded for.
    public let outputSize: PixelSize
    private let placeholderRequest: SlideRequest?
    private let capacity: Int
    private let queue = SerialWorker(name: "vitrine decode")
    private let onChange: @Sendable () -> Void
    private let metrics: KioskMetrics?
    private let scratchPolicy: ScratchPolicy
    /// Where pictures are decoded: a sandboxed helper in the kiosk, this process in `render`.
    private let decoder: any SlideDecoder
    private let frameMemory: (any SlideFrameMemorySource)?

    /// What the display thread and the decode queue share: guarded by `lock`.
    private var book: Book

    /// The store's bookkeeping, one value behind the lock.
    private struct Book {
        /// One per playlist slide; a slide's request changes when its URL's download does (`replace`).
        var requests: [SlideRequest]
        var frames: [Int: PixelImage] = [:]
        /// The slides whose pictures are animated (their first frame is in `frames`).
        var animations: [Int: SlideAnimation] = [:]
        /// The slides that are videos (their first frame is in `frames`), each with its helper.
        var videos: [Int: any SlideVideo] = [:]
        /// Slides with frames, least recently used first: eviction starts at the front.
        var recency: [Int] = []
        var failures: [Int: SlideError] = [:]
        var inFlight: Set<Int> = []
        /// What the engine asked for last, nearest first.
        var wanted: [Int] = []
        /// The slides the last drawn scene showed: a video among them is kept
        /// though no longer wanted (a transition that spans pages leaves from one).
        var drawn: Set<Int> = []
        /// Failures not yet taken by `takeNewFailures`.
        var unreported: [(slide: Int?, error: SlideError)] = []
        var placeholderState: State = .absent
        var changeCount = 0
        /// Decodes queued and not finished (the placeholder's included).
        var queuedDecodes = 0
        /// Memory of evicted frames, reused for the next decode so that a page
        /// change does not fault in a fresh frame's worth of pages. At most one is kept.
        var recycled: PixelStorage?
        /// Bumped by `replace`: a decode that began before is of the old file, and is not kept.
        var generations: [Int: Int] = [:]
        /// Frames of a replaced request, shown until the new file's frame is ready.
        var outdated: Set<Int> = []
    }

    /// - Parameters:
    ///   - slides: one request per playlist slide.
    ///   - placeholder: the placeholder picture, decoded while a failed slide or an
    ///     empty carousel could show it.
    ///   - capacity: the most slide frames held at once (the placeholder aside).
    ///   - onChange: called on the decode queue whenever a frame is ready or failed.
    ///   - metrics: where decode times are counted.
    ///   - scratch: what happens to decode scratch once the queue is empty.
    ///   - decoder: where pictures are decoded (`SlideDecoder`).
    ///   - frameMemory: where slides are decoded when the display shows them from
    ///     there (`LayeredDisplay.slideFrameMemory(for:)`); asked before recycled memory.
    public init(slides: [SlideRequest], placeholder: SlideRequest?, capacity: Int, metrics: KioskMetrics? = nil,
                scratch: ScratchPolicy = .releasedWhenIdle, decoder: any SlideDecoder,
                frameMemory: (any SlideFrameMemorySource)? = nil,
                onChange: @escaping @Sendable () -> Void) {
        self.metrics = metrics
        self.decoder = decoder
        self.frameMemory = frameMemory
        self.scratchPolicy = scratch
        self.book = Book(requests: slides)
        self.outputSize = slides.first?.output ?? placeholder?.output ?? PixelSize(width: 0, height: 0)
        self.placeholderRequest = placeholder
        self.capacity = max(capacity, 1)
        self.onChange = onChange
        if placeholder != nil {
            book.placeholderState = .pending
            book.queuedDecodes = 1
            queue.async { self.decodePlaceholder() }
        }
    }

    /// Bumps whenever a frame becomes ready or fails: the display thread redraws
    /// when it changes.
    public var version: Int { lock.withLock { book.changeCount } }

    /// The slides to keep decoded, nearest first; missing ones are queued.
    public func request(_ slides: [Int]) {
        let (toDecode, placeholderToDecode) = lock.withLock { () -> ([Int], Bool) in
            book.wanted = slides.filter { book.requests.indices.contains($0) }
            letGoOfUnwantedVideos()
            let missing = book.wanted.filter { (book.frames[$0] == nil || book.outdated.contains($0)) && book.failures[$0] == nil && !book.inFlight.contains($0) }
            book.inFlight.formUnion(missing)
            book.queuedDecodes += missing.count
            // Every queued decode that brings a frame the store lacks, those of an earlier request included.
            evictAhead(of: book.inFlight.filter { book.frames[$0] == nil }.count)
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
            for (slide, request) in changed where book.requests.indices.contains(slide) {
                book.requests[slide] = request
                book.generations[slide, default: 0] += 1
                book.failures[slide] = nil
                if book.frames[slide] != nil { book.outdated.insert(slide) }
            }
            // One in flight finds its generation changed, and decodes again itself.
            let again = book.wanted.filter { changed[$0] != nil && !book.inFlight.contains($0) }
            book.inFlight.formUnion(again)
            book.queuedDecodes += again.count
            book.changeCount += 1
            return again
        }
        for slide in toDecode { queue.async { self.decode(slide) } }
    }

    /// An operator asked for refused pictures to be tried again: each failed
    /// slide decodes anew when it is next wanted (at once if it is), and so
    /// does a failed placeholder.
    public func retryFailed() {
        let (failed, placeholderToDecode) = lock.withLock { () -> ([Int: SlideRequest], Bool) in
            if case .failed = book.placeholderState { book.placeholderState = .absent }
            return (Dictionary(uniqueKeysWithValues: book.failures.keys.map { ($0, book.requests[$0]) }), updatePlaceholder())
        }
        if placeholderToDecode { queue.async { self.decodePlaceholder() } }
        replace(failed)
    }

    public func state(of slide: Int) -> State {
        lock.withLock {
            if let frame = book.frames[slide] { return .ready(frame) }
            if let failure = book.failures[slide] { return .failed(failure) }
            return book.inFlight.contains(slide) ? .pending : .absent
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
            guard let frame = book.frames[slide] else { return nil }
            touch(slide)
            return frame
        }
    }

    /// The Ken Burns motion of `slide`'s request, whether or not its frame is decoded.
    public func kenBurns(ofSlide slide: Int) -> KenBurnsMotion? {
        lock.withLock { book.requests.indices.contains(slide) ? book.requests[slide].kenBurns : nil }
    }

    /// `.absent` also while no frame could show it (see `updatePlaceholder`).
    public var placeholder: State { lock.withLock { book.placeholderState } }

    public var placeholderFrame: PixelImage? {
        if case .ready(let frame) = placeholder { return frame }
        return nil
    }

    /// Failures not yet reported, each exactly once; `slide` is nil for the placeholder.
    public func takeNewFailures() -> [(slide: Int?, error: SlideError)] {
        lock.withLock {
            defer { book.unreported.removeAll() }
            return book.unreported
        }
    }

    /// How many slide frames are held now (for tests and the memory benchmark).
    public var residentFrameCount: Int { lock.withLock { book.frames.count } }

    /// The animation of `slide`, when its picture is animated and decoded.
    func animation(of slide: Int) -> SlideAnimation? { lock.withLock { book.animations[slide] } }

    /// The video of `slide`, when its file is a video and it is decoded.
    public func video(of slide: Int) -> (any SlideVideo)? { lock.withLock { book.videos[slide] } }

    /// The videos resident now, by slide: for the slide lengths the engine
    /// learns once a video is open, and for the status.
    public var residentVideos: [Int: any SlideVideo] { lock.withLock { book.videos } }

    /// An animation frame was framed: the picture on screen may change.
    private func animationFrameReady() {
        lock.withLock { book.changeCount += 1 }
        onChange()
    }

    /// Blocks until every queued decode has finished (render, tests).
    public func waitUntilIdle() {
        // A decode can queue another (a failed slide queues the placeholder's).
        repeat { queue.sync {} } while lock.withLock { book.queuedDecodes > 0 }
    }

    // MARK: Decode queue

    /// Memory the display scans out, for a request that can use it: a picture
    /// on disk. A video never takes it, and a URL's picture not downloaded yet
    /// fails before it decodes: either would hold a buffer of the card's
    /// memory (CMA on a Pi, where making one is slow) for nothing. Asked on
    /// the decode queue, never the display thread: it reads the file's first bytes.
    private func scanoutMemory(for request: SlideRequest) -> PixelStorage? {
        guard let frameMemory, let path = request.resolvedPath, !VideoFile.isVideo(atPath: path) else { return nil }
        return frameMemory.storage(for: request)
    }

    private func decode(_ slide: Int) {
        defer { finishedQueuedDecode() }
        // A slide that left the wanted window while queued is not worth decoding.
        let stillWanted = lock.withLock {
            if book.wanted.contains(slide) { return true }
            book.inFlight.remove(slide)
            return false
        }
        guard stillWanted else { return }
        let (request, generation) = lock.withLock { (book.requests[slide], book.generations[slide, default: 0]) }
        // Memory the display scans out first (no copy to show it); else a recycled frame's.
        let storage = scanoutMemory(for: request) ?? lock.withLock { () -> PixelStorage? in
            defer { book.recycled = nil }
            return book.recycled
        }
        let started = MonotonicClock.now()
        let result = Result { () throws(SlideError) -> DecodedSlide in
            try decoder.picture(for: request, frameStorage: storage)
        }
        if case .success = result { metrics?.decoded(in: MonotonicClock.now() - started) }
        let (placeholderToDecode, again) = lock.withLock { () -> (Bool, Bool) in
            // Replaced while decoding: this frame is of the old file.
            if book.generations[slide, default: 0] != generation {
                if book.wanted.contains(slide) {
                    book.queuedDecodes += 1
                    return (false, true)
                }
                book.inFlight.remove(slide)
                return (false, false)
            }
            book.inFlight.remove(slide)
            book.outdated.remove(slide)
            switch result {
            case .success(let decoded):
                book.frames[slide] = decoded.frame
                book.animations[slide] = decoded.animation.map { frames in
                    SlideAnimation(frames: frames, request: request, firstFrame: decoded.frame) { [weak self] in
                        self?.animationFrameReady()
                    }
                }
                book.videos[slide] = decoded.video
                decoded.video?.whenFrameLands { [weak self] in self?.animationFrameReady() }
                touch(slide)
                evict()
                // Opened while it left the window: its helper goes now, not at the next request.
                letGoOfUnwantedVideos()
            case .failure(let error):
                book.frames[slide] = nil
                book.animations[slide] = nil
                book.videos[slide] = nil
                book.recency.removeAll { $0 == slide }
                book.failures[slide] = error
                book.unreported.append((slide, error))
            }
            book.changeCount += 1
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
            book.placeholderState = .absent
            return false
        }
        guard stillNeeded else { return }
        let result = Result { () throws(SlideError) -> PixelImage in
            try decoder.frame(for: request)
        }
        lock.withLock {
            switch result {
            case .success(let frame): book.placeholderState = .ready(frame)
            case .failure(let error):
                book.placeholderState = .failed(error)
                book.unreported.append((nil, error))
            }
            book.changeCount += 1
        }
        onChange()
    }

    /// On `queue`, after each queued decode: with nothing more queued, the
    /// scratch goes back to the system (`ScratchPolicy.releasedWhenIdle`).
    /// Buffers of 256 KiB and more are each their own mapping (`MemoryPolicy`),
    /// so freeing them lowers the resident set at once.
    private func finishedQueuedDecode() {
        let idle = lock.withLock { () -> Bool in
            book.queuedDecodes -= 1
            guard book.queuedDecodes == 0, scratchPolicy == .releasedWhenIdle else { return false }
            book.recycled = nil
            return true
        }
        if idle {
            decoder.releaseScratch()
            // libjpeg's smaller pools and the framing's row buffers came from the
            // heap, below the mmap threshold: trimming returns their pages too.
            MemoryPolicy.returnFreedMemory()
        }
    }

    /// Whether the decode worker holds scratch memory now (for tests).
    var holdsScratch: Bool {
        queue.sync { [self] in (decoder as? InProcessSlideDecoder)?.holdsScratch ?? false } || lock.withLock { book.recycled != nil }
    }

    /// Under `lock`: whether a frame could show the placeholder now. A failed
    /// slide shows it, and so does a carousel with no pages (an empty playlist,
    /// or every slide skipped); a slide still decoding shows the background.
    private var placeholderNeeded: Bool {
        placeholderRequest != nil && (book.wanted.isEmpty || book.wanted.contains { book.failures[$0] != nil })
    }

    /// Under `lock`: the placeholder is decoded when something could show it
    /// and let go when nothing can, so a playlist whose pictures all decode does
    /// not hold an output-sized frame it never shows. Returns whether its decode
    /// must be queued.
    private func updatePlaceholder() -> Bool {
        switch book.placeholderState {
        case .absent:
            guard placeholderNeeded else { return false }
            book.placeholderState = .pending
            book.queuedDecodes += 1
            return true
        case .ready:
            // The display thread may still hold the frame for a compose: it goes when that ends.
            if !placeholderNeeded { book.placeholderState = .absent }
            return false
        case .pending, .failed:
            return false
        }
    }

    /// Under `lock`.
    private func touch(_ slide: Int) {
        book.recency.removeAll { $0 == slide }
        book.recency.append(slide)
    }

    /// The slides a scene about to be drawn shows (`drawnScene`).
    func noteDrawn(_ layers: [Scene.Layer]) {
        // Once a frame, at the display's rate: the set keeps its storage, so
        // this allocates nothing after the first frame.
        lock.withLock {
            book.drawn.removeAll(keepingCapacity: true)
            for layer in layers {
                if case .slide(let slide) = layer.content { book.drawn.insert(slide) }
            }
        }
    }

    /// Under `lock`: a video slide that leaves the wanted window, and is not
    /// on screen (the slide a transition leaves may be two pages from the one
    /// it goes to), is let go, poster and helper, and opened again when it is next wanted.
    /// `decode.cacheSlides` may keep up to 64 pictures, but each open video
    /// holds a helper process (FFmpeg's frame threads and reference frames)
    /// and a ring of up to 48 MiB: so the videos open are at most the window's
    /// (the slide on screen and its neighbours), whatever the cache holds,
    /// which is what a 1 GB board has room for. The helper is reaped on
    /// another thread (`SandboxedVideo`'s deinit), never under this lock.
    private func letGoOfUnwantedVideos() {
        for slide in book.videos.keys where !book.wanted.contains(slide) && !book.drawn.contains(slide) {
            _ = forget(slide)
        }
    }

    /// Under `lock`: everything held for `slide` goes (its frame, animation,
    /// video and place in `recency`); the frame is returned, for `evict` to recycle.
    private func forget(_ slide: Int) -> PixelImage? {
        book.animations[slide] = nil
        book.videos[slide] = nil
        book.outdated.remove(slide)
        book.recency.removeAll { $0 == slide }
        return book.frames.removeValue(forKey: slide)
    }

    /// Under `lock`: drops least recently used frames that are not wanted until within capacity.
    private func evict() {
        var index = 0
        while book.frames.count > capacity, index < book.recency.count {
            let candidate = book.recency[index]
            if book.wanted.contains(candidate) {
                index += 1
            } else {
                evictFrame(of: candidate)
            }
        }
    }

    /// Under `lock`, as decodes are queued: makes room for `incoming` new
    /// frames before they are decoded, rather than after, so that a page
    /// change never holds more than `capacity` frames, not even for the
    /// moment between a decode and its eviction (with two outputs paging at
    /// once, that moment was a frame each over the steady figure), and the
    /// new frame is decoded into the memory the old one leaves. A slide the
    /// last drawn scene showed is kept (a transition that spans pages still
    /// draws the slide it leaves); `evict` drops it after the decode if need be.
    private func evictAhead(of incoming: Int) {
        guard incoming > 0 else { return }
        var index = 0
        while book.frames.count + incoming > capacity, index < book.recency.count {
            let candidate = book.recency[index]
            if book.wanted.contains(candidate) || book.drawn.contains(candidate) {
                index += 1
            } else {
                evictFrame(of: candidate)
            }
        }
    }

    /// Under `lock`: `slide`'s frame goes, its memory kept for the next decode when it can be reused.
    private func evictFrame(of slide: Int) {
        var evicted = forget(slide)
        // Only memory nobody else holds can be reused: the display thread may
        // still be compositing from a frame it fetched before the eviction.
        // A scan-out buffer is not reused either: a plane may show it until the next flip.
        if isKnownUniquelyReferenced(&evicted), evicted?.storage.reusableAfterEviction ?? true {
            let storage = evicted?.storage
            evicted = nil
            book.recycled = storage
        }
    }
}
