/// What a video file holds, as its container and first video stream say:
/// enough for the kiosk to decide whether it can play it and for how long.
public struct VideoInfo: Hashable, Sendable {
    /// The container as FFmpeg names its demuxer ("mov,mp4,m4a,3gp,3g2,mj2", "matroska,webm").
    public var container: String
    /// The video codec ("h264", "hevc", "vp9", "av1").
    public var codec: String
    /// The picture's size in stored pixels.
    public var size: PixelSize
    /// The size it is shown at: `size` with the stream's sample aspect ratio
    /// applied, then turned upright by `orientation`.
    public var displaySize: PixelSize
    /// How its frames are turned to show upright, from the stream's display
    /// matrix: a phone's video filmed held upright is stored on its side.
    public var orientation: ExifOrientation
    /// Frames a second, as the stream gives its average; nil when it gives none.
    public var frameRate: Double?
    /// How long the video plays; nil when the container does not say (a live capture).
    public var duration: Duration?
    /// Whether the file carries sound.
    public var hasAudio: Bool
    /// The average bitrate in bits a second: the video stream's own as its
    /// container says, or else the whole file's (its size over its length,
    /// sound included); nil when neither is known.
    public var bitRate: Int?
    /// The FFmpeg decoder that plays it ("h264", "libdav1d", "h264_v4l2m2m");
    /// empty where it was not said.
    public var decoder: String

    public init(container: String, codec: String, size: PixelSize, displaySize: PixelSize? = nil,
                orientation: ExifOrientation = .up, frameRate: Double?, duration: Duration?, hasAudio: Bool, bitRate: Int? = nil,
                decoder: String = "") {
        self.container = container
        self.codec = codec
        self.size = size
        self.displaySize = displaySize ?? orientation.displaySize(forStored: size)
        self.orientation = orientation
        self.frameRate = frameRate
        self.duration = duration
        self.hasAudio = hasAudio
        self.bitRate = bitRate
        self.decoder = decoder
    }

    /// Why it is over `limit` bits a second on average, naming the setting, or
    /// nil when it is within it or its bitrate is not known.
    public func bitRateProblem(limit: Int) -> String? {
        guard let bitRate, bitRate > limit else { return nil }
        return "its average bitrate is \(Self.megabits(bitRate)) Mbit/s, over decode.maxVideoBitrate (\(Self.megabits(limit)) Mbit/s): "
            + "encode it at a lower bitrate, or raise decode.maxVideoBitrate if this board decodes it in time"
    }

    /// Bits a second in megabits, to a tenth.
    static func megabits(_ bitsPerSecond: Int) -> String { fixedPoint(Double(bitsPerSecond) / 1e6, decimals: 1) }

    /// Whether its decoder is a hardware one: FFmpeg names the V4L2
    /// memory-to-memory decoders `…_v4l2m2m` (and its other hardware wrappers
    /// `…_cuvid`, `…_qsv`, `…_mediacodec`, none of which a kiosk board has).
    public var decodesInHardware: Bool {
        ["_v4l2m2m", "_cuvid", "_qsv", "_mediacodec", "_rkmpp"].contains { decoder.hasSuffix($0) }
    }

    /// "h264 1920x1080 30 fps 12.0 s 8.2 Mbit/s (mov,mp4,m4a,3gp,3g2,mj2)", for logs and
    /// `check-config`; "h264 1920x1080 turned 90° clockwise …" for a video
    /// stored on its side.
    public var summary: String {
        var parts = ["\(codec) \(size.width)x\(size.height)"]
        if let turn = orientation.turnDescription { parts.append(turn) }
        if let frameRate { parts.append("\(fixedPoint(frameRate, decimals: frameRate.rounded() == frameRate ? 0 : 2)) fps") }
        if let duration { parts.append("\(fixedPoint(Double(duration.nanoseconds) / 1e9, decimals: 1)) s") }
        if let bitRate { parts.append("\(Self.megabits(bitRate)) Mbit/s") }
        return parts.joined(separator: " ") + " (\(container))"
    }
}

extension ExifOrientation {
    /// How the stored picture is turned to show upright, in words; nil for `.up`.
    public var turnDescription: String? {
        switch self {
        case .up: nil
        case .upMirrored: "mirrored left to right"
        case .down: "turned 180°"
        case .downMirrored: "mirrored top to bottom"
        case .leftMirrored: "mirrored across its top-left to bottom-right diagonal"
        case .right: "turned 90° clockwise"
        case .rightMirrored: "mirrored across its top-right to bottom-left diagonal"
        case .left: "turned 90° counter-clockwise"
        }
    }
}
