import CLibDRM
import Glibc
import SystemPackage
import VitrineSystem

/// A DMA-BUF exported from a dumb buffer (`DRMLayerBuffer.exportDMABuf()`):
/// the descriptor a decoding helper maps to write a slide straight into
/// memory a plane scans out. Closed exactly once, when this goes; the
/// buffer's memory lives on while the dumb buffer or any mapping holds it.
public final class DMABufDescriptor: @unchecked Sendable {
    /// Open read-write, close-on-exec: pass it to another process as is.
    public let descriptor: Int32
    /// The buffer's length in bytes, as `fstat` reports it for the DMA-BUF.
    public let length: Int

    init(adopting descriptor: Int32, length: Int) {
        self.descriptor = descriptor
        self.length = length
    }

    deinit { close(descriptor) }

    /// Brackets CPU writes by any process that maps this buffer
    /// (`DMA_BUF_IOCTL_SYNC` with `DMA_BUF_SYNC_START | DMA_BUF_SYNC_WRITE`):
    /// on a driver whose memory is not coherent with the CPU this is what
    /// makes the writes visible to the display. Call `endWrites()` after.
    public func beginWrites() throws(DRMError) {
        try sync(UInt64(DMA_BUF_SYNC_START) | UInt64(DMA_BUF_SYNC_WRITE), "DMA_BUF_SYNC_START")
    }

    /// Ends what `beginWrites()` began (`DMA_BUF_SYNC_END | DMA_BUF_SYNC_WRITE`).
    public func endWrites() throws(DRMError) {
        try sync(UInt64(DMA_BUF_SYNC_END) | UInt64(DMA_BUF_SYNC_WRITE), "DMA_BUF_SYNC_END")
    }

    private func sync(_ flags: UInt64, _ name: String) throws(DRMError) {
        // An interrupted sync has done nothing yet: it is asked again, as the kernel documents.
        var result: Int32
        repeat { result = vitrine_dma_buf_sync(descriptor, flags) } while result != 0 && Errno.lastCall == .interrupted
        guard result == 0 else { throw .call("DMA_BUF_IOCTL_SYNC (\(name))", errno: .lastCall, subject: "a slide's DMA-BUF") }
    }
}
