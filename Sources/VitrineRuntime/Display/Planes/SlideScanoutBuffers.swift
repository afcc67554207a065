import Logging
import Synchronization
import VitrineCore
import VitrineDRM

/// The buffers a plane shows slides from, within a memory budget: the one a
/// slide was decoded into (`ScanoutSlideMemory`), or else a copy of the
/// slide's decoded frame.
///
/// A slide decoded into a scan-out buffer is shown from it as it is
/// (`direct`). The rest are copied: a frame is copied once, on a worker
/// thread of its own, the first time a frame on the planes wants it
/// (`buffer(for:)` answers nil meanwhile, and the planner composes that slide
/// on the CPU): the display thread never waits for a copy, which is 33 MB for
/// a 4K slide. The copy only writes the buffer, which may be write-combined
/// memory (CMA on a Raspberry Pi).
///
/// The budget (`output.planeMemory`, shared with the slides decoded into
/// scan-out buffers: `ScanoutMemoryBudget`) bounds the copies held and being
/// made. A new one first frees the least recently used copies that no plane
/// shows; one that still does not fit is refused, and the log says so once. A
/// copy whose frame the slide store has let go is dropped at the next frame.
///
/// Generic over the buffer, so that the budget is tested with buffers in
/// memory; the kiosk's are `DRMLayerBuffer`s (`uploading(to:budget:logger:)`).
///
/// The display thread owns every copy once made. A buffer a plane shows is
/// also held by `PlanePresenter` until a flip takes it off the screen, so a
/// buffer dropped here is freed (`drmModeRmFB`, which would switch its plane
/// off) only once no plane shows it.
final class SlideScanoutBuffers<Buffer: ScanoutBuffer> {
    /// Makes a buffer holding a frame's pixels, on the worker thread.
    typealias Make = @Sendable (PixelImage) throws(DRMError) -> Buffer
    /// The buffer `frame` was decoded into, when a plane can show it as it is.
    typealias Direct = (PixelImage) -> (buffer: Buffer, firstTime: Bool)?

    private struct Entry {
        /// Weak: the slide store decides how long a frame lives; a buffer outlives it only while shown.
        weak var frame: PixelImage?
        var buffer: Buffer
        var lastUsed: Int
    }

    /// What a finished upload hands back to the display thread: the buffer
    /// was made on the worker and is the display thread's from here on.
    private struct Finished: @unchecked Sendable {
        var key: ObjectIdentifier
        var frame: PixelImage
        var result: Result<Buffer, DRMError>
    }

    private let make: Make
    private let direct: Direct
    private let budget: ScanoutMemoryBudget
    private var budgetBytes: Int { budget.limitBytes }
    private let logger: Logger
    private let worker = SerialWorker(name: "vitrine scanout uploads")
    /// The worker's finished uploads, taken by the display thread.
    private final class Outbox: Sendable {
        let uploads = Synchronization.Mutex<[Finished]>([])
    }
    private let finished = Outbox()
    private var entries: [ObjectIdentifier: Entry] = [:]
    /// Uploads queued or running, with the bytes each reserved against the budget.
    private var uploading: [ObjectIdentifier: Int] = [:]
    /// Frames whose buffer could not be made (CMA short, a size the driver refuses): not tried
    /// again while they live, so that a failure costs one attempt, not one a frame.
    private var failed: [ObjectIdentifier: Weak] = [:]
    private struct Weak { weak var frame: PixelImage? }
    private var useCount = 0
    private var refusalLogged = false
    /// Slides shown from the buffer they were decoded into, and slides copied into one, since the start.
    private(set) var counts = (direct: 0, copied: 0)

    init(budget: ScanoutMemoryBudget, logger: Logger, direct: @escaping Direct = { _ in nil }, make: @escaping Make) {
        self.make = make
        self.direct = direct
        self.budget = budget
        self.logger = logger
    }

    /// The bytes of the copies held and being made.
    var bytesInUse: Int { entries.values.reduce(0) { $0 + Self.bytes(of: $1.buffer.size) } + uploading.values.reduce(0, +) }
    var count: Int { entries.count }

    /// Tells the shared budget what the copies hold now.
    private func publish() { budget.setCopies(bytesInUse) }

