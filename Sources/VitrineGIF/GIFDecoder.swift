internal import CLibGIF
import VitrineCore

/// What a GIF file's logical screen descriptor says, read without giflib.
public struct GIFInfo: Hashable, Sendable {
    /// The logical screen: the canvas every frame is drawn on, and the size shown.
    public var size: PixelSize

    public init(size: PixelSize) {
        self.size = size
    }
}

/// What decoding found beyond the header: where the first frame lies, and how
/// many frames the file holds (more than one: an animation, of which only the
/// first frame is shown).
public struct GIFFrameInfo: Hashable, Sendable {
    public var canvas: PixelSize
    /// The first frame's rectangle on the canvas.
    public var frame: PixelRect
    public var isInterlaced: Bool
    /// The first frame's transparent colour index (Graphic Control Extension), if any.
    public var transparentIndex: Int?
    /// Every image descriptor in the file.
    public var frameCount: Int
    public var isAnimated: Bool { frameCount > 1 }
}

/// A decoded GIF: the whole logical screen with the first frame on it.
public struct DecodedGIF: Sendable {
    public let image: PixelImage
    public let frame: GIFFrameInfo
}

/// GIF pictures through giflib, record by record, into XRGB8888: the first
/// frame of an animation is shown as a still.
///
/// The first frame is drawn on the logical screen at its offset. Wherever it
/// draws nothing (outside its rectangle, and its transparent colour index) the
/// canvas is **black**, as a PNG's or WebP's alpha is composited onto black;
/// the file's background colour index is ignored, as browsers and libwebp's
/// animation decoder ignore theirs. An interlaced frame comes out in row order.
///
/// giflib reads through a callback over memory (`DGifOpen`); it returns
/// `GIF_ERROR` and sets an `int` code on every failure, never longjmps. The
/// whole file is read to its trailer (later frames' data is skipped block by
/// block, not decoded): damage anywhere, or a first frame cut short, is a
/// `GIFError`, never part of a picture; a file that only ends early after a
/// whole first frame shows that frame.
public enum GIFDecoder {
    /// Whether `bytes` start as a GIF file does: `GIF87a` or `GIF89a`. The
    /// format is known by these bytes only, never by a file's name.
    public static func hasSignature(_ bytes: some Collection<UInt8>) -> Bool {
        let head = Array(bytes.prefix(6))
        return head.count == 6 && head[0..<4].elementsEqual("GIF8".utf8) && (head[4] == 0x37 || head[4] == 0x39) && head[5] == 0x61
    }

    /// Reads the logical screen's size from the logical screen descriptor
    /// (bytes 6 to 9, little-endian), which may be all `bytes` hold: a push's
    /// header check reads only the start of a file.
    ///
    /// - Throws: `GIFError.empty`, `.notGIF` without the signature,
    ///   `.truncated` when the descriptor is cut short, `.corrupt` for a 0 size.
    public static func info(_ bytes: UnsafeRawBufferPointer) throws(GIFError) -> GIFInfo {
        guard !bytes.isEmpty else { throw .empty }
        guard hasSignature(bytes) else { throw .notGIF }
        guard bytes.count >= 10 else { throw .truncated("the file ends inside the logical screen descriptor") }
        let width = Int(bytes[6]) | Int(bytes[7]) << 8, height = Int(bytes[8]) | Int(bytes[9]) << 8
        guard width > 0, height > 0 else { throw .corrupt("the logical screen is \(width)x\(height)") }
        return GIFInfo(size: PixelSize(width: width, height: height))
    }

    /// Refuses `size` over `maxPixels` (`decode.maxPixels`).
    public static func requireWithinLimit(_ size: PixelSize, maxPixels: Int) throws(GIFError) {
        let (pixels, overflow) = size.width.multipliedReportingOverflow(by: size.height)
        guard !overflow, pixels <= maxPixels else { throw .tooManyPixels(size: size, limit: maxPixels) }
    }

    /// Canvas rows are handed over in strips of about this many bytes.
    public static let stripBytes = 256 << 10

