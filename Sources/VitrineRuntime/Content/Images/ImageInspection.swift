import VitrineCore
import VitrineJPEG
import VitrinePNG
import VitrineWebP
import VitrineGIF
import VitrineHEIF
import VitrineSystem

/// What an uploaded or downloaded picture is, proven by decoding all of it.
public struct InspectedImage: Hashable, Sendable {
    public enum Kind: String, Sendable {
        case jpeg, png, webp, gif, heif
        /// Videos: MP4 (or QuickTime), WebM, and other Matroska.
        case mp4, webm, matroska

        /// The media type the picture or video is served as.
        public var contentType: String {
            switch self {
            case .jpeg: "image/jpeg"
            case .png: "image/png"
            case .webp: "image/webp"
            case .gif: "image/gif"
            case .heif: "image/heif"
            case .mp4: "video/mp4"
            case .webm: "video/webm"
            case .matroska: "video/x-matroska"
            }
        }

        /// The kind of a video FFmpeg opened: its demuxer, and for Matroska whether its codec is one WebM allows.
        public init(video: VideoInfo) {
            if video.container.contains("mp4") || video.container.contains("mov") {
                self = .mp4
            } else if ["vp8", "vp9", "av1"].contains(video.codec) {
                self = .webm
            } else {
                self = .matroska
            }
        }

        public var isVideo: Bool {
            switch self {
            case .mp4, .webm, .matroska: true
            case .jpeg, .png, .webp, .gif, .heif: false
            }
        }
    }
    public var kind: Kind
    /// Upright size (after EXIF orientation; a HEIF's after its own transforms).
    public var size: PixelSize

    public var contentType: String { kind.contentType }

    public init(kind: Kind, size: PixelSize) {
        self.kind = kind
        self.size = size
    }
}

/// Sniffs and fully decodes a picture before the kiosk accepts it, so that a
/// picture on a slide never fails for a reason the upload could have shown.
public enum ImageInspection {
    public enum Failure: Error, Hashable, Sendable {
        /// Not a JPEG, PNG, WebP, GIF or HEIF by its first bytes (415).
        case notAnImage(String)
        /// A JPEG, PNG, WebP, GIF or HEIF that does not decode (422), with the decoder's reason.
        case undecodable(String)
        /// A picture with more pixels than the configuration's `decode.maxPixels`
        /// (409: a conflict with the kiosk's configuration, not a fault of the picture).
        case overPixelLimit(String)
        /// A video whose average bitrate is over the configuration's
        /// `decode.maxVideoBitrate` (409, as for `overPixelLimit`).
        case overBitrateLimit(String)
    }

    public static func inspect(_ bytes: [UInt8], maxPixels: Int) throws(Failure) -> InspectedImage {
        // withUnsafeBytes rethrows untyped errors: carry the typed one out in a Result.
        try bytes.withUnsafeBytes { raw in
            Result { () throws(Failure) in
                try inspect(raw, maxPixels: maxPixels) { limit throws(PNGError) in try PNGRowReader(bytes, maxPixels: limit) }
            }
        }.get()
    }

    /// Inspects a picture on disk, mapped rather than read: an upload staged as it
    /// arrived is decoded without being copied into memory.
    public static func inspect(_ file: MappedFile, maxPixels: Int) throws(Failure) -> InspectedImage {
        try inspect(file.bytes, maxPixels: maxPixels) { limit throws(PNGError) in
            try PNGRowReader(borrowing: file.bytes, owner: file, maxPixels: limit)
        }
    }

