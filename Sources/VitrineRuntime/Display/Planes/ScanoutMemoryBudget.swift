import Synchronization

/// The scan-out memory one output's slides may hold (`output.planeMemory`):
/// on a Raspberry Pi it is CMA, which the whole system shares. Two kinds of
/// buffer draw on it: slides decoded straight into scan-out buffers
/// (`ScanoutSlideMemorySource`, reserved on the decode queue) and slides
/// copied into one (`SlideScanoutBuffers`, on the display thread), so the
/// figure is kept here, under a lock, for both.
final class ScanoutMemoryBudget: Sendable {
    let limitBytes: Int
    private let held = Synchronization.Mutex<(direct: Int, copies: Int)>((0, 0))

    init(limitBytes: Int) {
        self.limitBytes = limitBytes
    }

    /// Bytes held by slides decoded into scan-out buffers.
    var directBytes: Int { held.withLock { $0.direct } }
    /// Bytes held or being copied by `SlideScanoutBuffers`.
    var copiedBytes: Int { held.withLock { $0.copies } }

    /// Takes `bytes` for a slide decoded into a scan-out buffer, if they fit
    /// beside what is held. Copies are not dropped to make room: the decode
    /// then goes to ordinary memory, and the slide is copied if room comes.
    func reserveDirect(_ bytes: Int) -> Bool {
        held.withLock { held in
            guard held.direct + held.copies + bytes <= limitBytes else { return false }
            held.direct += bytes
            return true
        }
    }

    func releaseDirect(_ bytes: Int) {
        held.withLock { $0.direct -= bytes }
    }

    /// What `SlideScanoutBuffers` holds now.
    func setCopies(_ bytes: Int) {
        held.withLock { $0.copies = bytes }
    }
}
