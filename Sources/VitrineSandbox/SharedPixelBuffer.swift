import CLinuxProcess
import Glibc
import VitrineCore
import VitrineRuntime
import VitrineSystem

/// Memory the kiosk shares with a decoding helper, which writes a decoded
/// frame into it: an anonymous file (`memfd_create`) mapped in both processes.
///
/// This is the one hand-over between a helper and the kiosk: a descriptor,
/// its size, and pixels written from its start (`SharedFrameMemory`). A
/// DMA-BUF exported from a scan-out buffer (`ScanoutSlideMemory`) is the same
/// kind of thing, a descriptor the helper maps and writes, and goes in the
/// same message instead; the kiosk brackets the helper's writes with
/// `DMA_BUF_IOCTL_SYNC`, so the helper's filter allows no new call.
///
/// The size is sealed before the helper sees the descriptor
/// (`F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL`): a compromised helper that
/// truncated the file would otherwise make the kiosk's next read of the
/// mapping a SIGBUS. What it can still do is write other pixels, which is no
/// worse than a picture of its choosing. Pages are taken only as the helper
/// writes them, so a buffer sized for the largest frame costs what the frame
/// it holds does.
public final class SharedPixelBuffer: SharedFrameMemory, @unchecked Sendable {
    public let descriptor: Int32
    public let byteCount: Int
    let base: UnsafeMutableRawPointer

    /// `memfd_create`, `ftruncate`, `F_ADD_SEALS`, then `mmap(MAP_SHARED)`.
    public init(byteCount: Int, name: String = "vitrine-frame") throws(SystemError) {
        let size = max(byteCount, 4)
        let fd = memfd_create(name, vitrine_mfd_cloexec | vitrine_mfd_allow_sealing)
        guard fd >= 0 else { throw SystemError("memfd_create", subject: name) }
        guard ftruncate(fd, off_t(size)) == 0 else {
            let error = SystemError("ftruncate", subject: name)
            close(fd)
            throw error
        }
        guard fcntl(fd, vitrine_f_add_seals, vitrine_f_seal_shrink | vitrine_f_seal_grow | vitrine_f_seal_seal) == 0 else {
            let error = SystemError("fcntl(F_ADD_SEALS)", subject: name)
            close(fd)
            throw error
        }
        guard let mapped = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0), mapped != MAP_FAILED else {
            let error = SystemError("mmap", subject: name)
            close(fd)
            throw error
        }
        descriptor = fd
        self.byteCount = size
        base = mapped
    }

    deinit {
        munmap(base, byteCount)
        close(descriptor)
    }

    /// Pixels over this buffer from `offset` bytes, which keep it mapped for as long as they live.
    func storage(offset: Int = 0) -> PixelStorage {
        PixelStorage(borrowing: base + offset, byteCount: byteCount - offset, owner: self)
    }

    /// The first `count` bytes (a thumbnail's PNG).
    func bytes(count: Int) -> [UInt8] {
        Array(UnsafeRawBufferPointer(start: base, count: min(count, byteCount)))
    }
}
