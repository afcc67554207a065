import Glibc
import Testing
import VitrineSystem
@testable import VitrineDoctor

/// The video section on made-up boards: the helper's own description, and the V4L2 devices by their drivers' names.
@Suite("Doctor: video")
struct VideoCheckTests {
    static let described = """
        ffmpeg: FFmpeg 7.1.2-0+deb13u1 (libavcodec 61.19.101, libavformat 61.7.100)
        decoder h264: h264
        decoder hevc: hevc
        decoder vp9: vp9
        decoder av1: libdav1d
        v4l2m2m: h264_v4l2m2m hevc_v4l2m2m

        """

    @Test func aPiWithItsDecodersAndTheHelperInstalled() throws {
        let tree = try DoctorChecksTests.Tree(["/sys/class/video4linux/video10/name": "bcm2835-codec-decode\n",
                                               "/sys/class/video4linux/video19/name": "rpi-hevc-dec\n"])
        let section = VideoCheck(helper: "/usr/libexec/vitrine/vitrine-video", describe: { _ in .success(Self.described) }).run(on: tree.system)
        #expect(section.status == .ok)
        #expect(section.fact("FFmpeg") == "FFmpeg 7.1.2-0+deb13u1 (libavcodec 61.19.101, libavformat 61.7.100)")
        #expect(section.fact("av1 decoder") == "libdav1d")
        #expect(section.fact("V4L2 decoders in FFmpeg") == "h264_v4l2m2m hevc_v4l2m2m")
        #expect(section.fact("V4L2 devices") == "video10 \"bcm2835-codec-decode\", video19 \"rpi-hevc-dec\"")
        #expect(section.summary == "video slides are decoded in software by FFmpeg 7.1.2-0+deb13u1")
    }

    @Test func noHelperAHelperThatWillNotRunAndAMissingDecoderAreWarnings() throws {
        let tree = try DoctorChecksTests.Tree([:])
        let absent = VideoCheck(helper: nil).run(on: tree.system)
        #expect(absent.status == .warning)
        #expect(absent.summary.contains("video slides cannot play"))
        #expect(absent.fact("V4L2 devices") == "none")

        let broken = VideoCheck(helper: "/x/vitrine-video", describe: { _ in .failure(SystemError("posix_spawn", errno: .noSuchFileOrDirectory, subject: "/x/vitrine-video")) })
            .run(on: tree.system)
        #expect(broken.status == .warning)
        #expect(broken.summary.contains("cannot be run"))

        let noAV1 = Self.described.replacing("decoder av1: libdav1d", with: "decoder av1: none")
        let partial = VideoCheck(helper: "/x/vitrine-video", describe: { _ in .success(noAV1) }).run(on: tree.system)
        #expect(partial.status == .warning)
        #expect(partial.findings.first?.contains("av1") == true)
    }

    /// The real helper beside the test runner, run as the doctor runs it.
    @Test func theBuiltHelperDescribesItsFFmpeg() throws {
        var buffer = [CChar](repeating: 0, count: 4096)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        try #require(count > 0)
        let runner = String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let helper = String(runner[..<runner.lastIndex(of: "/")!]) + "/vitrine-video"
        let section = VideoCheck(helper: helper).run(on: DoctorSystem())
        #expect(section.fact("FFmpeg")?.hasPrefix("FFmpeg ") == true, "\(section)")
        #expect(section.fact("h264 decoder") == "h264")
    }
}
