import Glibc
import VitrineCore
import VitrineJPEG
import VitrinePNG
import VitrineWebP
import VitrineGIF
import VitrineHEIF
import SystemPackage
import VitrineSystem

/// One picture turned into a ready-to-composite output frame.
public struct SlideRequest: Hashable, Sendable {
    /// The path as configured (for messages) and resolved (to read); nil while
    /// there is no local copy yet (a URL not downloaded).
    public var file: String
    public var resolvedPath: String?
    public var fit: FitMode
    public var background: RGBAColor
    public var output: PixelSize
    public var maxPixels: Int
    /// The slide's pan and zoom; nil for a still slide. A Ken Burns slide's frame
    /// is decoded finer than the output (`frameScale`), and the compositor shows
    /// the motion's rectangle of it at each refresh.
    public var kenBurns: KenBurnsMotion?
    /// How many times the output's width and height the frame is framed at, at
    /// most: 1 for a still slide; the motion's closest zoom for a Ken Burns
    /// one, unless `kenBurnsFramePixelLimit` holds it lower (`isHeadroomLimited`).
    public let frameScale: Double
    /// How long the slide plays if its file is a video; a picture ignores it.
    public var videoLength: VideoLength = .wholeVideo
    /// The highest average bitrate a video may have, in bits a second
    /// (`decode.maxVideoBitrate`); nil for none. A picture ignores it.
    public var maxVideoBitsPerSecond: Int?

    public init(file: String, resolvedPath: String?, fit: FitMode, background: RGBAColor, output: PixelSize, maxPixels: Int,
                kenBurns: KenBurnsMotion? = nil) {
        self.file = file
        self.resolvedPath = resolvedPath
        self.fit = fit
        self.background = background
        self.output = output
        self.maxPixels = maxPixels
        self.kenBurns = kenBurns
        frameScale = kenBurns.map { Self.headroom(forZoom: $0.largestZoom, output: output) } ?? 1
    }

    /// A request whose frame is framed `frameScale` times finer than `output`
    /// at most, without its motion: what a sandboxed decoder is sent, since
    /// the motion itself only matters to the compositor.
    public init(file: String, fit: FitMode, background: RGBAColor, output: PixelSize, maxPixels: Int, frameScale: Double) {
        self.file = file
        self.resolvedPath = nil
        self.fit = fit
        self.background = background
        self.output = output
        self.maxPixels = maxPixels
        self.kenBurns = nil
        self.frameScale = max(1, frameScale)
    }

    /// The most pixels a Ken Burns slide's frame may hold: 16 Mi, 64 MiB at
    /// 4 bytes a pixel. Zooms go to 2x, so a frame is also at most 4 output
    /// frames: at 1920x1080, a 2x zoom's 3840x2160 (31.6 MiB) fits; at
    /// 3840x2160 the bound holds the headroom to 1.42x (5461x3072), and the
    /// closest views are enlarged from it. With `decode.cacheSlides` frames
    /// held, this bounds a Ken Burns playlist's frames at 64 MiB each.
    public static let kenBurnsFramePixelLimit = 16 << 20

    /// How much finer than `output` a frame for a closest view of `zoom` is framed:
    /// the zoom, within `kenBurnsFramePixelLimit`, and never below 1.
    static func headroom(forZoom zoom: Double, output: PixelSize) -> Double {
        guard !output.isEmpty else { return 1 }
        let limit = (Double(kenBurnsFramePixelLimit) / Double(output.pixelCount)).squareRoot()
        return max(1, min(zoom, limit))
    }

    /// Whether `kenBurnsFramePixelLimit` holds this slide's frame below its closest zoom.
    public var isHeadroomLimited: Bool {
        guard let kenBurns else { return false }
        return frameScale < kenBurns.largestZoom - 1e-9
    }

    /// The size of the frame a picture of `picture` (upright) is framed into:
    /// the output's for a still slide; for a Ken Burns one up to `frameScale`
    /// times it, but no finer than the picture itself has detail for (a
    /// picture smaller than that is enlarged when shown, not when decoded).
    public func frameSize(picture: PixelSize) -> PixelSize {
        guard frameScale > 1, !picture.isEmpty, !output.isEmpty else { return output }
        let placement = SlideLayout.placement(of: picture, in: output, fit: fit)
        let detail = max(Double(picture.width) / Double(max(placement.width, 1)), Double(picture.height) / Double(max(placement.height, 1)))
        let scale = min(frameScale, detail)
        guard scale > 1 else { return output }
        return PixelSize(width: Int((Double(output.width) * scale).rounded(.down)), height: Int((Double(output.height) * scale).rounded(.down)))
    }
}

