import VitrineCore

/// An animated slide on its way to the screen: its stored frames, and the few
/// of them framed at the output's size, made ahead on a queue of their own.
///
/// The display thread asks for the frame its playback shows (`frame(_:)`)
/// and never frames one itself: framing a stored frame (scaling it into the
/// output with the slide's fit) takes a few milliseconds at 1080p, which a
/// turn of the display loop must not spend. While the frame shown is on
/// screen, the next one is framed; if it is not ready when its time comes, the
/// frame before stays a little longer, and the animation queue's `onReady`
/// wakes the loop to draw it. At most `keptFramed` output frames exist at once.
final class SlideAnimation: @unchecked Sendable {
    let timeline: AnimationTimeline
    private let frames: AnimatedFrames
    private let request: SlideRequest
    /// The first frame, framed: the slide's still, which the store already holds.
    private let firstFrame: PixelImage
    private let onReady: @Sendable () -> Void
    private let lock = Mutex()
    /// Guarded by `lock`.
    private var framed: [Int: PixelImage] = [:]
    private var inFlight: Set<Int> = []
    private var lastShown = 0
    /// A frame the display asked for before it was framed: its completion must
    /// wake the loop. A frame framed ahead does not, or every frame would be
    /// presented twice.
    private var awaited: Int?
    /// Output frames no longer kept, reused once nothing else holds them.
    private var spares: [PixelImage] = []
    /// Used only on `queue`.
    nonisolated(unsafe) private var scratch = FramingScratch()

    /// The frame shown and the one after it.
    static let keptFramed = 2

    /// Framing for every animated slide: serial, and apart from the decode
    /// queue, so that a long decode never holds up the next animation frame.
    private static let queue = SerialWorker(name: "vitrine animation")

    init(frames: AnimatedFrames, request: SlideRequest, firstFrame: PixelImage, onReady: @escaping @Sendable () -> Void) {
        self.frames = frames
        self.timeline = frames.timeline
        self.request = request
        self.firstFrame = firstFrame
        self.onReady = onReady
    }

    /// The memory the stored frames take (the framed ones aside).
    var storedBytes: Int { frames.byteCount }

    /// The output-sized frame `index`, or, while it is being framed, the frame
    /// shown last (`onReady` then says when it is framed); asks for the frame
    /// after it to be framed next.
    func frame(_ index: Int) -> PixelImage {
        let count = timeline.frameCount
        let index = min(max(index, 0), count - 1)
        let (result, toFrame) = lock.withLock { () -> (PixelImage, [Int]) in
            var wanted = [index, (index + 1) % count]
            let shown: PixelImage
            if index == 0 {
                shown = firstFrame
                lastShown = 0
            } else if let ready = framed[index] {
                shown = ready
                lastShown = index
            } else {
                shown = lastShown == 0 ? firstFrame : framed[lastShown] ?? firstFrame
                wanted.append(lastShown)
                awaited = index
            }
            // Let go of framed frames nobody will show soon.
            for (kept, image) in framed where !wanted.contains(kept) {
                framed[kept] = nil
                spares.append(image)
            }
            let missing = wanted.prefix(2).filter { $0 != 0 && framed[$0] == nil && !inFlight.contains($0) }
            inFlight.formUnion(missing)
            return (shown, Array(missing))
        }
        for next in toFrame { Self.queue.async { self.make(next) } }
        return result
    }

    /// The output-sized frame `index`, framed now on the calling thread if it is
    /// not framed already: for `vitrine render`, never for the display thread.
    func frameNow(_ index: Int) -> PixelImage {
        let index = min(max(index, 0), timeline.frameCount - 1)
        if index == 0 { return firstFrame }
        if let ready = lock.withLock({ framed[index] }) { return ready }
        let image = PixelImage(size: firstFrame.size)
        SlideFramer.frame(decoded: frames.frames[index], orientation: frames.orientation, fit: request.fit,
                          background: request.background, into: image.canvas)
        return image
    }

    /// On `queue`: frames stored frame `index` into an output frame.
    private func make(_ index: Int) {
        let target = lock.withLock { () -> PixelImage? in
            // Reuse a let-go frame that no compose holds any more.
            guard let spare = spares.indices.first(where: { isKnownUniquelyReferenced(&spares[$0]) }) else { return nil }
            return spares.remove(at: spare)
        } ?? PixelImage(size: firstFrame.size)
        SlideFramer.frame(decoded: frames.frames[index], orientation: frames.orientation, fit: request.fit,
                          background: request.background, into: target.canvas, scratch: scratch)
        let wake = lock.withLock { () -> Bool in
            inFlight.remove(index)
            framed[index] = target
            // At most the frames kept and one spare: the rest go back to the system.
            if spares.count > 1 { spares.removeFirst(spares.count - 1) }
            guard awaited == index else { return false }
            awaited = nil
            return true
        }
        if wake { onReady() }
    }

    /// How many output frames are framed now (for tests).
    var framedCount: Int { lock.withLock { framed.count } }
}
