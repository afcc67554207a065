import CLibDRM
import Glibc
import VitrineCore
import SystemPackage
import VitrineSystem

/// A CPU-drawn scanout buffer: one dumb buffer, its framebuffer object, and
/// its mapping, each a non-copyable owner of its kernel object, so that each
/// is freed exactly once: all three when the scanout lets go of the buffer,
/// and on a failed step those already made, as the error leaves `init`.
/// (The mapping and the framebuffer both hold a reference to the buffer's
/// memory in the kernel, so the order in which the three go does not matter.)
final class DRMFramebuffer {
    let card: DRMCard
    let size: PixelSize
    private let buffer: DRMDumbBuffer
    private let object: DRMFramebufferObject
    private let mapping: DRMBufferMapping

    /// `DRM_FORMAT_XRGB8888` ('XR24'): drm_fourcc.h defines it with a
    /// function-like macro that Swift cannot import.
    static let formatXRGB8888: UInt32 = 0x3432_5258

    /// `cleared`: false for a buffer whose every pixel is written next (a
    /// slide decoded into it), which need not be cleared first. The kernel
    /// hands out zeroed pages either way; clearing makes sure of black on
    /// drivers that recycle their memory.
    init(card: DRMCard, size: PixelSize, format: UInt32 = DRMFramebuffer.formatXRGB8888, cleared: Bool = true) throws(DRMError) {
        let buffer = try DRMDumbBuffer(card: card, size: size)
        let object = try DRMFramebufferObject(card: card, buffer: buffer, size: size, format: format)
        let mapping = try DRMBufferMapping(card: card, buffer: buffer)
        // Start black rather than with whatever the kernel's pages held.
        if cleared { memset(mapping.base, 0, mapping.length) }
        self.card = card
        self.size = size
        self.buffer = buffer
        self.object = object
        self.mapping = mapping
    }

    /// The framebuffer object's ID, for a modeset or a flip.
    var framebufferID: UInt32 { object.id }

    /// The driver's pitch, in bytes.
    var pitch: Int { Int(buffer.pitch) }
    /// The mapping's length, in bytes: at least `pitch` times the height.
    var length: Int { mapping.length }

    /// The buffer's memory as a DMA-BUF another process can map and write
    /// (`drmPrimeHandleToFD` with `DRM_RDWR`).
    func exportDMABuf() throws(DRMError) -> DMABufDescriptor {
        var descriptor: Int32 = -1
        guard drmPrimeHandleToFD(card.descriptor, buffer.handle, UInt32(O_RDWR | O_CLOEXEC), &descriptor) == 0, descriptor >= 0 else {
            throw .call("drmPrimeHandleToFD (DRM_RDWR)", errno: .lastCall, subject: card.path)
        }
        return DMABufDescriptor(adopting: descriptor, length: buffer.length)
    }

    /// The buffer as a canvas; the stride is the driver's pitch, not the width.
    var canvas: PixelCanvas {
        PixelCanvas(base: mapping.base.assumingMemoryBound(to: UInt32.self), size: size, stride: Int(buffer.pitch) / 4)
    }
}

/// A dumb buffer (`drmModeCreateDumbBuffer`, 32 bits a pixel): its GEM handle,
/// pitch and length, destroyed exactly once (`drmModeDestroyDumbBuffer`).
struct DRMDumbBuffer: ~Copyable {
    let card: DRMCard
    let handle: UInt32
    let pitch: UInt32
    let length: Int

    init(card: DRMCard, size: PixelSize) throws(DRMError) {
        var handle: UInt32 = 0, pitch: UInt32 = 0, length: UInt64 = 0
        guard drmModeCreateDumbBuffer(card.descriptor, UInt32(size.width), UInt32(size.height), 32, 0,
                                      &handle, &pitch, &length) == 0 else {
            throw .call("drmModeCreateDumbBuffer \(size)", errno: .lastCall, subject: card.path)
        }
        self.card = card
        self.handle = handle
        self.pitch = pitch
        self.length = Int(length)
    }

    deinit {
        drmModeDestroyDumbBuffer(card.descriptor, handle)
    }
}

/// A framebuffer object over a dumb buffer (`drmModeAddFB2`), what a CRTC's
/// plane scans out; removed exactly once (`drmModeRmFB`).
struct DRMFramebufferObject: ~Copyable {
    let card: DRMCard
    let id: UInt32

    init(card: DRMCard, buffer: borrowing DRMDumbBuffer, size: PixelSize, format: UInt32) throws(DRMError) {
        var handles: (UInt32, UInt32, UInt32, UInt32) = (buffer.handle, 0, 0, 0)
        var pitches: (UInt32, UInt32, UInt32, UInt32) = (buffer.pitch, 0, 0, 0)
        var offsets: (UInt32, UInt32, UInt32, UInt32) = (0, 0, 0, 0)
        var id: UInt32 = 0
        let added = withUnsafeMutablePointer(to: &handles) { h in
            withUnsafeMutablePointer(to: &pitches) { p in
                withUnsafeMutablePointer(to: &offsets) { o in
                    h.withMemoryRebound(to: UInt32.self, capacity: 4) { h in
                        p.withMemoryRebound(to: UInt32.self, capacity: 4) { p in
                            o.withMemoryRebound(to: UInt32.self, capacity: 4) { o in
                                drmModeAddFB2(card.descriptor, UInt32(size.width), UInt32(size.height), format, h, p, o, &id, 0)
                            }
                        }
                    }
                }
            }
        }
        guard added == 0 else {
            throw .call("drmModeAddFB2 \(DRMPlaneDetails.fourcc(format)) \(size)", errno: .lastCall, subject: card.path)
        }
        self.card = card
        self.id = id
    }

    deinit {
        drmModeRmFB(card.descriptor, id)
    }
}

/// A dumb buffer mapped into this process (`drmModeMapDumbBuffer`, then
/// `mmap` of the card at the offset it gives), unmapped exactly once.
struct DRMBufferMapping: ~Copyable {
    let base: UnsafeMutableRawPointer
    let length: Int

    init(card: DRMCard, buffer: borrowing DRMDumbBuffer) throws(DRMError) {
        var offset: UInt64 = 0
        guard drmModeMapDumbBuffer(card.descriptor, buffer.handle, &offset) == 0 else {
            throw .call("drmModeMapDumbBuffer", errno: .lastCall, subject: card.path)
        }
        let mapped = mmap(nil, buffer.length, PROT_READ | PROT_WRITE, MAP_SHARED, card.descriptor, off_t(offset))
        guard let mapped, mapped != MAP_FAILED else { throw .call("mmap of dumb buffer", errno: .lastCall, subject: card.path) }
        self.base = mapped
        self.length = buffer.length
    }

    deinit {
        munmap(base, length)
    }
}