/// What one decode worker keeps from picture to picture: a libjpeg decoder and
/// scratch memory, so that after the first picture only the output frame is
/// new memory. Use from one thread at a time.
public final class SlideDecodingWorkspace {
    public let decoder: JPEGDecoder
    /// The whole decoded picture, for the pictures that cannot be streamed.
    let decoded = PixelStorage()
    /// One strip of decoded rows (`JPEGDecoder.decodeRows`).
    let strip = PixelStorage()
    let framing = FramingScratch()
    /// What libjpeg reads a file through (`JPEGSource.file`): the first read
    /// holds the headers for the marker scan, so a JPEG file is never in memory whole.
    let readBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 128 << 10, alignment: 64)

    public init() throws(JPEGError) {
        decoder = try JPEGDecoder()
    }

    deinit { readBuffer.deallocate() }
}

public enum SlideDecoding {
    /// Reads, decodes and frames a picture: DCT-scaled decode to the smallest
    /// size covering the visible area, then orientation, crop and area resample
    /// into an output-sized frame (`SlideFramer`).
    /// `frameStorage`, when given, is memory for the output frame (a recycled
    /// frame's); otherwise the frame is newly allocated.
    public static func frame(for request: SlideRequest, workspace: SlideDecodingWorkspace,
                             frameStorage: PixelStorage? = nil) throws(SlideError) -> PixelImage {
        try frameAndFile(for: request, workspace: workspace, frameStorage: frameStorage).frame
    }

    /// `frame(for:)`, and the file's bytes when it had to read them whole (every
    /// format but a JPEG whose headers fit the first read): an animation's
    /// frames are decoded from the same bytes (`picture(for:)`).
    static func frameAndFile(for request: SlideRequest, workspace: SlideDecodingWorkspace,
                             frameStorage: PixelStorage?) throws(SlideError) -> (frame: PixelImage, whole: [UInt8]?) {
        guard let path = request.resolvedPath else { throw SlideError(file: request.file, reason: .notDownloaded) }
        let file: OpenFile
        do {
            file = try OpenFile(path, O_RDONLY | O_CLOEXEC)
        } catch {
            throw SlideError(file: request.file, reason: .file(error))
        }
        return try frameAndFile(of: file, request: request, workspace: workspace, frameStorage: frameStorage)
    }

    /// `frameAndFile(for:)` from a file already open, read from its start: the
    /// sandboxed decoder is handed the file as a descriptor and may open nothing.
    public static func frameAndFile(of file: borrowing OpenFile, request: SlideRequest, workspace: SlideDecodingWorkspace,
                                    frameStorage: PixelStorage?) throws(SlideError) -> (frame: PixelImage, whole: [UInt8]?) {
        let (fd, path) = (file.descriptor, file.path)
        let prefilled: Int
        do {
            prefilled = try FileIO.read(fd, into: workspace.readBuffer, path: path)
        } catch {
            throw SlideError(file: request.file, reason: .file(error))
        }
        let head = UnsafeRawBufferPointer(rebasing: workspace.readBuffer[..<prefilled])
        let scan = Result { () throws(JPEGError) in try JPEGMarkerScanner.scan(head) }
        // A JPEG is decoded straight from the file. A PNG, a WebP, a GIF, a
        // HEIF, and a JPEG whose headers run past the first read (a large ICC
        // profile or thumbnail), are read whole, as libpng, libwebp, giflib's
        // memory reader, libheif (which checks every item lies within the file)
        // and the marker scan need.
        // The format is known by the first bytes, never by the file's name.
        let headersRunPast = { if case .failure(.truncated) = scan { prefilled == workspace.readBuffer.count } else { false } }()
        if headersRunPast || PNGCodec.hasSignature(Array(head.prefix(8))) || WebPDecoder.hasSignature(head)
            || GIFDecoder.hasSignature(head) || HEIFDecoder.hasSignature(head) {
            let whole: [UInt8]
            do throws(SystemError) {
                // From the start again: the first read above took the head.
                guard lseek(fd, 0, SEEK_SET) == 0 else { throw SystemError("lseek", subject: path) }
                whole = try FileIO.read(file)
            } catch {
                throw SlideError(file: request.file, reason: .file(error))
            }
            return (try frame(from: whole, request: request, workspace: workspace, frameStorage: frameStorage), whole)
        }
        do throws(JPEGError) {
            return (try jpegFrame(source: .file(descriptor: fd, buffer: workspace.readBuffer, prefilled: prefilled), info: scan.get(),
                                 request: request, workspace: workspace, frameStorage: frameStorage), nil)
        } catch .read(let errno) {
            throw SlideError(file: request.file, reason: .file(SystemError("read", errno: errno, subject: path)))
        } catch {
            throw SlideError(file: request.file, reason: .decode(error))
        }
    }

