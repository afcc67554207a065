internal import CLibAV

/// What this FFmpeg can do, for `vitrine doctor`: its libraries' versions
/// (`avcodec_version`, `avformat_version`, `av_version_info`) and which
/// decoder each codec a video slide may use gets (`avcodec_find_decoder`,
/// and by name the V4L2 memory-to-memory ones, which decode in hardware where
/// the kernel offers a decoder, as on a Pi 4 running Raspberry Pi OS).
public enum FFmpegCapabilities {
    /// "FFmpeg 5.1.9-0+deb12u1 (libavcodec 59.37.100, libavformat 59.27.100)".
    public static var version: String {
        "FFmpeg \(String(cString: av_version_info())) (libavcodec \(dotted(avcodec_version())), libavformat \(dotted(avformat_version())))"
    }

    /// The codecs video slides are made of, each with the name of the decoder this FFmpeg would use, or nil.
    public static var softwareDecoders: [(codec: String, decoder: String?)] {
        [("h264", AV_CODEC_ID_H264), ("hevc", AV_CODEC_ID_HEVC), ("vp9", AV_CODEC_ID_VP9), ("av1", AV_CODEC_ID_AV1)].map { codec, id in
            (codec, avcodec_find_decoder(id).map { String(cString: $0.pointee.name) })
        }
    }

    /// The V4L2 memory-to-memory decoders this FFmpeg was built with (present
    /// in the library whether or not the board has the device).
    public static var v4l2Decoders: [String] {
        ["h264_v4l2m2m", "hevc_v4l2m2m", "vp9_v4l2m2m"].filter { avcodec_find_decoder_by_name($0) != nil }
    }

    private static func dotted(_ version: UInt32) -> String {
        "\(version >> 16).\((version >> 8) & 0xFF).\(version & 0xFF)"
    }
}
