import VitrineCore
import VitrineRuntime
import VitrineSandboxHelper

/// What a decoding helper answers to one `DecodeJob`. Pixels and PNG bytes
/// are in the buffers the kiosk handed over; the reply says how much of them
/// is the result, and the kiosk checks that against the buffers' sizes.
enum DecodeReply: Equatable, Sendable {
    /// The slide's frame, of `frame`'s size, at the start of the frame buffer;
    /// an animation's frames one after another in the animation buffer.
    case slide(frame: PixelSize, animation: AnimationLayout?)
    case inspected(kind: InspectedImage.Kind, size: PixelSize)
    /// A PNG of `byteCount` bytes at the start of the output buffer.
    case thumbnail(byteCount: Int)
    /// The header check's verdict: nil when the picture may be shown.
    case header(problem: String?)
    /// The decoder refused the picture; `message` is its reason, as it words it.
    case refused(Refusal, message: String)

    /// How the decoder refused a picture, as the API distinguishes them.
    enum Refusal: UInt8, Sendable {
        /// A slide's decode failed: `message` is `SlideError.reasonDescription`.
        case slide = 1
        /// `ImageInspection.Failure.notAnImage` (415).
        case notAnImage
        /// `ImageInspection.Failure.undecodable` (422).
        case undecodable
        /// `ImageInspection.Failure.overPixelLimit` (409).
        case overPixelLimit
    }

    /// Where an animation's frames are in the animation buffer: `frameDurations.count`
    /// frames of `storedSize`, packed, from its start.
    struct AnimationLayout: Equatable, Sendable {
        var storedSize: PixelSize
        var orientation: ExifOrientation
        var frameDurations: [Duration]
        var plays: Int?

        var byteCount: Int { storedSize.pixelCount * 4 * frameDurations.count }
    }
}

extension DecodeReply {
    private enum Tag: UInt8 { case slide = 1, inspected, thumbnail, header, refused }

    static let magic: UInt32 = 0x5654_5231 // "VTR1"

    var encoded: [UInt8] {
        var writer = WireWriter()
        writer.put(Self.magic)
        switch self {
        case .slide(let frame, let animation):
            writer.put(Tag.slide.rawValue)
            writer.put(Int64(frame.width))
            writer.put(Int64(frame.height))
            writer.put(animation != nil)
            if let animation {
                writer.put(Int64(animation.storedSize.width))
                writer.put(Int64(animation.storedSize.height))
                writer.put(UInt8(animation.orientation.rawValue))
                writer.put(Int64(animation.plays ?? 0))
                writer.put(Int64(animation.frameDurations.count))
                for duration in animation.frameDurations { writer.put(duration.nanoseconds) }
            }
        case .inspected(let kind, let size):
            writer.put(Tag.inspected.rawValue)
            writer.put(kind.rawValue)
            writer.put(Int64(size.width))
            writer.put(Int64(size.height))
        case .thumbnail(let byteCount):
            writer.put(Tag.thumbnail.rawValue)
            writer.put(Int64(byteCount))
        case .header(let problem):
            writer.put(Tag.header.rawValue)
            writer.put(problem != nil)
            writer.put(problem ?? "")
        case .refused(let refusal, let message):
            writer.put(Tag.refused.rawValue)
            writer.put(refusal.rawValue)
            writer.put(message)
        }
        return writer.bytes
    }

    init(decoding bytes: [UInt8]) throws(WireReader.Malformed) {
        var reader = WireReader(bytes)
        guard try reader.get(UInt32.self) == Self.magic else { throw WireReader.Malformed(what: "not a reply of this build") }
        switch Tag(rawValue: try reader.get(UInt8.self)) {
        case .slide:
            let frame = PixelSize(width: try reader.getInt(in: WireBounds.side, "width"), height: try reader.getInt(in: WireBounds.side, "height"))
            var animation: AnimationLayout?
            if try reader.getBool() {
                let stored = PixelSize(width: try reader.getInt(in: WireBounds.side, "width"), height: try reader.getInt(in: WireBounds.side, "height"))
                guard let orientation = ExifOrientation(rawValue: Int(try reader.get(UInt8.self))) else {
                    throw WireReader.Malformed(what: "an unknown orientation")
                }
                let plays = try reader.getInt(in: 0...Int(Int32.max), "plays")
                let count = try reader.getInt(in: WireBounds.animationFrames, "frame count")
                var durations: [Duration] = []
                durations.reserveCapacity(count)
                for _ in 0..<count {
                    let nanoseconds = try reader.get(Int64.self)
                    guard nanoseconds >= 0 else { throw WireReader.Malformed(what: "a negative frame duration") }
                    durations.append(.nanoseconds(nanoseconds))
                }
                animation = AnimationLayout(storedSize: stored, orientation: orientation, frameDurations: durations, plays: plays == 0 ? nil : plays)
            }
            self = .slide(frame: frame, animation: animation)
        case .inspected:
            guard let kind = InspectedImage.Kind(rawValue: try reader.getString()) else { throw WireReader.Malformed(what: "an unknown kind") }
            self = .inspected(kind: kind, size: PixelSize(width: try reader.getInt(in: WireBounds.side, "width"),
                                                         height: try reader.getInt(in: WireBounds.side, "height")))
        case .thumbnail:
            self = .thumbnail(byteCount: try reader.getInt(in: WireBounds.bufferBytes, "thumbnail size"))
        case .header:
            let hasProblem = try reader.getBool()
            let problem = try reader.getString()
            self = .header(problem: hasProblem ? problem : nil)
        case .refused:
            guard let refusal = Refusal(rawValue: try reader.get(UInt8.self)) else { throw WireReader.Malformed(what: "an unknown refusal") }
            self = .refused(refusal, message: try reader.getString())
        case nil:
            throw WireReader.Malformed(what: "an unknown reply")
        }
        guard reader.isAtEnd else { throw WireReader.Malformed(what: "bytes after the reply") }
    }
}
