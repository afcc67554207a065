// `vitrine-video`: the sandboxed video decoder the kiosk starts, one for each
// video slide it plays, with its socket as descriptor 3. Not for people to
// run. Its own program so that FFmpeg is never mapped into the kiosk
// (docs/architecture.md, "Video").
//
// `vitrine-video --describe` prints what this FFmpeg can decode, one
// `key: value` line each, for `vitrine doctor`: it reads no video, so it runs
// unconfined, and exits.
import VitrineCore
import VitrineFFmpeg
import VitrineSandboxHelper

extension VideoFileReader: VideoFrameDecoder {}

/// `--address-space-mib N --cpu-seconds N`, as `SandboxedVideo` passes them.
func limits(from arguments: [String]) -> HelperLimits {
    var limits = VideoHelper.defaultLimits
    var rest = arguments.dropFirst()
    while let flag = rest.popFirst() {
        guard let value = rest.popFirst().flatMap({ Int($0) }) else { break }
        switch flag {
        case "--address-space-mib": limits.addressSpaceMiB = value
        case "--cpu-seconds": limits.cpuSeconds = value
        default: break
        }
    }
    return limits
}

if CommandLine.arguments.dropFirst().first == "--describe" {
    print("ffmpeg: \(FFmpegCapabilities.version)")
    for (codec, decoder) in FFmpegCapabilities.softwareDecoders { print("decoder \(codec): \(decoder ?? "none")") }
    print("v4l2m2m: \(FFmpegCapabilities.v4l2Decoders.joined(separator: " "))")
} else {
    VideoHelper.serve(limits: limits(from: CommandLine.arguments)) { descriptor, maxPixels in
        try VideoFileReader(descriptor: descriptor, maxPixels: maxPixels)
    }
}
