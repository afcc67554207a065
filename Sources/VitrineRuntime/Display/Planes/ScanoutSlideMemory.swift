import Synchronization
import VitrineCore
import VitrineDRM

/// A slide's frame decoded straight into a buffer a plane scans out: a dumb
/// buffer, its framebuffer object and its mapping (`DRMLayerBuffer`), with the
/// DMA-BUF the decoding helper maps to write it (`DMABufDescriptor`). The
/// slide store holds it as its frame's memory, and the planes show it as it
/// is: no copy, and no second frame's worth of memory.
///
/// It is never reused for another frame (`reusableAfterEviction`): a plane
/// may show it until a flip takes it off the screen, and `PlanePresenter`
/// holds the buffer until then, so memory written for a new slide would be
/// seen early. Its share of `output.planeMemory` is given back when it goes.
final class ScanoutSlideMemory: SharedFrameMemory, @unchecked Sendable {
    let buffer: DRMLayerBuffer
    private let dmaBuf: DMABufDescriptor
    private let budget: ScanoutMemoryBudget
    private let reservedBytes: Int
    /// Set the first time a plane shows it: what the exit log counts.
    private let shownOnce = Atomic<Bool>(false)

    /// Tells the source that made it that a helper could not use it.
    private let unusable: @Sendable (String) -> Void

    init(buffer: DRMLayerBuffer, dmaBuf: DMABufDescriptor, budget: ScanoutMemoryBudget, reservedBytes: Int,
         unusable: @escaping @Sendable (String) -> Void = { _ in }) {
        self.buffer = buffer
        self.dmaBuf = dmaBuf
        self.budget = budget
        self.reservedBytes = reservedBytes
        self.unusable = unusable
    }

    func helperCouldNotUse(_ why: String) { unusable("a decoding helper could not write one: \(why)") }

    deinit { budget.releaseDirect(reservedBytes) }

    var descriptor: Int32 { dmaBuf.descriptor }
    /// The buffer's pitch times its height (the mapping's length); the DMA-BUF's own size, which
    /// the helper's `fstat` reports, is that rounded up to a page.
    var byteCount: Int { buffer.length }
    var reusableAfterEviction: Bool { false }

    func beginWrites() -> Bool {
        do {
            try dmaBuf.beginWrites()
            return true
        } catch {
            return false
        }
    }

    func endWrites() { try? dmaBuf.endWrites() }

    /// The frame's memory, from the buffer's first pixel; the storage keeps this alive.
    func storage() -> PixelStorage {
        PixelStorage(borrowing: UnsafeMutableRawPointer(buffer.canvas.base), byteCount: buffer.length, owner: self)
    }

    /// Whether this is the first time it is shown (once true, always false after).
    func noteShown() -> Bool {
        !shownOnce.exchange(true, ordering: .relaxed)
    }

    /// The scan-out buffer `frame` was decoded into, when it was decoded into
    /// one of these at its full size; nil for a frame in ordinary memory.
    static func buffer(of frame: PixelImage) -> ScanoutSlideMemory? {
        guard let memory = frame.storage.memoryOwner as? ScanoutSlideMemory, memory.buffer.size == frame.size,
              frame.pixels.baseAddress == memory.buffer.canvas.base else { return nil }
        return memory
    }
}
