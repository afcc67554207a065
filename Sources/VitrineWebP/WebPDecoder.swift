internal import CLibWebP
import VitrineCore

/// What a WebP file's headers say, read without decoding its pixels.
public struct WebPInfo: Hashable, Sendable {
    public enum Compression: String, Hashable, Sendable {
        /// VP8 (with an `ALPH` chunk when it has alpha).
        case lossy
        /// VP8L.
        case lossless
        /// An animation, whose frames may each be either.
        case mixed
    }

    /// The stored size: the canvas of a VP8X file, else the VP8 or VP8L frame's.
    public var size: PixelSize
    public var hasAlpha: Bool
    /// Whether it is an animation; only its first frame is ever shown.
    public var isAnimated: Bool
    public var compression: Compression
    /// From the `EXIF` chunk of a VP8X file; `.up` without one.
    public var orientation: ExifOrientation
    /// The size shown, after `orientation`.
    public var uprightSize: PixelSize { orientation.displaySize(forStored: size) }

    public init(size: PixelSize, hasAlpha: Bool, isAnimated: Bool, compression: Compression, orientation: ExifOrientation) {
        self.size = size
        self.hasAlpha = hasAlpha
        self.isAnimated = isAnimated
        self.compression = compression
        self.orientation = orientation
    }
}

/// A decoded picture in stored orientation, at the size libwebp scaled it to.
public struct DecodedWebP: Sendable {
    public let image: PixelImage
    public let info: WebPInfo
}

/// WebP still pictures through libwebp, and the first frame of an animated
/// WebP through libwebpdemux, into XRGB8888.
///
/// libwebp returns a `VP8StatusCode` from every call (no longjmp), and
/// `WebPDecode` decodes a whole buffer or fails: a damaged or truncated file is
/// a `WebPError`, never part of a picture. A picture's alpha is composited onto
/// black, as `PNGCodec.decode` does (libwebp's premultiplied `MODE_bgrA`).
public enum WebPDecoder {
    /// Whether `bytes` start as a WebP file does: "RIFF", a 4-byte size, "WEBP".
    /// The format is known by these bytes only, never by a file's name.
    public static func hasSignature(_ bytes: some Collection<UInt8>) -> Bool {
        let head = Array(bytes.prefix(12))
        return head.count == 12 && head[0..<4].elementsEqual("RIFF".utf8) && head[8..<12].elementsEqual("WEBP".utf8)
    }

    /// Reads the headers of the WebP file in `bytes`, which may be only the
    /// start of the file (`WebPGetFeatures`, which parses the RIFF, VP8X and
    /// VP8/VP8L headers). The orientation comes from the `EXIF` chunk when the
    /// VP8X header announces one and it is within `bytes`
    /// (`WebPDemuxPartial`, `WebPDemuxGetChunk`).
    ///
    /// - Throws: `WebPError.notWebP` without the signature; libwebp's status
    ///   as a `WebPError` when the headers are damaged or cut short.
    public static func info(_ bytes: UnsafeRawBufferPointer) throws(WebPError) -> WebPInfo {
        guard !bytes.isEmpty else { throw .empty }
        guard hasSignature(bytes) else { throw .notWebP }
        var features = WebPBitstreamFeatures()
        let status = WebPGetFeatures(bytes.baseAddress!.assumingMemoryBound(to: UInt8.self), bytes.count, &features)
        guard status == VP8_STATUS_OK else { throw WebPError(status: status, during: "reading the headers") }
        guard features.width > 0, features.height > 0 else { throw .corrupt("the headers give no size") }
        let compression: WebPInfo.Compression = switch features.format {
        case 1: .lossy
        case 2: .lossless
        default: .mixed
        }
        return WebPInfo(size: PixelSize(width: Int(features.width), height: Int(features.height)), hasAlpha: features.has_alpha != 0,
                        isAnimated: features.has_animation != 0, compression: compression, orientation: orientation(bytes))
    }

    /// VP8X's flag for an `EXIF` chunk (WebP container specification).
    private static let exifFlag: UInt8 = 0x08