    /// The buffer holding `frame`, or nil while it is being copied (the copy
    /// is started if it fits the budget). `shown`: the framebuffers the planes
    /// show or are about to, which are not dropped to make room (their memory
    /// would not come back until the next flip).
    func buffer(for frame: PixelImage, shown: Set<UInt32>) -> Buffer? {
        if let decodedInto = direct(frame) {
            if decodedInto.firstTime { counts.direct += 1 }
            return decodedInto.buffer
        }
        let key = ObjectIdentifier(frame)
        useCount += 1
        if let entry = entries[key], entry.frame === frame {
            entries[key]?.lastUsed = useCount
            return entry.buffer
        }
        guard uploading[key] == nil, failed[key]?.frame !== frame else { return nil }
        let needed = Self.bytes(of: frame.size)
        guard makeRoom(for: needed, shown: shown) else {
            if !refusalLogged {
                refusalLogged = true
                logger.warning("a \(frame.size) slide does not fit the planes' buffers (output.planeMemory \(budgetBytes >> 20) MiB, \((bytesInUse + budget.directBytes) >> 20) MiB held by slides): such slides are composed on the CPU")
            }
            return nil
        }
        uploading[key] = needed
        counts.copied += 1
        publish()
        let make = self.make, finished = self.finished
        worker.async {
            let result = Result { () throws(DRMError) -> Buffer in try make(frame) }
            finished.uploads.withLock { $0.append(Finished(key: key, frame: frame, result: result)) }
        }
        return nil
    }

    /// Takes the finished uploads in, and drops the buffers whose frames are
    /// gone. Call it on the display thread before a frame.
    func collect() {
        for upload in finished.uploads.withLock({ list in defer { list.removeAll() }; return list }) {
            uploading[upload.key] = nil
            switch upload.result {
            case .success(let buffer):
                entries[upload.key] = Entry(frame: upload.frame, buffer: buffer, lastUsed: useCount)
            case .failure(let error):
                failed[upload.key] = Weak(frame: upload.frame)
                if !refusalLogged {
                    refusalLogged = true
                    logger.warning("cannot make a scan-out buffer for a \(upload.frame.size) slide (\(error)): such slides are composed on the CPU")
                }
            }
        }
        entries = entries.filter { $0.value.frame != nil }
        failed = failed.filter { $0.value.frame != nil }
        publish()
    }

    /// Drops every copy (the display was set up at another size, or the planes path stops).
    func removeAll() {
        entries.removeAll()
        publish()
    }

    /// Frees the least recently used copies no plane shows until `bytes` more fit the budget
    /// beside them and the slides decoded into scan-out buffers.
    private func makeRoom(for bytes: Int, shown: Set<UInt32>) -> Bool {
        guard bytes <= budgetBytes else { return false }
        defer { publish() }
        var held = bytesInUse + budget.directBytes
        for (key, entry) in entries.sorted(by: { $0.value.lastUsed < $1.value.lastUsed }) where held + bytes > budgetBytes {
            guard !shown.contains(entry.buffer.framebufferID) else { continue }
            held -= Self.bytes(of: entry.buffer.size)
            entries[key] = nil
        }
        return held + bytes <= budgetBytes
    }

    static func bytes(of size: PixelSize) -> Int { size.pixelCount * 4 }
}

/// A buffer a plane scans out, as `SlideScanoutBuffers` keeps it.
protocol ScanoutBuffer: AnyObject, SendableMetatype {
    var framebufferID: UInt32 { get }
    var size: PixelSize { get }
}

extension DRMLayerBuffer: ScanoutBuffer {}

/// The card, for the upload worker: DRM ioctls may be made from any thread (the kernel locks per object).
private struct CardReference: @unchecked Sendable { let card: DRMCard }

extension SlideScanoutBuffers where Buffer == DRMLayerBuffer {
    /// Slides shown from the scan-out buffers they were decoded into, the rest
    /// copied into dumb buffers of `card` (XRGB8888), written in order and never read back.
    static func uploading(to card: DRMCard, budget: ScanoutMemoryBudget, logger: Logger) -> SlideScanoutBuffers<DRMLayerBuffer> {
        let reference = CardReference(card: card)
        let direct: Direct = { frame in
            ScanoutSlideMemory.buffer(of: frame).map { memory in (memory.buffer, memory.noteShown()) }
        }
        return SlideScanoutBuffers(budget: budget, logger: logger, direct: direct) { frame throws(DRMError) in
            let buffer = try DRMLayerBuffer(card: reference.card, size: frame.size, format: .xrgb8888)
            buffer.canvas.copyPixels(from: frame.canvas)
            return buffer
        }
    }
}