    /// Decodes the first frame of the GIF in `bytes` (the whole file) onto its
    /// logical screen and hands the canvas to `consume` top to bottom, a strip
    /// of rows at a time over `storage`'s memory (`canvas.width` pixels a row),
    /// so that a caller can scale it as it comes (`StreamingAreaResampler`)
    /// and the canvas never exists whole. giflib has no scaler.
    ///
    /// giflib's calls: `DGifOpen` with a read callback over `bytes` (which
    /// reads the screen descriptor and global colour table),
    /// `DGifGetRecordType`, `DGifGetExtension`/`DGifGetExtensionNext` (the
    /// Graphic Control Extension's transparent index, `DGifExtensionToGCB`),
    /// `DGifGetImageDesc`, `DGifGetLine` for each of the frame's rows (in the
    /// four passes of an interlaced frame, into a buffer of one byte a pixel),
    /// then `DGifGetCode`/`DGifGetCodeNext` to skip later frames to the
    /// trailer, and `DGifCloseFile`.
    ///
    /// - Throws: `GIFError.tooManyPixels` when the logical screen or the first
    ///   frame exceeds `maxPixels`, before anything is allocated;
    ///   `.frameOutsideCanvas` when the frame leaves the screen;
    ///   `.tooLargeToDecode` when an interlaced frame's indices would take more
    ///   than `decoderByteLimit` bytes; giflib's code as a `GIFError` otherwise.
    ///   `consume` may have been given rows before an error: the caller drops them.
    @discardableResult
    public static func decodeRows(_ bytes: UnsafeRawBufferPointer, maxPixels: Int, decoderByteLimit: Int = .max, strip storage: PixelStorage,
                                  consume: (UnsafePointer<UInt32>, _ first: Int, _ count: Int) -> Void) throws(GIFError) -> GIFFrameInfo {
        let canvas = try info(bytes).size
        try requireWithinLimit(canvas, maxPixels: maxPixels)
        let session = try Session(bytes)
        defer { session.close() }
        let gif = session.gif
        // The records before the first image: extensions, of which a Graphic Control Extension sets transparency.
        var transparent: Int?
        scan: while true {
            switch try session.recordType(during: "reading the records before the first frame") {
            case IMAGE_DESC_RECORD_TYPE: break scan
            case EXTENSION_RECORD_TYPE:
                // The last Graphic Control Extension before the frame is the frame's.
                let control = try session.skipExtension()
                if control.isGraphicControl { transparent = control.transparent }
            case TERMINATE_RECORD_TYPE: throw .corrupt("the file ends (its trailer) before any frame")
            default: throw .corrupt("an unknown record before the first frame")
            }
        }
        guard DGifGetImageDesc(gif) == GIF_OK else { throw GIFError(code: gif.pointee.Error, during: "reading the first frame's descriptor") }
        let descriptor = gif.pointee.Image
        let frameSize = PixelSize(width: Int(descriptor.Width), height: Int(descriptor.Height))
        let left = Int(descriptor.Left), top = Int(descriptor.Top)
        guard frameSize.width > 0, frameSize.height > 0 else { throw .corrupt("the first frame is \(frameSize)") }
        try requireWithinLimit(frameSize, maxPixels: maxPixels)
        guard left >= 0, top >= 0, left + frameSize.width <= canvas.width, top + frameSize.height <= canvas.height else {
            throw .frameOutsideCanvas(left: left, top: top, size: frameSize, canvas: canvas)
        }
        guard let colorMap = descriptor.ColorMap ?? gif.pointee.SColorMap else {
            throw .corrupt("the first frame has no colour table, local or global")
        }
        // Every index maps to a colour: those past the table's end are black, and
        // so is the transparent one, which shows the (black) canvas.
        let palette = UnsafeMutableBufferPointer<UInt32>.allocate(capacity: 256)
        defer { palette.deallocate() }
        palette.initialize(repeating: 0xFF00_0000)
        for i in 0..<min(256, Int(colorMap.pointee.ColorCount)) {
            let color = colorMap.pointee.Colors[i]
            palette[i] = 0xFF00_0000 | UInt32(color.Red) << 16 | UInt32(color.Green) << 8 | UInt32(color.Blue)
        }
        if let transparent, transparent < 256 { palette[transparent] = 0xFF00_0000 }

        // An interlaced frame's rows arrive in four passes: its indices are held whole.
        var indices: UnsafeMutableBufferPointer<UInt8>?
        defer { indices?.deallocate() }
        if descriptor.Interlace {
            let byteCount = frameSize.pixelCount
            guard byteCount <= decoderByteLimit else { throw .tooLargeToDecode(size: frameSize, bytes: byteCount, limit: decoderByteLimit) }
            let buffer = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: byteCount)
            indices = buffer
            for (offset, jump) in [(0, 8), (4, 8), (2, 4), (1, 2)] {
                for y in stride(from: offset, to: frameSize.height, by: jump) {
                    guard DGifGetLine(gif, buffer.baseAddress! + y * frameSize.width, Int32(frameSize.width)) == GIF_OK else {
                        throw GIFError(code: gif.pointee.Error, during: "decoding the first frame (interlaced)")
                    }
                }
            }
        }
        let line = UnsafeMutablePointer<UInt8>.allocate(capacity: frameSize.width)
        defer { line.deallocate() }