    /// The orientation in the `EXIF` chunk, if the VP8X header announces one
    /// and `bytes` reach it; `.up` otherwise (damaged Exif is no orientation, as for a JPEG).
    private static func orientation(_ bytes: UnsafeRawBufferPointer) -> ExifOrientation {
        // "RIFF" size "WEBP" "VP8X" chunk-size flags: the flags byte is at offset 20.
        guard bytes.count > 20, bytes[12..<16].elementsEqual("VP8X".utf8), bytes[20] & exifFlag != 0 else { return .up }
        var data = WebPData(bytes: bytes.baseAddress!.assumingMemoryBound(to: UInt8.self), size: bytes.count)
        var state = WEBP_DEMUX_PARSING_HEADER
        guard let demuxer = WebPDemuxPartial(&data, &state) else { return .up }
        defer { WebPDemuxDelete(demuxer) }
        var chunk = WebPChunkIterator()
        guard WebPDemuxGetChunk(demuxer, "EXIF", 1, &chunk) != 0 else { return .up }
        defer { WebPDemuxReleaseChunkIterator(&chunk) }
        guard let base = chunk.chunk.bytes else { return .up }
        return ExifReader.orientation(inWebPChunk: UnsafeRawBufferPointer(start: base, count: chunk.chunk.size)) ?? .up
    }

    /// The size libwebp's scaler is asked for (`WebPDecoderOptions.scaled_width`,
    /// `scaled_height`): the smallest that still covers `target` in both
    /// directions, keeping the picture's shape, so the framing that follows only
    /// ever shrinks; `source` itself when the target is not smaller, or nil.
    public static func scaledSize(decoding source: PixelSize, covering target: PixelSize?) -> PixelSize {
        source.scaledDown(covering: target)
    }

    /// The bytes libwebp holds while it decodes a picture of `size`: a lossless
    /// picture's whole ARGB image (4 bytes a pixel), a lossy one's alpha plane
    /// (1 byte a pixel); a lossy picture's colour is decoded a few rows at a time.
    public static func decoderBytes(_ info: WebPInfo) -> Int {
        let (pixels, overflow) = info.size.width.multipliedReportingOverflow(by: info.size.height)
        if overflow { return .max }
        switch info.compression {
        case .lossless, .mixed: return pixels.multipliedReportingOverflow(by: 4).overflow ? .max : pixels * 4
        case .lossy: return info.hasAlpha ? pixels : 0
        }
    }

    /// Decodes `bytes`, the whole file, to the smallest size covering `target`
    /// (a size in stored orientation; nil decodes at full size) with libwebp's
    /// own scaler: `WebPDecode` with a `WebPDecoderConfig` whose options set
    /// `use_scaling`, `scaled_width` and `scaled_height`, into `MODE_bgrA`
    /// output written straight into the picture's memory (`is_external_memory`).
    /// An animation's first frame is decoded (`WebPDemux`, `WebPDemuxGetFrame`)
    /// and placed on its canvas, the rest of which is black.
    ///
    /// - Throws: `WebPError.tooManyPixels` when the stored size exceeds
    ///   `maxPixels`, and `.tooLargeToDecode` when libwebp would hold more than
    ///   `decoderByteLimit` bytes (`decoderBytes`), both from the headers
    ///   before anything is allocated; libwebp's status as a `WebPError` otherwise.
    ///
    /// With `storage`, the picture is decoded into that memory (grown if needed)
    /// instead of a fresh allocation; see `PixelStorage`.
    public static func decode(_ bytes: UnsafeRawBufferPointer, covering target: PixelSize?, maxPixels: Int,
                              decoderByteLimit: Int = .max, into storage: PixelStorage? = nil) throws(WebPError) -> DecodedWebP {
        let info = try info(bytes)
        let (pixels, overflow) = info.size.width.multipliedReportingOverflow(by: info.size.height)
        guard !overflow, pixels <= maxPixels else { throw .tooManyPixels(size: info.size, limit: maxPixels) }
        if !info.isAnimated, decoderBytes(info) > decoderByteLimit {
            throw .tooLargeToDecode(size: info.size, bytes: decoderBytes(info), limit: decoderByteLimit)
        }
        let size = scaledSize(decoding: info.size, covering: target)
        let image = storage.map { PixelImage(size: size, storage: $0) } ?? PixelImage(size: size)
        let output = image.pixels.baseAddress!
        if info.isAnimated {
            try decodeFirstFrame(bytes, canvas: info.size, into: output, scaled: size, decoderByteLimit: decoderByteLimit)
        } else {
            try decode(bytes, into: output, stride: size.width, scaled: size, source: info.size, step: "decoding the picture")
        }
        // Premultiplied: alpha is already composited onto black; the X byte is set.
        for i in 0..<size.pixelCount { output[i] |= 0xFF00_0000 }
        return DecodedWebP(image: image, info: info)
    }

