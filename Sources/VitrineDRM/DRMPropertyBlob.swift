import CLibDRM
import Glibc
import VitrineSystem

/// A mode as a kernel property blob (`drmModeCreatePropertyBlob`), the value an
/// atomic commit gives a CRTC's `MODE_ID`. Non-copyable: exactly one owner
/// holds the blob's ID, and `drmModeDestroyPropertyBlob` runs exactly once,
/// when that owner lets go of it: on a failed commit as the error leaves the
/// scope, and for the blob on screen when the next modeset replaces it. (The
/// kernel keeps its own reference while a CRTC uses the blob, so destroying
/// the ID after a commit does not take the mode away.)
struct DRMPropertyBlob: ~Copyable {
    private let card: DRMCard
    let id: UInt32

    init(card: DRMCard, mode: DRMMode) throws(DRMError) {
        var info = mode.info
        var id: UInt32 = 0
        guard drmModeCreatePropertyBlob(card.descriptor, &info, MemoryLayout<drmModeModeInfo>.size, &id) == 0 else {
            throw .call("drmModeCreatePropertyBlob", errno: .lastCall, subject: card.path)
        }
        self.card = card
        self.id = id
    }

    deinit {
        drmModeDestroyPropertyBlob(card.descriptor, id)
    }
}
