import VitrineCore

/// One request to a video helper (`vitrine-video`). Unlike a picture helper,
/// which answers one job and forgets it, a video helper serves one video for
/// its life: `open` hands it the file and the frame ring (as descriptors
/// beside the message), then `fill` asks for the next frames into free slots
/// of the ring, and `rewind` starts the video again.
package enum VideoJob: Equatable, Sendable {
    case open(OpenJob)
    /// Decode the next frames, one into each of `slots`, in order.
    case fill(slots: [Int])
    /// Go back to the first frame (a loop, or the slide shown again).
    case rewind

    package struct OpenJob: Equatable, Sendable {
        /// How every frame is drawn: at `framing.output`'s size, fitted on the background.
        package var framing: WireFraming
        /// The ring: `slotCount` frames of the output's size, one after another.
        package var slotCount: Int
        /// The kiosk's version: a helper from another package version refuses to serve.
        package var version: String

        package init(framing: WireFraming, slotCount: Int, version: String) {
            self.framing = framing
            self.slotCount = slotCount
            self.version = version
        }
    }

    /// The descriptors an `open` carries: the video and the ring.
    package static let descriptorLimit = 2
    /// The most slots a ring has.
    package static let slotLimit = 16

    private enum Tag: UInt8 { case open = 1, fill, rewind }

    package static let magic: UInt32 = 0x5654_5631 // "VTV1"

    package var encoded: [UInt8] {
        var writer = WireWriter()
        writer.put(Self.magic)
        switch self {
        case .open(let job):
            writer.put(Tag.open.rawValue)
            writer.put(job.framing)
            writer.put(Int64(job.slotCount))
            writer.put(job.version)
        case .fill(let slots):
            writer.put(Tag.fill.rawValue)
            writer.put(Int64(slots.count))
            for slot in slots { writer.put(Int64(slot)) }
        case .rewind:
            writer.put(Tag.rewind.rawValue)
        }
        return writer.bytes
    }

    package init(decoding bytes: [UInt8]) throws(WireReader.Malformed) {
        var reader = WireReader(bytes)
        guard try reader.get(UInt32.self) == Self.magic else { throw WireReader.Malformed(what: "not a video job of this build") }
        switch Tag(rawValue: try reader.get(UInt8.self)) {
        case .open:
            self = .open(OpenJob(framing: try reader.getFraming(sides: 1...WireBounds.side.upperBound),
                                 slotCount: try reader.getInt(in: 1...Self.slotLimit, "slot count"),
                                 version: try reader.getString()))
        case .fill:
            let count = try reader.getInt(in: 0...Self.slotLimit, "slot count")
            var slots: [Int] = []
            for _ in 0..<count { slots.append(try reader.getInt(in: 0...(Self.slotLimit - 1), "slot")) }
            self = .fill(slots: slots)
        case .rewind:
            self = .rewind
        case nil:
            throw WireReader.Malformed(what: "an unknown video job")
        }
        guard reader.isAtEnd else { throw WireReader.Malformed(what: "bytes after the video job") }
    }
}
