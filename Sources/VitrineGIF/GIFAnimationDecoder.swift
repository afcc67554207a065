internal import CLibGIF
import VitrineCore

extension GIFDecoder {
    /// Decodes every frame of the GIF in `bytes` onto its logical screen, as a
    /// browser draws them, and hands each composed screen to `frame` with how
    /// long it shows. The screen is one image reused for every frame: `frame`
    /// copies what it keeps (scaled to what it needs) before returning.
    ///
    /// Composition follows GIF89a: each frame draws its opaque pixels at its
    /// offset; before the next frame, its Graphic Control Extension's disposal
    /// clears its rectangle (2, to the background, which is black here, as in
    /// the first-frame decode) or puts back the screen from before it (3).
    ///
    /// giflib's calls: `DGifOpen`, `DGifGetRecordType`, `DGifGetExtension` /
    /// `DGifGetExtensionNext` (`DGifExtensionToGCB` for delay, disposal and
    /// transparency; the NETSCAPE2.0 application block for the loop count),
    /// `DGifGetImageDesc`, `DGifGetLine` for every row (interlaced rows into
    /// their places), `DGifCloseFile`.
    ///
    /// The result's `plays` is the NETSCAPE2.0 loop count as plays: nil for
    /// ever (a count of 0), 1 without the extension (a GIF without it plays
    /// once, as in browsers).
    ///
    /// - Parameter frame: returns false to stop (its caller's budget is spent).
    /// - Throws: as `decodeRows`: the screen or a frame over `maxPixels`, a
    ///   frame outside the screen, the screen over `decoderByteLimit`, giflib's
    ///   codes. A file that ends early after a whole frame keeps the frames
    ///   before the cut; one that ends in its first frame is `.truncated`.
    @discardableResult
    public static func decodeAnimation(_ bytes: UnsafeRawBufferPointer, maxPixels: Int, decoderByteLimit: Int,
                                       frame: (_ screen: PixelImage, _ duration: Duration) -> Bool) throws(GIFError) -> AnimationInfo {
        let canvas = try info(bytes).size
        try requireWithinLimit(canvas, maxPixels: maxPixels)
        // The screen, the copy disposal 3 restores, and a frame's indices: about 9 bytes a pixel.
        let byteCount = canvas.pixelCount * 9
        guard byteCount <= decoderByteLimit else { throw .tooLargeToDecode(size: canvas, bytes: byteCount, limit: decoderByteLimit) }
        let session = try Session(bytes)
        defer { session.close() }
        let gif = session.gif
        let screen = PixelImage(size: canvas)
        screen.pixels.update(repeating: 0xFF00_0000)
        var saved: PixelImage?
        let indices = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: canvas.pixelCount)
        defer { indices.deallocate() }
        let palette = UnsafeMutableBufferPointer<UInt32>.allocate(capacity: 256)
        defer { palette.deallocate() }

        var control = GraphicsControlBlock(DisposalMode: 0, UserInputFlag: false, DelayTime: 0, TransparentColor: -1)
        var plays: Int? = 1
        var frames = 0
        // What the previous frame asked to be done with its rectangle before the next frame.
        var pendingDisposal: (mode: Int32, rect: PixelRect)?
        records: while true {
            do throws(GIFError) {
                switch try session.recordType(during: "reading the records before frame \(frames + 1)") {
                case EXTENSION_RECORD_TYPE:
                    try session.readExtension(control: &control, plays: &plays)
                case IMAGE_DESC_RECORD_TYPE:
                    guard DGifGetImageDesc(gif) == GIF_OK else {
                        throw GIFError(code: gif.pointee.Error, during: "reading frame \(frames + 1)'s descriptor")
                    }
                    let descriptor = gif.pointee.Image
                    let size = PixelSize(width: Int(descriptor.Width), height: Int(descriptor.Height))
                    let rect = PixelRect(x: Int(descriptor.Left), y: Int(descriptor.Top), width: size.width, height: size.height)
                    guard size.width > 0, size.height > 0 else { throw .corrupt("frame \(frames + 1) is \(size)") }
                    try requireWithinLimit(size, maxPixels: maxPixels)
                    guard rect.x >= 0, rect.y >= 0, rect.x + size.width <= canvas.width, rect.y + size.height <= canvas.height else {
                        throw .frameOutsideCanvas(left: rect.x, top: rect.y, size: size, canvas: canvas)
                    }
                    guard let colorMap = descriptor.ColorMap ?? gif.pointee.SColorMap else {
                        throw .corrupt("frame \(frames + 1) has no colour table, local or global")
                    }
                    palette.initialize(repeating: 0xFF00_0000)
                    for i in 0..<min(256, Int(colorMap.pointee.ColorCount)) {
                        let color = colorMap.pointee.Colors[i]
                        palette[i] = 0xFF00_0000 | UInt32(color.Red) << 16 | UInt32(color.Green) << 8 | UInt32(color.Blue)
                    }
                    // The frame's rows, interlaced ones into their places.
                    let passes: [(Int, Int)] = descriptor.Interlace ? [(0, 8), (4, 8), (2, 4), (1, 2)] : [(0, 1)]
                    for (offset, jump) in passes {
                        for y in stride(from: offset, to: size.height, by: jump) {
                            guard DGifGetLine(gif, indices.baseAddress! + y * size.width, Int32(size.width)) == GIF_OK else {
                                throw GIFError(code: gif.pointee.Error, during: "decoding frame \(frames + 1), row \(y) of \(size.height)")
                            }
                        }
                    }
                    // Only now, with the whole frame read, does the screen change: a cut
                    // frame never shows half drawn.
                    if let disposal = pendingDisposal {
                        if disposal.mode == DISPOSE_BACKGROUND {
                            screen.canvas.fill(disposal.rect, with: .black)
                        } else if disposal.mode == DISPOSE_PREVIOUS, let saved {
                            _ = screen.pixels.update(from: UnsafeBufferPointer(saved.pixels))
                        }
                    }
                    if control.DisposalMode == DISPOSE_PREVIOUS {
                        let copy = saved ?? PixelImage(size: canvas)
                        _ = copy.pixels.update(from: UnsafeBufferPointer(screen.pixels))
                        saved = copy
                    }
                    let transparent = control.TransparentColor >= 0 ? Int(control.TransparentColor) : -1
                    for y in 0..<size.height {
                        let source = indices.baseAddress! + y * size.width
                        let target = screen.canvas.row(rect.y + y) + rect.x
                        for x in 0..<size.width {
                            let index = Int(source[x])
                            if index != transparent { target[x] = palette[index] }
                        }
                    }
                    frames += 1
                    pendingDisposal = (control.DisposalMode, rect)
                    let duration = Duration.milliseconds(Int64(control.DelayTime) * 10)
                    control = GraphicsControlBlock(DisposalMode: 0, UserInputFlag: false, DelayTime: 0, TransparentColor: -1)
                    guard frame(screen, duration) else { break records }
                case TERMINATE_RECORD_TYPE:
                    break records
                default:
                    throw .corrupt("an unknown record after frame \(frames)")
                }
            } catch {
                // Whole frames before a cut still play, as browsers play them; a cut in
                // the first frame, or damage anywhere, is an error.
                guard case .truncated = error, frames > 0 else { throw error }
                break records
            }
        }
        guard frames > 0 else { throw .corrupt("the file ends (its trailer) before any frame") }
        return AnimationInfo(canvas: canvas, frameCount: frames, plays: plays)
    }
}

