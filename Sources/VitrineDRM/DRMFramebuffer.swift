import CLibDRM
import Glibc
import VitrineCore
import SystemPackage
import VitrineSystem

/// A CPU-drawn scanout buffer: one dumb buffer, its framebuffer object, and
/// its mapping, created together and freed together in `deinit` (munmap,
/// `drmModeRmFB`, `drmModeDestroyDumbBuffer`, in that order: the mapping and
/// the framebuffer both refer to the buffer).
final class DRMFramebuffer {
    let card: DRMCard
    let size: PixelSize
    let handle: UInt32
    let pitch: UInt32
    let framebufferID: UInt32
    private let mapping: UnsafeMutableRawPointer
    private let mappingLength: Int

    /// `DRM_FORMAT_XRGB8888` ('XR24'): drm_fourcc.h defines it with a
    /// function-like macro that Swift cannot import.
    static let formatXRGB8888: UInt32 = 0x3432_5258

    init(card: DRMCard, size: PixelSize) throws(DRMError) {
        self.card = card
        self.size = size
        var handle: UInt32 = 0, pitch: UInt32 = 0, length: UInt64 = 0
        guard drmModeCreateDumbBuffer(card.descriptor, UInt32(size.width), UInt32(size.height), 32, 0,
                                      &handle, &pitch, &length) == 0 else {
            throw .call("drmModeCreateDumbBuffer \(size)", errno: .lastCall, subject: card.path)
        }
        var handles: (UInt32, UInt32, UInt32, UInt32) = (handle, 0, 0, 0)
        var pitches: (UInt32, UInt32, UInt32, UInt32) = (pitch, 0, 0, 0)
        var offsets: (UInt32, UInt32, UInt32, UInt32) = (0, 0, 0, 0)
        var framebufferID: UInt32 = 0
        let added = withUnsafeMutablePointer(to: &handles) { h in
            withUnsafeMutablePointer(to: &pitches) { p in
                withUnsafeMutablePointer(to: &offsets) { o in
                    h.withMemoryRebound(to: UInt32.self, capacity: 4) { h in
                        p.withMemoryRebound(to: UInt32.self, capacity: 4) { p in
                            o.withMemoryRebound(to: UInt32.self, capacity: 4) { o in
                                drmModeAddFB2(card.descriptor, UInt32(size.width), UInt32(size.height), Self.formatXRGB8888,
                                              h, p, o, &framebufferID, 0)
                            }
                        }
                    }
                }
            }
        }
        guard added == 0 else {
            let error = Errno.lastCall
            drmModeDestroyDumbBuffer(card.descriptor, handle)
            throw .call("drmModeAddFB2 XRGB8888 \(size)", errno: error, subject: card.path)
        }
        var offset: UInt64 = 0
        let mapped: UnsafeMutableRawPointer? = drmModeMapDumbBuffer(card.descriptor, handle, &offset) == 0
            ? mmap(nil, Int(length), PROT_READ | PROT_WRITE, MAP_SHARED, card.descriptor, off_t(offset)) : MAP_FAILED
        guard let mapped, mapped != MAP_FAILED else {
            let error = Errno.lastCall
            drmModeRmFB(card.descriptor, framebufferID)
            drmModeDestroyDumbBuffer(card.descriptor, handle)
            throw .call("mmap of dumb buffer", errno: error, subject: card.path)
        }
        self.handle = handle
        self.pitch = pitch
        self.framebufferID = framebufferID
        self.mapping = mapped
        self.mappingLength = Int(length)
        // Start black rather than with whatever the kernel's pages held.
        memset(mapped, 0, Int(length))
    }

    deinit {
        munmap(mapping, mappingLength)
        drmModeRmFB(card.descriptor, framebufferID)
        drmModeDestroyDumbBuffer(card.descriptor, handle)
    }

    /// The buffer as a canvas; the stride is the driver's pitch, not the width.
    var canvas: PixelCanvas {
        PixelCanvas(base: mapping.assumingMemoryBound(to: UInt32.self), size: size, stride: Int(pitch) / 4)
    }
}