    public static func frame(from bytes: [UInt8], request: SlideRequest, workspace: SlideDecodingWorkspace,
                             frameStorage: PixelStorage? = nil) throws(SlideError) -> PixelImage {
        if PNGCodec.hasSignature(bytes) {
            do throws(PNGError) {
                return try pngFrame(bytes, request: request, workspace: workspace, frameStorage: frameStorage)
            } catch {
                throw SlideError(file: request.file, reason: .png(error))
            }
        }
        if WebPDecoder.hasSignature(bytes) {
            do throws(WebPError) {
                return try webpFrame(bytes, request: request, workspace: workspace, frameStorage: frameStorage)
            } catch {
                throw SlideError(file: request.file, reason: .webp(error))
            }
        }
        if GIFDecoder.hasSignature(bytes) {
            do throws(GIFError) {
                return try gifFrame(bytes, request: request, workspace: workspace, frameStorage: frameStorage)
            } catch {
                throw SlideError(file: request.file, reason: .gif(error))
            }
        }
        if HEIFDecoder.hasSignature(bytes) {
            do throws(HEIFError) {
                return try heifFrame(bytes, request: request, workspace: workspace, frameStorage: frameStorage)
            } catch {
                throw SlideError(file: request.file, reason: .heif(error))
            }
        }
        // withUnsafeBytes only rethrows untyped errors: carry the typed one out in a Result.
        let result = bytes.withUnsafeBytes { raw in
            Result { () throws(JPEGError) -> PixelImage in
                try jpegFrame(source: .memory(raw), info: JPEGMarkerScanner.scan(raw), request: request, workspace: workspace,
                              frameStorage: frameStorage)
            }
        }
        do throws(JPEGError) {
            return try result.get()
        } catch {
            throw SlideError(file: request.file, reason: .decode(error))
        }
    }

    /// The most memory one picture may take decoded whole, for the pictures
    /// that cannot be framed as they decode (an interlaced PNG; a JPEG that EXIF
    /// turns, at its DCT-scaled size), and the most libwebp may hold to decode
    /// a WebP (a lossless one's whole ARGB image, whatever the output size) or
    /// a HEIF (libheif has no scaler: the coded planes and the RGB). 256 MiB: a 64-megapixel interlaced PNG,
    /// or a turned photo framed for a 4K screen. With the display's decoder and
    /// an upload's inspection at most two run at once, which a 1 GB board with
    /// the unit's MemoryMax (60 % of RAM) holds beside everything else.
    public static let wholePictureByteLimit = 256 << 20

    /// Rows of a PNG are read in strips of about this many bytes.
    static let pngStripBytes = 256 << 10

    /// A PNG is framed row by row as libpng decodes it (`PNGRowReader`), so its
    /// memory is one strip whatever its size; an interlaced one is decoded whole
    /// (its passes each touch every row), within `wholePictureByteLimit`.
    private static func pngFrame(_ bytes: [UInt8], request: SlideRequest, workspace: SlideDecodingWorkspace,
                                 frameStorage: PixelStorage?) throws(PNGError) -> PixelImage {
        let reader = try PNGRowReader(bytes, maxPixels: request.maxPixels)
        if reader.isInterlaced {
            try requireWholeDecodeFits(reader.size, what: "an interlaced PNG")
            let picture = PixelImage(size: reader.size, storage: workspace.decoded)
            try reader.readImage(into: picture)
            let frame = outputFrame(for: request, picture: reader.size, storage: frameStorage)
            SlideFramer.frame(decoded: picture, orientation: .up, fit: request.fit, background: request.background,
                              into: frame.canvas, scratch: workspace.framing)
            return frame
        }
        return try streamedFrame(picture: reader.size, request: request, workspace: workspace, frameStorage: frameStorage) { consume throws(PNGError) in
            try readRows(of: reader, strip: workspace.strip, consume: consume)
        }
    }

