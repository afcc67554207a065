import VitrineCore
import VitrineRuntime
import VitrineSandboxHelper

/// One piece of work for a decoding helper. The picture itself travels as a
/// descriptor beside the message (`SCM_RIGHTS`), and so do the buffers the
/// helper writes its result into; the message says what to do with them.
enum DecodeJob: Equatable, Sendable {
    /// A slide's frame, written into the frame buffer, and an animation's
    /// frames into the animation buffer (`SlideDecoding.picture`).
    case slide(SlideJob)
    /// The whole picture decoded and thrown away: its kind and upright size, or
    /// why it cannot be shown (`ImageInspection.inspect`, for uploads and downloads).
    case inspect(maxPixels: Int)
    /// A PNG of the picture within `bounds`, written into the output buffer
    /// (`ImageInspection.thumbnail`).
    case thumbnail(bounds: PixelSize, maxPixels: Int)
    /// The format and size from the first bytes and headers alone
    /// (`ConfiguredPictures`' push check); `fileGoesOn`: the bytes are only the file's start.
    case header(maxPixels: Int, fileGoesOn: Bool)

    /// The most descriptors a job carries: the picture, and up to two buffers.
    static let descriptorLimit = 3

    struct SlideJob: Equatable, Sendable {
        /// The file as the configuration names it (for the helper's messages), and how it is framed.
        var framing: WireFraming
        var frameScale: Double
        /// The frame buffer's size; the helper refuses a frame that does not fit.
        var frameBytes: Int
        /// The animation buffer's size; 0: no animation is wanted.
        var animationBytes: Int

        init(_ request: SlideRequest, frameBytes: Int, animationBytes: Int) {
            self.init(framing: WireFraming(file: request.file, fit: request.fit, background: request.background, output: request.output,
                                           maxPixels: request.maxPixels),
                      frameScale: request.frameScale, frameBytes: frameBytes, animationBytes: animationBytes)
        }

        init(framing: WireFraming, frameScale: Double, frameBytes: Int, animationBytes: Int) {
            self.framing = framing
            self.frameScale = frameScale
            self.frameBytes = frameBytes
            self.animationBytes = animationBytes
        }

        var file: String { framing.file }

        /// The request the helper decodes: the same framing, without a path (it has the descriptor).
        var request: SlideRequest {
            SlideRequest(file: framing.file, fit: framing.fit, background: framing.background, output: framing.output,
                         maxPixels: framing.maxPixels, frameScale: frameScale)
        }
    }
}


extension DecodeJob {
    private enum Tag: UInt8 { case slide = 1, inspect, thumbnail, header }

    /// Identifies the layout; a helper from another build refuses a message it would misread.
    static let magic: UInt32 = 0x5654_4A31 // "VTJ1"

    var encoded: [UInt8] {
        var writer = WireWriter()
        writer.put(Self.magic)
        switch self {
        case .slide(let job):
            writer.put(Tag.slide.rawValue)
            writer.put(job.framing)
            writer.put(job.frameScale)
            writer.put(Int64(job.frameBytes))
            writer.put(Int64(job.animationBytes))
        case .inspect(let maxPixels):
            writer.put(Tag.inspect.rawValue)
            writer.put(Int64(maxPixels))
        case .thumbnail(let bounds, let maxPixels):
            writer.put(Tag.thumbnail.rawValue)
            writer.put(Int64(bounds.width))
            writer.put(Int64(bounds.height))
            writer.put(Int64(maxPixels))
        case .header(let maxPixels, let fileGoesOn):
            writer.put(Tag.header.rawValue)
            writer.put(Int64(maxPixels))
            writer.put(fileGoesOn)
        }
        return writer.bytes
    }

    init(decoding bytes: [UInt8]) throws(WireReader.Malformed) {
        var reader = WireReader(bytes)
        guard try reader.get(UInt32.self) == Self.magic else { throw WireReader.Malformed(what: "not a decode job of this build") }
        switch Tag(rawValue: try reader.get(UInt8.self)) {
        case .slide:
            let framing = try reader.getFraming(sides: WireBounds.side)
            let frameScale = try reader.getDouble()
            guard frameScale.isFinite, frameScale >= 1, frameScale <= 16 else { throw WireReader.Malformed(what: "frame scale \(frameScale)") }
            self = .slide(SlideJob(framing: framing, frameScale: frameScale,
                                   frameBytes: try reader.getInt(in: WireBounds.bufferBytes, "frame buffer"),
                                   animationBytes: try reader.getInt(in: WireBounds.bufferBytes, "animation buffer")))
        case .inspect:
            self = .inspect(maxPixels: try reader.getInt(in: WireBounds.pixels, "maxPixels"))
        case .thumbnail:
            let bounds = PixelSize(width: try reader.getInt(in: WireBounds.side, "width"), height: try reader.getInt(in: WireBounds.side, "height"))
            self = .thumbnail(bounds: bounds, maxPixels: try reader.getInt(in: WireBounds.pixels, "maxPixels"))
        case .header:
            self = .header(maxPixels: try reader.getInt(in: WireBounds.pixels, "maxPixels"), fileGoesOn: try reader.getBool())
        case nil:
            throw WireReader.Malformed(what: "an unknown job")
        }
        guard reader.isAtEnd else { throw WireReader.Malformed(what: "bytes after the job") }
    }
}