        let rowsPerStrip = max(1, min(canvas.height, stripBytes / (canvas.width * 4)))
        let strip = PixelImage(size: PixelSize(width: canvas.width, height: rowsPerStrip), storage: storage)
        let base = strip.pixels.baseAddress!
        do {
            let colors = UnsafeBufferPointer(palette)
            var first = 0
            while first < canvas.height {
                let count = min(rowsPerStrip, canvas.height - first)
                for r in 0..<count {
                    let y = first + r
                    let row = base + r * canvas.width
                    guard y >= top, y < top + frameSize.height else {
                        row.update(repeating: 0xFF00_0000, count: canvas.width)
                        continue
                    }
                    let source: UnsafePointer<UInt8>
                    if let indices {
                        source = UnsafePointer(indices.baseAddress! + (y - top) * frameSize.width)
                    } else {
                        guard DGifGetLine(gif, line, Int32(frameSize.width)) == GIF_OK else {
                            throw GIFError(code: gif.pointee.Error, during: "decoding the first frame, row \(y - top) of \(frameSize.height)")
                        }
                        source = UnsafePointer(line)
                    }
                    row.update(repeating: 0xFF00_0000, count: left)
                    for x in 0..<frameSize.width { row[left + x] = colors[Int(source[x])] }
                    (row + left + frameSize.width).update(repeating: 0xFF00_0000, count: canvas.width - left - frameSize.width)
                }
                consume(base, first, count)
                first += count
            }
        }
        // The rest of the file, to its trailer: later frames are skipped, not decoded.
        var frames = 1
        rest: while true {
            do throws(GIFError) {
                switch try session.recordType(during: "reading the records after the first frame") {
                case IMAGE_DESC_RECORD_TYPE:
                    guard DGifGetImageDesc(gif) == GIF_OK else { throw GIFError(code: gif.pointee.Error, during: "reading frame \(frames + 1)'s descriptor") }
                    frames += 1
                    try session.skipImageData(during: "skipping frame \(frames)")
                case EXTENSION_RECORD_TYPE: _ = try session.skipExtension()
                case TERMINATE_RECORD_TYPE: break rest
                default: throw .corrupt("an unknown record after the first frame")
                }
            } catch {
                // The first frame is whole, and it is all that shows: a file that ends
                // after it (no trailer byte, as some old tools and cut downloads leave
                // them, or a later frame cut short) still shows it, as browsers do.
                // Damage (not an end) after it is still an error.
                guard case .truncated = error else { throw error }
                break rest
            }
        }
        return GIFFrameInfo(canvas: canvas, frame: PixelRect(x: left, y: top, width: frameSize.width, height: frameSize.height),
                            isInterlaced: descriptor.Interlace, transparentIndex: transparent, frameCount: frames)
    }

    /// Decodes the first frame onto its whole logical screen (`decodeRows`
    /// into one image): for tests and tools. The display frames a GIF as its
    /// rows come instead (`SlideDecoding`).
    ///
    /// - Throws: as `decodeRows`; also `.tooLargeToDecode` when the canvas
    ///   (4 bytes a pixel) would take more than `decoderByteLimit`.
    public static func decode(_ bytes: UnsafeRawBufferPointer, maxPixels: Int, decoderByteLimit: Int = .max,
                              into storage: PixelStorage? = nil) throws(GIFError) -> DecodedGIF {
        let canvas = try info(bytes).size
        try requireWithinLimit(canvas, maxPixels: maxPixels)
        guard canvas.pixelCount * 4 <= decoderByteLimit else {
            throw .tooLargeToDecode(size: canvas, bytes: canvas.pixelCount * 4, limit: decoderByteLimit)
        }
        let image = storage.map { PixelImage(size: canvas, storage: $0) } ?? PixelImage(size: canvas)
        let output = image.pixels.baseAddress!
        let frame = try decodeRows(bytes, maxPixels: maxPixels, decoderByteLimit: decoderByteLimit, strip: PixelStorage()) { rows, first, count in
            (output + first * canvas.width).update(from: rows, count: count * canvas.width)
        }
        return DecodedGIF(image: image, frame: frame)
    }
}