    private static func inspect(_ bytes: UnsafeRawBufferPointer, maxPixels: Int,
                                pngReader: (Int) throws(PNGError) -> PNGRowReader) throws(Failure) -> InspectedImage {
        if bytes.starts(with: [0xFF, 0xD8, 0xFF]) {
            do throws(JPEGError) {
                let decoder = try JPEGDecoder()
                // The smallest DCT scale still entropy-decodes every block, so a
                // damaged or truncated file fails here, at an eighth of the memory.
                let decoded = try decoder.decode(bytes, covering: PixelSize(width: 1, height: 1), maxPixels: maxPixels)
                return InspectedImage(kind: .jpeg, size: decoded.info.uprightSize)
            } catch {
                if case .tooManyPixels = error { throw .overPixelLimit("\(error)") }
                throw .undecodable("\(error)")
            }
        }
        if PNGCodec.hasSignature(bytes) {
            // IHDR comes first: width and height at bytes 16 to 23, big-endian.
            if bytes.count >= 24 {
                let field = { (offset: Int) in bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) } }
                let (width, height) = (field(16), field(20))
                let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
                if overflow || pixels > maxPixels {
                    throw .overPixelLimit("picture is \(width)x\(height), over the limit of \(maxPixels) pixels (decode.maxPixels)")
                }
            }
            do throws(PNGError) {
                // Every row decoded (each CRC and the whole zlib stream checked), a
                // strip at a time: an upload of any size costs one strip of memory.
                let reader = try pngReader(maxPixels)
                if reader.isInterlaced {
                    try SlideDecoding.requireWholeDecodeFits(reader.size, what: "an interlaced PNG")
                    try reader.readImage(into: PixelImage(size: reader.size))
                } else {
                    try SlideDecoding.readRows(of: reader, strip: PixelStorage()) { _, _, _ in }
                }
                return InspectedImage(kind: .png, size: reader.size)
            } catch {
                throw .undecodable("\(error)")
            }
        }
        if WebPDecoder.hasSignature(bytes) {
            do throws(WebPError) {
                // All of it decoded (an animation: its container and first
                // frame), scaled by libwebp to a few pixels: a damaged or
                // truncated file fails here. A lossless picture is held whole
                // inside libwebp, within the limit the display's decode has.
                let decoded = try WebPDecoder.decode(bytes, covering: PixelSize(width: 1, height: 1), maxPixels: maxPixels,
                                                     decoderByteLimit: SlideDecoding.wholePictureByteLimit)
                // An animation plays every frame: each is decoded, and damage in any is refused.
                if decoded.info.isAnimated {
                    do {
                        try WebPDecoder.decodeAnimation(bytes, maxPixels: maxPixels, decoderByteLimit: SlideDecoding.wholePictureByteLimit) { _, _ in true }
                    } catch .tooLargeToDecode {
                        // Too large to play: the display shows its first frame, decoded above.
                    }
                }
                return InspectedImage(kind: .webp, size: decoded.info.uprightSize)
            } catch {
                if case .tooManyPixels = error { throw .overPixelLimit("\(error)") }
                throw .undecodable("\(error)")
            }
        }
        if GIFDecoder.hasSignature(bytes) {
            do throws(GIFError) {
                // The first frame decoded a strip at a time and thrown away,
                // and the rest of the file read to its trailer: a damaged or
                // truncated file fails here, in one strip of memory (an
                // interlaced frame: its indices, within the display's limit).
                let frame = try GIFDecoder.decodeRows(bytes, maxPixels: maxPixels, decoderByteLimit: SlideDecoding.wholePictureByteLimit,
                                                      strip: PixelStorage()) { _, _, _ in }
                // An animation plays every frame: each is decoded and composed (the
                // skip above reads later frames' data without decoding it), and
                // damage in any is refused.
                if frame.isAnimated {
                    do {
                        try GIFDecoder.decodeAnimation(bytes, maxPixels: maxPixels, decoderByteLimit: SlideDecoding.wholePictureByteLimit) { _, _ in true }
                    } catch .tooLargeToDecode {
                        // Too large to play: the display shows its first frame, decoded above.
                    }
                }
                return InspectedImage(kind: .gif, size: frame.canvas)
            } catch {
                if case .tooManyPixels = error { throw .overPixelLimit("\(error)") }
                throw .undecodable("\(error)")
            }
        }
        if HEIFDecoder.hasSignature(bytes) {
            do throws(HEIFError) {
                // The primary image decoded whole by libheif (it has no
                // scaler), within the display's limit, its rows converted a
                // strip at a time and thrown away: a damaged or truncated
                // file fails here.
                let info = try HEIFDecoder.decodeRows(bytes, maxPixels: maxPixels, decoderByteLimit: SlideDecoding.wholePictureByteLimit,
                                                      strip: PixelStorage()) { _, _, _ in }
                return InspectedImage(kind: .heif, size: info.size)
            } catch {
                if case .tooManyPixels = error { throw .overPixelLimit("\(error)") }
                throw .undecodable("\(error)")
            }
        }
        throw .notAnImage("\(notAnImage) (it starts with \(describeStart(bytes)))")
    }

    /// What a picture of none of the five formats is called.
    public static let notAnImage = "not a JPEG, PNG, WebP, GIF or HEIF picture"

    /// A small PNG of the picture, at most `bounds`, keeping its shape.
    /// The picture is decoded once, straight to the thumbnail's size: its size
    /// comes from the header (the asset was inspected whole when it was stored).
    public static func thumbnail(_ bytes: [UInt8], bounds: PixelSize, maxPixels: Int) throws -> [UInt8] {
        let picture = try uprightSize(of: bytes)
        let (pixels, overflow) = picture.width.multipliedReportingOverflow(by: picture.height)
        if overflow || pixels > maxPixels {
            // The configuration's limit changed since the picture was stored.
            throw Failure.overPixelLimit("picture is \(picture.width)x\(picture.height), over the limit of \(maxPixels) pixels (decode.maxPixels)")
        }
        let scale = min(Double(bounds.width) / Double(picture.width), Double(bounds.height) / Double(picture.height), 1)
        let size = PixelSize(width: max(1, Int((Double(picture.width) * scale).rounded())),
                             height: max(1, Int((Double(picture.height) * scale).rounded())))
        let request = SlideRequest(file: "thumbnail", resolvedPath: nil, fit: .contain, background: .black, output: size, maxPixels: maxPixels)
        let frame = try SlideDecoding.frame(from: bytes, request: request, workspace: try SlideDecodingWorkspace())
        return try PNGCodec.encode(frame, fast: true)
    }

    /// The upright size from the headers alone: a JPEG's markers (SOF, EXIF
    /// orientation), a PNG's IHDR, a WebP's RIFF, VP8X and VP8/VP8L headers
    /// (`WebPDecoder.info`: `WebPGetFeatures`, and its EXIF chunk when `bytes` reach it),
    /// a GIF's logical screen descriptor (`GIFDecoder.info`: bytes 6 to 9, little-endian),
    /// or a HEIF's boxes (`HEIFDecoder.info`: the primary image's size after its
    /// transforms), which libheif reads only when every item's data lies
    /// within `bytes`: a HEIF cut short before then is `HEIFError.truncated`.
    public static func uprightSize(of bytes: [UInt8]) throws -> PixelSize {
        if PNGCodec.hasSignature(bytes) { return try PNGCodec.size(of: bytes) }
        if WebPDecoder.hasSignature(bytes) { return try bytes.withUnsafeBytes { try WebPDecoder.info($0) }.uprightSize }
        if GIFDecoder.hasSignature(bytes) { return try bytes.withUnsafeBytes { try GIFDecoder.info($0) }.size }
        if HEIFDecoder.hasSignature(bytes) { return try bytes.withUnsafeBytes { try HEIFDecoder.info($0) }.size }
        guard bytes.starts(with: [0xFF, 0xD8, 0xFF]) else { throw Failure.notAnImage("\(notAnImage) (it starts with \(describeStart(bytes)))") }
        let scanned = bytes.withUnsafeBytes { raw in Result { () throws(JPEGError) in try JPEGMarkerScanner.scan(raw) } }
        return try scanned.get().uprightSize
    }

    private static func describeStart(_ bytes: some Collection<UInt8>) -> String {
        if bytes.isEmpty { return "nothing: the body is empty" }
        let hex = bytes.prefix(4).map { byte in
            let text = String(byte, radix: 16, uppercase: true)
            return byte < 16 ? "0" + text : text
        }.joined(separator: " ")
        let printable = bytes.prefix(16).allSatisfy { (0x20...0x7E).contains($0) || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }
        return "bytes \(hex)" + (printable ? ", which looks like text" : "")
    }
}

