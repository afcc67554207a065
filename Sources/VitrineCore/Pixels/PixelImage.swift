/// An XRGB8888 image: one `UInt32` per pixel, `0xXXRRGGBB`, rows packed.
///
/// This is the in-memory form of every decoded slide and of the placeholder.
/// An image is written by exactly one thread (the decoder that made it) and is
/// treated as immutable once handed over; that is why the class may be
/// `@unchecked Sendable`.
public final class PixelImage: @unchecked Sendable {
    public let size: PixelSize
    public let pixels: UnsafeMutableBufferPointer<UInt32>
    /// The memory under the pixels; reusable for another image once this one is gone.
    public let storage: PixelStorage

    /// Allocates `size` pixels, filled with `color` when given (otherwise uninitialised
    /// memory that the caller must overwrite completely).
    public convenience init(size: PixelSize, fill color: RGBAColor? = nil) {
        self.init(size: size, storage: PixelStorage(capacity: size.pixelCount))
        if let color { pixels.initialize(repeating: color.xrgb) }
    }

    /// An image over `storage`, grown if needed. Scratch images of a decode
    /// worker reuse one storage from picture to picture, so that their memory is
    /// faulted in once rather than for every picture.
    public init(size: PixelSize, storage: PixelStorage) {
        precondition(size.width >= 0 && size.height >= 0, "negative image size \(size)")
        storage.acquire(pixelCount: max(size.pixelCount, 1))
        self.size = size
        self.storage = storage
        self.pixels = UnsafeMutableBufferPointer(start: storage.base, count: max(size.pixelCount, 1))
    }

    deinit { storage.release() }

    public var width: Int { size.width }
    public var height: Int { size.height }
    public var byteCount: Int { size.pixelCount * 4 }

    /// The pixel at column `x`, row `y`.
    public subscript(x: Int, y: Int) -> UInt32 {
        get { pixels[y * size.width + x] }
        set { pixels[y * size.width + x] = newValue }
    }

    /// A writable view of the whole image.
    public var canvas: PixelCanvas {
        PixelCanvas(base: pixels.baseAddress!, size: size, stride: size.width)
    }
}

/// Memory for pixels, which one image at a time may use: its own heap memory,
/// or memory another object owns and keeps mapped (a buffer shared with the
/// sandboxed decoder that wrote the pixels into it).
public final class PixelStorage: @unchecked Sendable {
    public private(set) var capacity: Int
    fileprivate private(set) var base: UnsafeMutablePointer<UInt32>
    private var inUse = false
    /// The owner of borrowed memory, which keeps it mapped while this storage
    /// lives; nil for the storage's own heap memory.
    public private(set) var memoryOwner: AnyObject?

    public init(capacity: Int = 0) {
        self.capacity = max(capacity, 1)
        self.base = .allocate(capacity: self.capacity)
    }

    /// Pixels over `byteCount` bytes at `base`, which `owner` keeps valid for as
    /// long as it lives; this storage holds `owner`. `base` must be aligned for `UInt32`.
    public init(borrowing base: UnsafeMutableRawPointer, byteCount: Int, owner: AnyObject) {
        self.capacity = max(byteCount / 4, 1)
        self.base = base.assumingMemoryBound(to: UInt32.self)
        self.memoryOwner = owner
    }

    deinit {
        if memoryOwner == nil { base.deallocate() }
    }

    fileprivate func acquire(pixelCount: Int) {
        // Two live images over one storage would silently overwrite each other.
        precondition(!inUse, "PixelStorage is already used by a live PixelImage")
        inUse = true
        if pixelCount > capacity {
            // Borrowed memory cannot grow: such a storage moves to heap memory of its own.
            if memoryOwner == nil { base.deallocate() }
            memoryOwner = nil
            base = .allocate(capacity: pixelCount)
            capacity = pixelCount
        }
    }

    fileprivate func release() { inUse = false }
}

/// A non-owning, writable view of XRGB8888 pixels with a row stride: an owned
/// `PixelImage`, or memory the kernel mapped for a DRM dumb buffer.
public struct PixelCanvas {
    public let base: UnsafeMutablePointer<UInt32>
    public let size: PixelSize
    /// Distance between rows, in pixels (not bytes).
    public let stride: Int

    public init(base: UnsafeMutablePointer<UInt32>, size: PixelSize, stride: Int) {
        precondition(stride >= size.width, "stride \(stride) is narrower than width \(size.width)")
        self.base = base
        self.size = size
        self.stride = stride
    }

    @inline(__always)
    public func row(_ y: Int) -> UnsafeMutablePointer<UInt32> { base + y * stride }

    /// Fills `rect` (clipped to the canvas) with `color`.
    public func fill(_ rect: PixelRect, with color: RGBAColor) {
        guard let clipped = rect.intersection(PixelRect(x: 0, y: 0, width: size.width, height: size.height))
        else { return }
        let value = color.xrgb
        for y in clipped.y..<clipped.maxY {
            (row(y) + clipped.x).update(repeating: value, count: clipped.width)
        }
    }

    public func fill(with color: RGBAColor) {
        fill(PixelRect(x: 0, y: 0, width: size.width, height: size.height), with: color)
    }

    /// Fills everything outside `rect` (which must lie inside the canvas) with
    /// `color`: the bars around a fitted picture.
    public func fill(around rect: PixelRect, with color: RGBAColor) {
        fill(PixelRect(x: 0, y: 0, width: size.width, height: rect.y), with: color)
        fill(PixelRect(x: 0, y: rect.maxY, width: size.width, height: size.height - rect.maxY), with: color)
        fill(PixelRect(x: 0, y: rect.y, width: rect.x, height: rect.height), with: color)
        fill(PixelRect(x: rect.maxX, y: rect.y, width: size.width - rect.maxX, height: rect.height), with: color)
    }

    /// The pixels of `rect` (which must lie inside the canvas) as a canvas of
    /// their own, over the same memory: a region of a frame to copy or turn.
    public func cropped(to rect: PixelRect) -> PixelCanvas {
        precondition(rect.x >= 0 && rect.y >= 0 && rect.width >= 0 && rect.height >= 0
                     && rect.maxX <= size.width && rect.maxY <= size.height, "\(rect) is not inside \(size)")
        return PixelCanvas(base: base + rect.y * stride + rect.x, size: rect.size, stride: stride)
    }
}