    /// The frame of a picture whose rows arrive top to bottom, strip by strip:
    /// `decodeRows` hands each strip to the function it is given, which
    /// resamples it into the frame (`SlideFramer.streamingFrame`), so the
    /// picture never exists whole here.
    private static func streamedFrame<Failure: Error>(
        picture: PixelSize, request: SlideRequest, workspace: SlideDecodingWorkspace, frameStorage: PixelStorage?,
        decodeRows: (_ consume: (UnsafePointer<UInt32>, _ first: Int, _ count: Int) -> Void) throws(Failure) -> Void
    ) throws(Failure) -> PixelImage {
        let frame = outputFrame(for: request, picture: picture, storage: frameStorage)
        let stream = SlideFramer.streamingFrame(picture: picture, fit: request.fit, background: request.background,
                                                into: frame.canvas, scratch: workspace.framing)
        try decodeRows { rows, first, count in
            stream?.consume(rows: rows, first: first, count: count, stride: picture.width)
        }
        return frame
    }

    /// Reads every row of `reader` in strips over `strip`'s memory, handing each
    /// strip to `consume` (a picture off screen is still read to its end, so
    /// that a damaged file fails here and not on some later screen).
    public static func readRows(of reader: PNGRowReader, strip storage: PixelStorage,
                                consume: (UnsafePointer<UInt32>, _ first: Int, _ count: Int) -> Void) throws(PNGError) {
        let width = reader.size.width
        let rowsPerStrip = max(1, min(reader.size.height, pngStripBytes / max(1, width * 4)))
        let strip = PixelImage(size: PixelSize(width: width, height: rowsPerStrip), storage: storage)
        guard let base = strip.pixels.baseAddress else { return }
        var first = 0
        while first < reader.size.height {
            let count = min(rowsPerStrip, reader.size.height - first)
            try reader.readRows(into: base, count: count)
            consume(base, first, count)
            first += count
        }
    }

    /// Refuses a picture that would take more than `wholePictureByteLimit` decoded whole.
    public static func requireWholeDecodeFits(_ size: PixelSize, what: String) throws(PNGError) {
        let bytes = size.width.multipliedReportingOverflow(by: size.height * 4)
        guard bytes.overflow || bytes.partialValue > wholePictureByteLimit else { return }
        throw PNGError(message: "\(size.width)x\(size.height) is \(what), which is decoded whole: it would take \((bytes.partialValue + (1 << 19)) >> 20) MiB, "
                       + "more than the \(wholePictureByteLimit >> 20) MiB one picture may take; save it non-interlaced, or smaller")
    }

    /// The frame a picture of `picture` (upright) is drawn into, of
    /// `request.frameSize(picture:)`: over a recycled frame's memory, or fresh
    /// memory faulted in with one call (`MemoryPolicy.populate`).
    private static func outputFrame(for request: SlideRequest, picture: PixelSize, storage: PixelStorage?) -> PixelImage {
        let size = request.frameSize(picture: picture)
        if let storage { return PixelImage(size: size, storage: storage) }
        let frame = PixelImage(size: size)
        MemoryPolicy.populate(frame.pixels)
        return frame
    }

    /// A WebP is decoded whole by libwebp (`WebPDecode`), scaled by libwebp
    /// itself to the smallest size that covers the visible area (as a JPEG's
    /// DCT scaling does), then turned by its EXIF orientation and framed. A
    /// picture over `decode.maxPixels`, or one libwebp would hold whole in more
    /// than `wholePictureByteLimit` (a lossless one), is refused from its headers.
    /// An animation shows its first frame.
    private static func webpFrame(_ bytes: [UInt8], request: SlideRequest, workspace: SlideDecodingWorkspace,
                                  frameStorage: PixelStorage?) throws(WebPError) -> PixelImage {
        // withUnsafeBytes only rethrows untyped errors: carry the typed one out in a Result.
        let result = bytes.withUnsafeBytes { raw in
            Result { () throws(WebPError) -> PixelImage in
                let info = try WebPDecoder.info(raw)
                let target = SlideFramer.decodeTarget(picture: info.uprightSize, orientation: info.orientation,
                                                      output: request.frameSize(picture: info.uprightSize), fit: request.fit)
                let decoded = try WebPDecoder.decode(raw, covering: target, maxPixels: request.maxPixels,
                                                     decoderByteLimit: wholePictureByteLimit, into: workspace.decoded)
                let frame = outputFrame(for: request, picture: info.uprightSize, storage: frameStorage)
                SlideFramer.frame(decoded: decoded.image, orientation: decoded.info.orientation, fit: request.fit,
                                  background: request.background, into: frame.canvas, scratch: workspace.framing)
                return frame
            }
        }
        return try result.get()
    }

