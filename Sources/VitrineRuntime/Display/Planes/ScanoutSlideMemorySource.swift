import Logging
import Synchronization
import VitrineCore
import VitrineDRM

/// Where an output on planes has its still slides decoded: straight into
/// scan-out buffers of its card (`ScanoutSlideMemory`), within
/// `output.planeMemory`, so that a plane shows each slide from the memory the
/// decoding helper wrote, with no copy.
///
/// Asked on the store's decode queue. It answers nil, and the slide is
/// decoded into ordinary memory as before (then copied if the planes want
/// it), for:
/// - a Ken Burns frame, finer than the output: a plane that cannot scale
///   could not show it, and one that can gains nothing from scan-out memory
///   the CPU reads back while the slide pans;
/// - a frame the budget has no room for, or a buffer the card cannot make
///   now (CMA short): the next slide tries again;
/// - a card that refuses what this needs: a dumb buffer whose pitch is not
///   its width's (a frame's rows are packed), one it cannot export as a
///   DMA-BUF, or one a helper could not map and write. That is logged once,
///   and the card is not asked again.
final class ScanoutSlideMemorySource: SlideFrameMemorySource, @unchecked Sendable {
    private let card: DRMCard
    private let budget: ScanoutMemoryBudget
    private let logger: Logger
    /// Set once the card refused: every later slide goes to ordinary memory.
    private let refused = Atomic<Bool>(false)
    /// A buffer could not be made (logged once; each slide tries again).
    private let shortLogged = Atomic<Bool>(false)

    /// DRM calls may be made from any thread: the kernel locks per object.
    init(card: DRMCard, budget: ScanoutMemoryBudget, logger: Logger) {
        self.card = card
        self.budget = budget
        self.logger = logger
    }

    func storage(for request: SlideRequest) -> PixelStorage? {
        guard request.frameScale <= 1, !request.output.isEmpty, !refused.load(ordering: .relaxed) else { return nil }
        let bytes = SlideScanoutBuffers<DRMLayerBuffer>.bytes(of: request.output)
        guard budget.reserveDirect(bytes) else { return nil }
        // From here the reservation is the memory's to give back; on every way out before it, this gives it back.
        var reservationTaken = false
        defer { if !reservationTaken { budget.releaseDirect(bytes) } }
        let buffer: DRMLayerBuffer
        do {
            // Not cleared: the helper writes every pixel of an output-sized frame.
            buffer = try DRMLayerBuffer(card: card, size: request.output, format: .xrgb8888, cleared: false)
        } catch {
            // CMA short for a moment (a Pi's is shared with the whole system): this slide goes to
            // ordinary memory, and the next one is tried again.
            if !shortLogged.exchange(true, ordering: .relaxed) {
                logger.warning("cannot make a scan-out buffer for a \(request.output) slide (\(error)): it is decoded into ordinary memory (said once)")
            }
            return nil
        }
        guard buffer.pitch == request.output.width * 4 else {
            refuse("\(card.driver) pads a \(request.output) buffer's rows to \(buffer.pitch) bytes, and decoded rows are packed")
            return nil
        }
        do {
            let memory = ScanoutSlideMemory(buffer: buffer, dmaBuf: try buffer.exportDMABuf(), budget: budget, reservedBytes: bytes,
                                            unusable: { [weak self] why in self?.refuse(why) })
            reservationTaken = true
            return memory.storage()
        } catch {
            refuse("\(error)")
            return nil
        }
    }

    /// Stops asking the card for good: it refused what this needs, or a helper could not write what it gave.
    private func refuse(_ why: String) {
        guard !refused.exchange(true, ordering: .relaxed) else { return }
        logger.warning("slides cannot be decoded into scan-out buffers (\(why)): they are decoded into ordinary memory and copied for the planes")
    }
}
