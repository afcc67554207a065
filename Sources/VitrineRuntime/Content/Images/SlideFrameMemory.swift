import VitrineCore

/// Memory a slide's frame is decoded into that a decoding helper, in another
/// process, maps and writes: a sealed memfd (`SharedPixelBuffer`), or a
/// DMA-BUF exported from a buffer the display scans out (`ScanoutSlideMemory`),
/// so that the slide is shown from where it was decoded, with no copy.
///
/// Its `PixelStorage` names it as `memoryOwner`, which is how a decoder
/// handed that storage finds the descriptor to pass on.
public protocol SharedFrameMemory: AnyObject, Sendable {
    /// Mapped shared and writable by the helper, from offset 0.
    var descriptor: Int32 { get }
    /// The bytes the helper may write: at most what `fstat` reports for `descriptor`.
    var byteCount: Int { get }
    /// Whether the memory may be used for another frame once the store lets
    /// its frame go: false for a scan-out buffer, which a plane may still
    /// show until a flip takes it off the screen.
    var reusableAfterEviction: Bool { get }
    /// Called before the helper writes into it, and `endWrites()` after
    /// (`DMA_BUF_IOCTL_SYNC` on a DMA-BUF; nothing for a memfd). A failure
    /// means the memory cannot be trusted to reach the display: the decoder
    /// uses other memory.
    func beginWrites() -> Bool
    func endWrites()
    /// A decode into this memory failed where the same picture decoded into
    /// a memfd of the decoder's own: the memory, not the picture, was at
    /// fault (a driver whose DMA-BUFs cannot be mapped), and its maker should
    /// hand out no more of it.
    func helperCouldNotUse(_ why: String)
}

extension PixelStorage {
    /// Whether this memory may hold another frame once the store lets its
    /// frame go: true for heap memory and memfds, false for a scan-out buffer.
    public var reusableAfterEviction: Bool {
        (memoryOwner as? any SharedFrameMemory)?.reusableAfterEviction ?? true
    }
}

extension SharedFrameMemory {
    public var reusableAfterEviction: Bool { true }
    public func beginWrites() -> Bool { true }
    public func endWrites() {}
    public func helperCouldNotUse(_ why: String) {}
}

/// Where a store's slides are decoded when the display can show them from
/// where they are decoded (`LayeredDisplay.slideFrameMemory(for:)`). Asked on the
/// store's decode queue, once a decode, before any recycled memory.
public protocol SlideFrameMemorySource: AnyObject, Sendable {
    /// Memory for `request`'s frame, or nil when that frame is not worth
    /// scanning out as it is (a Ken Burns frame, larger than the output) or
    /// does not fit the display's budget: the decoder then uses memory of its own.
    func storage(for request: SlideRequest) -> PixelStorage?
}
