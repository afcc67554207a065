// `vitrine-video`: the sandboxed video decoder the kiosk starts, one for each
// video slide it plays, with its socket as descriptor 3. Not for people to
// run. Its own program so that FFmpeg is never mapped into the kiosk
// (docs/architecture.md, "Video").
import VitrineCore
import VitrineFFmpeg
import VitrineSandbox

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

VideoHelper.serve(limits: limits(from: CommandLine.arguments)) { descriptor, maxPixels in
    try VideoFileReader(descriptor: descriptor, maxPixels: maxPixels)
}