extension ImageInspection {
    /// The format by its first bytes, and the size from the headers
    /// (`ImageInspection.uprightSize`: a JPEG's markers up to the first scan,
    /// a PNG's IHDR, a WebP's RIFF, VP8X and VP8/VP8L headers, a GIF's logical
    /// screen descriptor, a HEIF's boxes). `fileGoesOn`: `bytes` is only the start of the file, so
    /// headers that run past it are not damaged; so is a HEIF whose items'
    /// data runs past it, whose boxes libheif will not read (it checks that
    /// every item lies within the bytes it is given): the display's decode,
    /// which reads the file whole, still refuses a bomb from its boxes.
    public static func headerProblem(_ bytes: [UInt8], fileGoesOn: Bool = false, maxPixels: Int) -> String? {
        let size: PixelSize
        do {
            size = try ImageInspection.uprightSize(of: bytes)
        } catch let failure as ImageInspection.Failure {
            return failure.problem
        } catch JPEGError.truncated where fileGoesOn {
            return nil
        } catch WebPError.truncated where fileGoesOn {
            return nil
        } catch GIFError.truncated where fileGoesOn {
            return nil
        } catch HEIFError.truncated where fileGoesOn {
            return nil
        } catch {
            return "cannot be decoded: \(error)"
        }
        let (pixels, overflow) = size.width.multipliedReportingOverflow(by: size.height)
        if overflow || pixels > maxPixels {
            // Worded as the decoder words it, whatever the format.
            return JPEGError.tooManyPixels(size: size, limit: maxPixels).description
        }
        return nil
    }
}

extension ImageInspection.Failure {
    /// The failure as a configuration check's problem line words it.
    public var problem: String {
        switch self {
        case .notAnImage(let why): return why
        case .undecodable(let why): return "cannot be decoded: \(why)"
        case .overPixelLimit(let why), .overBitrateLimit(let why): return why
        }
    }
}
