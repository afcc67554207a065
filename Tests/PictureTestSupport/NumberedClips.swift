import Foundation
import VitrineCore

/// Video clips made at test time with Debian's `ffmpeg`, each frame carrying
/// its own number: `NumberedClip.bits` vertical bars across the picture, bar
/// `b` light where bit `b` of the frame number is set and dark where it is
/// not (ffmpeg's `geq` filter, `bitand(N, 2^b)`). Bars survive lossy coding,
/// so a decoded frame is read back by sampling each bar's middle
/// (`NumberedClip.number(in:)`), on any path that keeps the picture upright.
public struct NumberedClip: Sendable {
    public enum Codec: String, Sendable, CaseIterable {
        case h264, vp9, av1

        var arguments: [String] {
            switch self {
            case .h264: ["-c:v", "libx264", "-preset", "ultrafast", "-g", "12"]
            case .vp9: ["-c:v", "libvpx-vp9", "-deadline", "realtime", "-cpu-used", "8", "-g", "12"]
            case .av1: ["-c:v", "libaom-av1", "-cpu-used", "8", "-row-mt", "1", "-g", "12"]
            }
        }

        public var fileExtension: String { self == .h264 ? "mp4" : "webm" }
    }

    /// Bars in a frame: frame numbers up to 1,023.
    public static let bits = 10

    public let path: String
    public let codec: Codec
    public let size: PixelSize
    public let framesPerSecond: Int
    public let frameCount: Int

    /// Encodes `seconds` of video at `framesPerSecond` into a temporary file,
    /// with `soundtrackSeconds` of a tone beside it when given (AAC in MP4,
    /// Opus in WebM and Matroska), which may run on past the picture.
    public init(codec: Codec, size: PixelSize = PixelSize(width: 320, height: 240), framesPerSecond: Int, seconds: Double,
                soundtrackSeconds: Double? = nil) throws {
        self.codec = codec
        self.size = size
        self.framesPerSecond = framesPerSecond
        frameCount = Int((Double(framesPerSecond) * seconds).rounded())
        path = FileManager.default.temporaryDirectory
            .appendingPathComponent("vitrine-clip-\(getpid())-\(UUID().uuidString).\(codec.fileExtension)").path
        let bars = "geq=lum='if(bitand(N\\,pow(2\\,floor(X*\(Self.bits)/W)))\\,235\\,16)'"
        _ = try runTool("/usr/bin/ffmpeg", [
            "-v", "error", "-y", "-f", "lavfi",
            "-i", "color=c=black:s=\(size.width)x\(size.height):r=\(framesPerSecond):d=\(seconds)",
        ] + (soundtrackSeconds.map { ["-f", "lavfi", "-i", "sine=frequency=440:duration=\($0)"] } ?? []) + [
            "-vf", "format=gray,\(bars),format=yuv420p", "-frames:v", "\(frameCount)",
        ] + codec.arguments + (soundtrackSeconds == nil ? [] : ["-c:a", codec == .h264 ? "aac" : "libopus"]) + [path])
    }

    public func remove() { try? FileManager.default.removeItem(atPath: path) }

    /// The frame number drawn into `image` (a picture of the whole clip,
    /// upright, at any size), read from each bar's middle row and column.
    public static func number(in image: PixelImage, within rect: PixelRect? = nil) -> Int {
        let area = rect ?? PixelRect(x: 0, y: 0, width: image.width, height: image.height)
        var number = 0
        for bit in 0..<bits {
            let x = area.x + (2 * bit + 1) * area.width / (2 * bits)
            let pixel = image[x, area.y + area.height / 2]
            let green = Int((pixel >> 8) & 0xFF)
            if green > 128 { number |= 1 << bit }
        }
        return number
    }
}

/// A copy of the MP4 clip at `path` whose video stream carries a display
/// matrix turning it `degrees` counter-clockwise, as `ffprobe` reports it
/// ("rotation=90"); 270 is what a phone writes for a video filmed held
/// upright ("rotation of -90.00 degrees"). FFmpeg 6 and later set it with
/// `-display_rotation`; 5.1's MP4 muxer writes its `rotate` tag as that
/// matrix, when the stream is copied. The copy is named after `path`.
public func turnedCopy(ofClip path: String, counterClockwise degrees: Int) throws -> String {
    let turned = path.replacingOccurrences(of: ".mp4", with: "-turned\(degrees).mp4")
    do {
        _ = try runTool("/usr/bin/ffmpeg", ["-v", "error", "-y", "-display_rotation:v:0", "\(degrees)", "-i", path, "-c", "copy", turned])
    } catch {
        _ = try runTool("/usr/bin/ffmpeg", ["-v", "error", "-y", "-i", path, "-c", "copy", "-metadata:s:v:0", "rotate=\(degrees)", turned])
    }
    return turned
}
