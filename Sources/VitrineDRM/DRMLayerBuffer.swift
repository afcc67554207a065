import VitrineCore

/// A buffer one layer of a frame is scanned out from: a dumb buffer in one
/// of the `ScanoutFormat`s a CPU draws (`xrgb8888` slides, `argb8888` dots),
/// its framebuffer object and its mapping, owned together and freed together
/// (`drmModeCreateDumbBuffer`, `drmModeAddFB2`, `drmModeMapDumbBuffer`).
///
/// Dumb buffers are often write-combined (vc4's come from CMA): write them
/// in order and never read them back on the CPU.
public final class DRMLayerBuffer {
    private let framebuffer: DRMFramebuffer
    public let format: ScanoutFormat

    /// Refuses the YUV formats: a dumb buffer is one plane of 32-bit pixels here.
    /// `cleared`: false when every pixel is written next (a slide decoded into it).
    public init(card: DRMCard, size: PixelSize, format: ScanoutFormat, cleared: Bool = true) throws(DRMError) {
        guard format == .xrgb8888 || format == .argb8888 else {
            throw .unsupported(card: card.path, reason: "a dumb layer buffer in \(format.rawValue)")
        }
        framebuffer = try DRMFramebuffer(card: card, size: size, format: format.fourcc, cleared: cleared)
        self.format = format
    }

    /// The framebuffer object's ID, what a plane's `FB_ID` takes.
    public var framebufferID: UInt32 { framebuffer.framebufferID }
    public var size: PixelSize { framebuffer.size }
    /// The mapping as a canvas; its stride is the driver's pitch.
    public var canvas: PixelCanvas { framebuffer.canvas }
    /// The driver's pitch in bytes; a frame of packed rows fits it only when it is `size.width * 4`.
    public var pitch: Int { framebuffer.pitch }
    /// The mapping's length in bytes.
    public var length: Int { framebuffer.length }

    /// The buffer's memory as a DMA-BUF (`drmPrimeHandleToFD` with `DRM_RDWR`),
    /// for a decoding helper to map and write a slide into.
    public func exportDMABuf() throws(DRMError) -> DMABufDescriptor { try framebuffer.exportDMABuf() }
}