extension Session {
    /// Reads an extension to its end: a Graphic Control Extension sets the next
    /// frame's `control`; a NETSCAPE2.0 (or ANIMEXTS1.0) application block sets
    /// `plays` (its loop count 0 is for ever; n repeats after the first play).
    func readExtension(control: inout GraphicsControlBlock, plays: inout Int?) throws(GIFError) {
        var code: Int32 = 0
        var block: UnsafeMutablePointer<GifByteType>?
        guard DGifGetExtension(gif, &code, &block) == GIF_OK else { throw GIFError(code: gif.pointee.Error, during: "reading an extension") }
        if code == GRAPHICS_EXT_FUNC_CODE, let block {
            var read = GraphicsControlBlock()
            if DGifExtensionToGCB(Int(block[0]), block + 1, &read) == GIF_OK { control = read }
        }
        var isLooping = false
        if code == APPLICATION_EXT_FUNC_CODE, let block, block[0] == 11 {
            let name = String(decoding: UnsafeBufferPointer(start: block + 1, count: 11), as: UTF8.self)
            isLooping = name == "NETSCAPE2.0" || name == "ANIMEXTS1.0"
        }
        while true {
            guard DGifGetExtensionNext(gif, &block) == GIF_OK else { throw GIFError(code: gif.pointee.Error, during: "reading an extension") }
            guard let data = block else { break }
            // The looping sub-block: its length (3), 1, then the count, little-endian.
            if isLooping, data[0] >= 3, data[1] == 1 {
                let count = Int(data[2]) | Int(data[3]) << 8
                plays = count == 0 ? nil : count + 1
            }
        }
    }
}

extension GIFDecoder {
    /// How many frames the GIF in `bytes` holds, read record by record with
    /// their image data skipped, not decoded (`DGifGetCode`/`DGifGetCodeNext`):
    /// what an animation's memory is planned from. Frames after a cut are not counted.
    public static func frameCount(_ bytes: UnsafeRawBufferPointer) throws(GIFError) -> Int {
        _ = try info(bytes)
        let session = try Session(bytes)
        defer { session.close() }
        var frames = 0
        while true {
            do throws(GIFError) {
                switch try session.recordType(during: "counting frames") {
                case IMAGE_DESC_RECORD_TYPE:
                    guard DGifGetImageDesc(session.gif) == GIF_OK else {
                        throw GIFError(code: session.gif.pointee.Error, during: "reading frame \(frames + 1)'s descriptor")
                    }
                    try session.skipImageData(during: "skipping frame \(frames + 1)")
                    frames += 1
                case EXTENSION_RECORD_TYPE: _ = try session.skipExtension()
                case TERMINATE_RECORD_TYPE: return frames
                default: throw .corrupt("an unknown record after frame \(frames)")
                }
            } catch {
                guard case .truncated = error, frames > 0 else { throw error }
                return frames
            }
        }
    }
}
