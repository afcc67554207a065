internal import CLibWebP
import VitrineCore

extension WebPDecoder {
    /// Decodes every frame of the animated WebP in `bytes` onto its canvas,
    /// composed as libwebp composes them (each frame's blending and disposal),
    /// and hands each canvas to `frame` with how long it shows. The canvas is
    /// one image reused for every frame: `frame` copies what it keeps.
    ///
    /// libwebpdemux's animation decoder does the work: `WebPAnimDecoderNew`
    /// (which parses the whole container, so a file cut short fails here),
    /// `WebPAnimDecoderGetInfo`, `WebPAnimDecoderGetNext` (premultiplied
    /// `MODE_bgrA`: alpha composited onto black, as for a still) and
    /// `WebPAnimDecoderDelete`. Each frame's duration is the difference of
    /// the end timestamps it returns.
    ///
    /// The result's `plays` is the ANIM chunk's loop count: nil for ever (0).
    ///
    /// - Parameter frame: returns false to stop (its caller's budget is spent).
    /// - Throws: `.tooManyPixels` for a canvas over `maxPixels`, and
    ///   `.tooLargeToDecode` when libwebp's canvases (the one shown, the one
    ///   before it, and a frame's decode: about 12 bytes a pixel) would take more
    ///   than `decoderByteLimit`, both before anything is allocated;
    ///   `.truncated`/`.corrupt` when libwebp refuses the container or a frame.
    @discardableResult
    public static func decodeAnimation(_ bytes: UnsafeRawBufferPointer, maxPixels: Int, decoderByteLimit: Int,
                                       frame: (_ canvas: PixelImage, _ duration: Duration) -> Bool) throws(WebPError) -> AnimationInfo {
        let header = try info(bytes)
        let (pixels, overflow) = header.size.width.multipliedReportingOverflow(by: header.size.height)
        guard !overflow, pixels <= maxPixels else { throw .tooManyPixels(size: header.size, limit: maxPixels) }
        let decoderBytes = pixels * 12
        guard decoderBytes <= decoderByteLimit else {
            throw .tooLargeToDecode(size: header.size, bytes: decoderBytes, limit: decoderByteLimit)
        }
        var options = WebPAnimDecoderOptions()
        guard WebPAnimDecoderOptionsInit(&options) != 0 else {
            throw .invalidParameter("WebPAnimDecoderOptionsInit: libwebpdemux's ABI differs from its header")
        }
        options.color_mode = MODE_bgrA
        options.use_threads = 0
        var data = WebPData(bytes: bytes.baseAddress!.assumingMemoryBound(to: UInt8.self), size: bytes.count)
        guard let decoder = WebPAnimDecoderNew(&data, &options) else {
            throw containerError(&data, refusedBy: "WebPAnimDecoderNew")
        }
        defer { WebPAnimDecoderDelete(decoder) }
        var animation = WebPAnimInfo()
        guard WebPAnimDecoderGetInfo(decoder, &animation) != 0 else { throw .corrupt("the animation's header (WebPAnimDecoderGetInfo)") }
        let canvas = PixelSize(width: Int(animation.canvas_width), height: Int(animation.canvas_height))
        guard canvas == header.size else { throw .corrupt("the canvas is \(canvas), the header says \(header.size)") }
        let image = PixelImage(size: canvas)
        let output = image.pixels.baseAddress!
        var frames = 0
        var previousEnd: Int32 = 0
        while WebPAnimDecoderHasMoreFrames(decoder) != 0 {
            var buffer: UnsafeMutablePointer<UInt8>?
            var end: Int32 = 0
            guard WebPAnimDecoderGetNext(decoder, &buffer, &end) != 0, let buffer else {
                throw .corrupt("frame \(frames + 1) of \(animation.frame_count) cannot be decoded (WebPAnimDecoderGetNext)")
            }
            // Premultiplied BGRA is XRGB in memory once the X byte is set.
            UnsafeMutableRawPointer(output).copyMemory(from: buffer, byteCount: canvas.pixelCount * 4)
            for i in 0..<canvas.pixelCount { output[i] |= 0xFF00_0000 }
            frames += 1
            let duration = Duration.milliseconds(Int64(max(0, end - previousEnd)))
            previousEnd = end
            guard frame(image, duration) else { break }
        }
        guard frames > 0 else { throw .corrupt("the animation has no frames") }
        return AnimationInfo(canvas: canvas, frameCount: frames, plays: animation.loop_count == 0 ? nil : Int(animation.loop_count))
    }
}

extension WebPDecoder {
    /// How many frames the animated WebP in `bytes` (the whole file) holds, from
    /// its container (`WebPDemux`, `WebPDemuxGetI(WEBP_FF_FRAME_COUNT)`); nil
    /// when the container cannot be parsed (decoding then says why).
    public static func animationFrameCount(_ bytes: UnsafeRawBufferPointer) -> Int? {
        var data = WebPData(bytes: bytes.baseAddress!.assumingMemoryBound(to: UInt8.self), size: bytes.count)
        guard let demuxer = WebPDemux(&data) else { return nil }
        defer { WebPDemuxDelete(demuxer) }
        return Int(WebPDemuxGetI(demuxer, WEBP_FF_FRAME_COUNT))
    }
}
