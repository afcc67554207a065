import VitrineCore

/// What a video helper answers.
package enum VideoReply: Equatable, Sendable {
    case opened(VideoInfo)
    /// Frames written, in order: each slot and its timestamp in the video;
    /// `ended`: the video ended after them (no more frames until a rewind).
    case frames([DecodedVideoFrame], ended: Bool)
    case rewound
    /// The video cannot be played, or stopped being playable; the reason as an operator reads it.
    case refused(String)

    package struct DecodedVideoFrame: Equatable, Sendable {
        package var slot: Int
        package var timestamp: Duration

        package init(slot: Int, timestamp: Duration) {
            self.slot = slot
            self.timestamp = timestamp
        }
    }

    private enum Tag: UInt8 { case opened = 1, frames, rewound, refused }

    package static let magic: UInt32 = 0x5654_5734 // "VTW4": the orientation and bitrate were added

    /// The longest duration or timestamp a reply may carry: 24 hours (a helper's reader clamps a video's to it).
    package static let longestNanoseconds: Int64 = 24 * 3_600 * 1_000_000_000

    package var encoded: [UInt8] {
        var writer = WireWriter()
        writer.put(Self.magic)
        switch self {
        case .opened(let info):
            writer.put(Tag.opened.rawValue)
            writer.put(info.container)
            writer.put(info.codec)
            writer.put(Int64(info.size.width))
            writer.put(Int64(info.size.height))
            writer.put(Int64(info.displaySize.width))
            writer.put(Int64(info.displaySize.height))
            writer.put(UInt8(info.orientation.rawValue))
            writer.put(info.frameRate ?? 0)
            writer.put(info.duration?.nanoseconds ?? -1)
            writer.put(info.hasAudio)
            writer.put(Int64(info.bitRate ?? -1))
            writer.put(info.decoder)
        case .frames(let frames, let ended):
            writer.put(Tag.frames.rawValue)
            writer.put(Int64(frames.count))
            for frame in frames {
                writer.put(Int64(frame.slot))
                writer.put(frame.timestamp.nanoseconds)
            }
            writer.put(ended)
        case .rewound:
            writer.put(Tag.rewound.rawValue)
        case .refused(let message):
            writer.put(Tag.refused.rawValue)
            writer.put(message)
        }
        return writer.bytes
    }

    /// A bitrate as sent: -1 for none, else up to 1e12 bits a second (more is no video).
    private static func bitRate(_ reader: inout WireReader) throws(WireReader.Malformed) -> Int? {
        let value = try reader.get(Int64.self)
        guard value >= -1, value <= 1_000_000_000_000 else { throw WireReader.Malformed(what: "a bitrate of \(value)") }
        return value < 0 ? nil : Int(value)
    }

    /// Reads a reply: the kiosk reads what a helper sends as hostile.
    package init(decoding bytes: [UInt8]) throws(WireReader.Malformed) {
        var reader = WireReader(bytes)
        guard try reader.get(UInt32.self) == Self.magic else { throw WireReader.Malformed(what: "not a video reply of this build") }
        switch Tag(rawValue: try reader.get(UInt8.self)) {
        case .opened:
            let container = try reader.getString(), codec = try reader.getString()
            let size = PixelSize(width: try reader.getInt(in: WireBounds.side, "width"), height: try reader.getInt(in: WireBounds.side, "height"))
            let display = PixelSize(width: try reader.getInt(in: WireBounds.side, "width"), height: try reader.getInt(in: WireBounds.side, "height"))
            let turn = try reader.get(UInt8.self)
            guard let orientation = ExifOrientation(rawValue: Int(turn)) else { throw WireReader.Malformed(what: "orientation \(turn)") }
            let rate = try reader.getDouble()
            guard rate.isFinite, rate >= 0, rate <= 1000 else { throw WireReader.Malformed(what: "frame rate \(rate)") }
            // Bounded: a crafted file's 292-year duration would overflow the engine's instants (a trap).
            let duration = try reader.get(Int64.self)
            guard duration <= Self.longestNanoseconds else { throw WireReader.Malformed(what: "a duration of \(duration) ns") }
            self = .opened(VideoInfo(container: container, codec: codec, size: size, displaySize: display,
                                     orientation: orientation, frameRate: rate > 0 ? rate : nil, duration: duration >= 0 ? .nanoseconds(duration) : nil,
                                     hasAudio: try reader.getBool(), bitRate: try Self.bitRate(&reader), decoder: try reader.getString()))
        case .frames:
            let count = try reader.getInt(in: 0...VideoJob.slotLimit, "frame count")
            var frames: [DecodedVideoFrame] = []
            for _ in 0..<count {
                let slot = try reader.getInt(in: 0...(VideoJob.slotLimit - 1), "slot")
                let timestamp = try reader.get(Int64.self)
                guard timestamp >= 0, timestamp <= Self.longestNanoseconds else { throw WireReader.Malformed(what: "a timestamp of \(timestamp) ns") }
                frames.append(DecodedVideoFrame(slot: slot, timestamp: .nanoseconds(timestamp)))
            }
            self = .frames(frames, ended: try reader.getBool())
        case .rewound:
            self = .rewound
        case .refused:
            self = .refused(try reader.getString())
        case nil:
            throw WireReader.Malformed(what: "an unknown video reply")
        }
        guard reader.isAtEnd else { throw WireReader.Malformed(what: "bytes after the video reply") }
    }
}
