import Dispatch
import VitrineCore
import VitrineJPEG

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

    private let lock = Mutex()
    private let requests: [SlideRequest]
    /// The size every frame is decoded for.
    public let outputSize: PixelSize
    private let placeholderRequest: SlideRequest?
    private let capacity: Int
    private let queue = DispatchQueue(label: "vitrine.decode", qos: .userInitiated)
    private let onChange: @Sendable () -> Void
    private let metrics: KioskMetrics?
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
    /// Memory of evicted frames, reused for the next decode so that a page
    /// change does not fault in a fresh frame's worth of pages. At most one is kept.
    private var recycled: PixelStorage?

    /// - Parameters:
    ///   - slides: one request per playlist slide.
    ///   - placeholder: the placeholder picture, decoded first and kept.
    ///   - capacity: the most slide frames held at once (the placeholder aside).
    ///   - onChange: called on the decode queue whenever a frame is ready or failed.
    ///   - metrics: where decode times are counted.
    public init(slides: [SlideRequest], placeholder: SlideRequest?, capacity: Int, metrics: KioskMetrics? = nil,
                onChange: @escaping @Sendable () -> Void) {
        self.metrics = metrics
        self.requests = slides
        self.outputSize = slides.first?.output ?? placeholder?.output ?? PixelSize(width: 0, height: 0)
        self.placeholderRequest = placeholder
        self.capacity = max(capacity, 1)
        self.onChange = onChange
        if placeholder != nil {
            placeholderState = .pending
            queue.async { self.decodePlaceholder() }
        }
    }

    /// Bumps whenever a frame becomes ready or fails: the display thread redraws
    /// when it changes.
    public var version: Int { lock.withLock { changeCount } }

    /// The slides to keep decoded, nearest first; missing ones are queued.
    public func request(_ slides: [Int]) {
        let toDecode: [Int] = lock.withLock {
            wanted = slides.filter { requests.indices.contains($0) }
            let missing = wanted.filter { frames[$0] == nil && failures[$0] == nil && !inFlight.contains($0) }
            inFlight.formUnion(missing)
            return missing
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
    public func waitUntilIdle() { queue.sync {} }

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
        let started = MonotonicClock.now()
        let result = Result { () throws(SlideError) -> PixelImage in
            try SlideDecoding.frame(for: requests[slide], workspace: try workspaceOnQueue(), frameStorage: storage)
        }
        if case .success = result { metrics?.decoded(in: MonotonicClock.now() - started) }
        lock.withLock {
            inFlight.remove(slide)
            switch result {
            case .success(let frame):
                frames[slide] = frame
                touch(slide)
                evict()
            case .failure(let error):
                failures[slide] = error
                unreported.append((slide, error))
            }
            changeCount += 1
        }
        onChange()
    }

    private func decodePlaceholder() {
        guard let request = placeholderRequest else { return }
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