/// The bytes giflib's read callback takes from: `UserData` points here.
struct MemorySource {
    var base: UnsafeRawPointer
    var count: Int
    var offset: Int
}

/// giflib's `InputFunc`: copies up to `wanted` bytes; fewer at the end of the
/// data, which giflib reports as `D_GIF_ERR_READ_FAILED`.
private let readFromMemory: InputFunc = { file, buffer, wanted in
    guard let file, let buffer, wanted > 0, let user = file.pointee.UserData else { return 0 }
    let source = user.assumingMemoryBound(to: MemorySource.self)
    let count = min(Int(wanted), source.pointee.count - source.pointee.offset)
    guard count > 0 else { return 0 }
    UnsafeMutableRawPointer(buffer).copyMemory(from: source.pointee.base + source.pointee.offset, byteCount: count)
    source.pointee.offset += count
    return Int32(count)
}

/// One open giflib decoder over memory.
final class Session {
    let gif: UnsafeMutablePointer<GifFileType>
    private let source: UnsafeMutablePointer<MemorySource>
    private var open = true

    /// `DGifOpen`: reads the header, the logical screen descriptor and the global colour table.
    init(_ bytes: UnsafeRawBufferPointer) throws(GIFError) {
        source = .allocate(capacity: 1)
        source.initialize(to: MemorySource(base: bytes.baseAddress!, count: bytes.count, offset: 0))
        var error: Int32 = 0
        guard let gif = DGifOpen(source, readFromMemory, &error) else {
            source.deallocate()
            throw GIFError(code: error, during: "reading the header (DGifOpen)")
        }
        self.gif = gif
    }

    /// `DGifCloseFile`, which frees everything giflib allocated.
    func close() {
        guard open else { return }
        open = false
        var error: Int32 = 0
        _ = DGifCloseFile(gif, &error)
        source.deallocate()
    }

    deinit { close() }

    func recordType(during step: String) throws(GIFError) -> GifRecordType {
        var type = UNDEFINED_RECORD_TYPE
        guard DGifGetRecordType(gif, &type) == GIF_OK else { throw GIFError(code: gif.pointee.Error, during: step) }
        return type
    }

    /// Reads an extension to its end; says whether it is a Graphic Control
    /// Extension, and the transparent index it sets, if any.
    func skipExtension() throws(GIFError) -> (isGraphicControl: Bool, transparent: Int?) {
        var code: Int32 = 0
        var block: UnsafeMutablePointer<GifByteType>?
        guard DGifGetExtension(gif, &code, &block) == GIF_OK else { throw GIFError(code: gif.pointee.Error, during: "reading an extension") }
        var transparent: Int?
        if code == GRAPHICS_EXT_FUNC_CODE, let block {
            var control = GraphicsControlBlock()
            if DGifExtensionToGCB(Int(block[0]), block + 1, &control) == GIF_OK, control.TransparentColor >= 0 {
                transparent = Int(control.TransparentColor)
            }
        }
        while block != nil {
            guard DGifGetExtensionNext(gif, &block) == GIF_OK else { throw GIFError(code: gif.pointee.Error, during: "reading an extension") }
        }
        return (code == GRAPHICS_EXT_FUNC_CODE, transparent)
    }

    /// Reads a frame's compressed data block by block without decoding it.
    func skipImageData(during step: String) throws(GIFError) {
        var codeSize: Int32 = 0
        var block: UnsafeMutablePointer<GifByteType>?
        guard DGifGetCode(gif, &codeSize, &block) == GIF_OK else { throw GIFError(code: gif.pointee.Error, during: step) }
        while block != nil {
            guard DGifGetCodeNext(gif, &block) == GIF_OK else { throw GIFError(code: gif.pointee.Error, during: step) }
        }
    }
}