    /// A GIF's first frame is framed row by row as giflib decodes it
    /// (`GIFDecoder.decodeRows` into `SlideFramer.streamingFrame`): giflib has
    /// no scaler, so its logical screen is resampled to the visible area a
    /// strip at a time and never exists whole. A logical screen or frame over
    /// `decode.maxPixels` is refused from the headers, before the frame's memory
    /// is taken; an interlaced frame's colour indices (one byte a pixel) are
    /// held whole, within `wholePictureByteLimit`.
    private static func gifFrame(_ bytes: [UInt8], request: SlideRequest, workspace: SlideDecodingWorkspace,
                                 frameStorage: PixelStorage?) throws(GIFError) -> PixelImage {
        // withUnsafeBytes only rethrows untyped errors: carry the typed one out in a Result.
        let result = bytes.withUnsafeBytes { raw in
            Result { () throws(GIFError) -> PixelImage in
                let info = try GIFDecoder.info(raw)
                try GIFDecoder.requireWithinLimit(info.size, maxPixels: request.maxPixels)
                return try streamedFrame(picture: info.size, request: request, workspace: workspace,
                                         frameStorage: frameStorage) { consume throws(GIFError) in
                    try GIFDecoder.decodeRows(raw, maxPixels: request.maxPixels, decoderByteLimit: wholePictureByteLimit,
                                              strip: workspace.strip, consume: consume)
                }
            }
        }
        return try result.get()
    }

    /// A HEIF's primary image is decoded whole by libheif, which has no scaler
    /// and applies the file's own transforms (`irot`, `imir`, `clap`; never its
    /// EXIF orientation, which HEIF's transforms override), then resampled
    /// into the visible area strip by strip as its rows are converted to XRGB
    /// (`HEIFDecoder.decodeRows` into `SlideFramer.streamingFrame`): the
    /// upright size is the transformed one, so the framing needs no turn. A
    /// picture over `decode.maxPixels`, or whose decode libheif would hold in
    /// more than `wholePictureByteLimit`, is refused from its boxes.
    private static func heifFrame(_ bytes: [UInt8], request: SlideRequest, workspace: SlideDecodingWorkspace,
                                  frameStorage: PixelStorage?) throws(HEIFError) -> PixelImage {
        // withUnsafeBytes only rethrows untyped errors: carry the typed one out in a Result.
        let result = bytes.withUnsafeBytes { raw in
            Result { () throws(HEIFError) -> PixelImage in
                let info = try HEIFDecoder.info(raw)
                try HEIFDecoder.requireWithinLimits(info, maxPixels: request.maxPixels, decoderByteLimit: wholePictureByteLimit)
                return try streamedFrame(picture: info.size, request: request, workspace: workspace,
                                         frameStorage: frameStorage) { consume throws(HEIFError) in
                    try HEIFDecoder.decodeRows(raw, maxPixels: request.maxPixels, decoderByteLimit: wholePictureByteLimit,
                                               strip: workspace.strip, consume: consume)
                }
            }
        }
        return try result.get()
    }

    /// An upright JPEG is resampled into its frame strip by strip as libjpeg
    /// decodes it (`SlideFramer.streamingFrame`), so the decoded picture never
    /// exists whole; a picture that EXIF turns is decoded whole, turned, then framed.
    private static func jpegFrame(source: JPEGSource, info: JPEGInfo, request: SlideRequest, workspace: SlideDecodingWorkspace,
                                  frameStorage: PixelStorage?) throws(JPEGError) -> PixelImage {
        let target = SlideFramer.decodeTarget(picture: info.uprightSize, orientation: info.orientation,
                                              output: request.frameSize(picture: info.uprightSize), fit: request.fit)
        let plan = try JPEGDecoder.plan(for: info, covering: target, maxPixels: request.maxPixels)
        let frame = outputFrame(for: request, picture: info.uprightSize, storage: frameStorage)
        guard info.orientation == .up else {
            let decoded = try workspace.decoder.decode(source, plan: plan, into: workspace.decoded)
            SlideFramer.frame(decoded: decoded.image, orientation: info.orientation, fit: request.fit,
                              background: request.background, into: frame.canvas, scratch: workspace.framing)
            return frame
        }
        let stream = SlideFramer.streamingFrame(picture: plan.size, fit: request.fit, background: request.background,
                                                into: frame.canvas, scratch: workspace.framing)
        try workspace.decoder.decodeRows(source, plan: plan, strip: workspace.strip) { rows, first, count in
            stream?.consume(rows: rows, first: first, count: count, stride: plan.size.width)
        }
        return frame
    }
}
