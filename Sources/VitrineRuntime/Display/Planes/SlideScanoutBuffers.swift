import Logging
import Synchronization
import VitrineCore
import VitrineDRM

/// Slides' decoded frames copied into buffers a plane can scan out, within a
/// memory budget: what the planes path shows a slide from.
///
/// A frame is copied once, on a worker thread of its own, the first time a
/// frame on the planes wants it (`buffer(for:)` answers nil meanwhile, and the
/// planner composes that slide on the CPU): the display thread never waits
/// for a copy, which is 33 MB for a 4K slide. The copy only writes the buffer,
/// which may be write-combined memory (CMA on a Raspberry Pi).
///
/// The budget (`output.planeMemory`) bounds the buffers held and being made.
/// A new one first frees the least recently used ones that no plane shows; one
/// that still does not fit is refused, and the log says so once. A buffer
/// whose frame the slide store has let go is dropped at the next frame.
///
/// Generic over the buffer, so that the budget is tested with buffers in
/// memory; the kiosk's are `DRMLayerBuffer`s (`uploading(to:budgetBytes:logger:)`).
///
/// The display thread owns every buffer once made. A buffer a plane shows is
/// also held by `PlanePresenter` until a flip takes it off the screen, so a
/// buffer dropped here is freed (`drmModeRmFB`, which would switch its plane
/// off) only once no plane shows it.
final class SlideScanoutBuffers<Buffer: ScanoutBuffer> {
    /// Makes a buffer holding a frame's pixels, on the worker thread.
    typealias Make = @Sendable (PixelImage) throws(DRMError) -> Buffer

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
    private let budgetBytes: Int
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

    init(budgetBytes: Int, logger: Logger, make: @escaping Make) {
        self.make = make
        self.budgetBytes = budgetBytes
        self.logger = logger
    }

    /// The bytes of the buffers held and being made.
    var bytesInUse: Int { entries.values.reduce(0) { $0 + Self.bytes(of: $1.buffer.size) } + uploading.values.reduce(0, +) }
    var count: Int { entries.count }

    /// The buffer holding `frame`, or nil while it is being copied (the copy
    /// is started if it fits the budget). `shown`: the framebuffers the planes
    /// show or are about to, which are not dropped to make room (their memory
    /// would not come back until the next flip).
    func buffer(for frame: PixelImage, shown: Set<UInt32>) -> Buffer? {
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
                logger.warning("a \(frame.size) slide does not fit the planes' buffers (output.planeMemory \(budgetBytes >> 20) MiB, \(bytesInUse >> 20) MiB held by slides on screen): such slides are composed on the CPU")
            }
            return nil
        }
        uploading[key] = needed
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
    }

    /// Drops every buffer (the display was set up at another size, or the planes path stops).
    func removeAll() { entries.removeAll() }

    /// Frees the least recently used buffers no plane shows until `bytes` more fit the budget.
    private func makeRoom(for bytes: Int, shown: Set<UInt32>) -> Bool {
        guard bytes <= budgetBytes else { return false }
        var held = bytesInUse
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
    /// Slides copied into dumb buffers of `card` (XRGB8888), written in order and never read back.
    static func uploading(to card: DRMCard, budgetBytes: Int, logger: Logger) -> SlideScanoutBuffers<DRMLayerBuffer> {
        let reference = CardReference(card: card)
        return SlideScanoutBuffers(budgetBytes: budgetBytes, logger: logger) { frame throws(DRMError) in
            let buffer = try DRMLayerBuffer(card: reference.card, size: frame.size, format: .xrgb8888)
            buffer.canvas.copyPixels(from: frame.canvas)
            return buffer
        }
    }
}