    /// `WebPDecode` of `bytes` (a whole file, or a frame's `ALPH`/`VP8 `/`VP8L`
    /// chunks) into `scaled` pixels at `output`, `stride` pixels a row.
    private static func decode(_ bytes: UnsafeRawBufferPointer, into output: UnsafeMutablePointer<UInt32>, stride: Int,
                               scaled: PixelSize, source: PixelSize, step: String) throws(WebPError) {
        var config = WebPDecoderConfig()
        guard WebPInitDecoderConfig(&config) != 0 else { throw .invalidParameter("WebPInitDecoderConfig: libwebp's ABI differs from its header") }
        if scaled != source {
            config.options.use_scaling = 1
            config.options.scaled_width = Int32(scaled.width)
            config.options.scaled_height = Int32(scaled.height)
        }
        config.output.colorspace = MODE_bgrA
        config.output.is_external_memory = 1
        config.output.u.RGBA.rgba = UnsafeMutableRawPointer(output).assumingMemoryBound(to: UInt8.self)
        config.output.u.RGBA.stride = Int32(stride * 4)
        config.output.u.RGBA.size = (scaled.height - 1) * stride * 4 + scaled.width * 4
        let status = WebPDecode(bytes.baseAddress!.assumingMemoryBound(to: UInt8.self), bytes.count, &config)
        WebPFreeDecBuffer(&config.output)
        guard status == VP8_STATUS_OK else { throw WebPError(status: status, during: step) }
    }

    /// Why libwebpdemux refused the container in `data` (`refusedBy` names the
    /// call): parsed again partially (`WebPDemuxPartial`), a container that
    /// stops while its headers or frames are still being read was cut short;
    /// otherwise it is damaged.
    static func containerError(_ data: inout WebPData, refusedBy call: String) -> WebPError {
        var state = WEBP_DEMUX_PARSING_HEADER
        if let partial = WebPDemuxPartial(&data, &state) { WebPDemuxDelete(partial) }
        if state == WEBP_DEMUX_PARSING_HEADER || state == WEBP_DEMUX_PARSED_HEADER {
            return .truncated("the file ends before the animation does (\(call))")
        }
        return .corrupt("the animation's container is damaged (\(call))")
    }

    /// An animation's first frame on a black canvas of `scaled` size: the frame
    /// scaled as the canvas is, at its scaled offset. The animation's
    /// container is parsed whole (`WebPDemux`), so a file cut short fails
    /// even when its first frame is complete.
    private static func decodeFirstFrame(_ bytes: UnsafeRawBufferPointer, canvas: PixelSize, into output: UnsafeMutablePointer<UInt32>,
                                         scaled: PixelSize, decoderByteLimit: Int) throws(WebPError) {
        var data = WebPData(bytes: bytes.baseAddress!.assumingMemoryBound(to: UInt8.self), size: bytes.count)
        guard let demuxer = WebPDemux(&data) else { throw containerError(&data, refusedBy: "WebPDemux") }
        defer { WebPDemuxDelete(demuxer) }
        var frame = WebPIterator()
        guard WebPDemuxGetFrame(demuxer, 1, &frame) != 0, let fragment = frame.fragment.bytes, frame.complete != 0 else {
            throw .corrupt("the animation has no complete first frame (WebPDemuxGetFrame)")
        }
        defer { WebPDemuxReleaseIterator(&frame) }
        let frameBytes = UnsafeRawBufferPointer(start: fragment, count: frame.fragment.size)
        var features = WebPBitstreamFeatures()
        let status = WebPGetFeatures(fragment, frame.fragment.size, &features)
        guard status == VP8_STATUS_OK else { throw WebPError(status: status, during: "reading the first frame's headers") }
        let frameSize = PixelSize(width: Int(features.width), height: Int(features.height))
        let frameInfo = WebPInfo(size: frameSize, hasAlpha: features.has_alpha != 0, isAnimated: false,
                                 compression: features.format == 2 ? .lossless : .lossy, orientation: .up)
        if decoderBytes(frameInfo) > decoderByteLimit {
            throw .tooLargeToDecode(size: frameSize, bytes: decoderBytes(frameInfo), limit: decoderByteLimit)
        }
        // The frame's rectangle on the scaled canvas: its edges scaled, rounded outwards.
        let x0 = Int(frame.x_offset) * scaled.width / canvas.width
        let y0 = Int(frame.y_offset) * scaled.height / canvas.height
        let x1 = min(scaled.width, ((Int(frame.x_offset) + frameSize.width) * scaled.width + canvas.width - 1) / canvas.width)
        let y1 = min(scaled.height, ((Int(frame.y_offset) + frameSize.height) * scaled.height + canvas.height - 1) / canvas.height)
        output.initialize(repeating: 0, count: scaled.pixelCount)
        guard x1 > x0, y1 > y0 else { return }
        try decode(frameBytes, into: output + y0 * scaled.width + x0, stride: scaled.width,
                   scaled: PixelSize(width: x1 - x0, height: y1 - y0), source: frameSize, step: "decoding the first frame")
    }
}
