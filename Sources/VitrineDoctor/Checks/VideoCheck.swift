import VitrineRuntime
import VitrineSystem

/// Video: whether the video helper is installed and what its FFmpeg decodes
/// (`vitrine-video --describe`), and the V4L2 devices the kernel offers, by
/// the names their drivers give (`/sys/class/video4linux/*/name`: a Pi 4
/// running Raspberry Pi OS's kernel has `bcm2835-codec-decode` for H.264 and
/// `rpi-hevc-dec` for HEVC). Video slides are decoded in software today; this
/// is what a board's first report says its hardware could do.
public struct VideoCheck: DoctorCheck {
    /// The helper's path; nil: not installed.
    public var helper: String?
    /// What `helper --describe` printed, or why it could not be run.
    public var describe: @Sendable (String) -> Result<String, any Error>

    public init(helper: String? = VideoHelperLocation.installed(),
                describe: @escaping @Sendable (String) -> Result<String, any Error> = VideoCheck.describeByRunning) {
        self.helper = helper
        self.describe = describe
    }

    /// How long `--describe` may take. The helper maps FFmpeg and its codec
    /// libraries (libavcodec alone pulls in x265, aom, dav1d and more): at
    /// boot, from an SD card's cold cache, or under TCG beside a build, that
    /// took over 2 s, and a healthy helper was reported as one that "does not
    /// start". The kiosk's start-up report runs off the display thread, so a
    /// long wait costs nothing there.
    public static let describeTimeout: Duration = .seconds(15)

    /// Runs `helper --describe` (`describeTimeout` at most): what it printed, if it exited with status 0.
    public static let describeByRunning: @Sendable (String) -> Result<String, any Error> = { helper in
        Result { () throws -> String in
            let run = try ProgramOutput.run(helper, ["--describe"], timeout: describeTimeout)
            // A helper that cannot load its FFmpeg libraries dies in the dynamic loader with status 127.
            guard run.ending == .exited(0) else { throw HelperDidNotDescribe(ending: run.ending) }
            return run.output
        }
    }

    /// `--describe` ended otherwise than with status 0.
    struct HelperDidNotDescribe: Error, CustomStringConvertible {
        var ending: ProgramOutput.Ending
        var description: String {
            ending == .exited(127) ? "it \(ending), as when its FFmpeg libraries are missing" : "`--describe` \(ending)"
        }
    }

    public func run(on system: DoctorSystem) -> DoctorSection {
        var facts: [DoctorFact] = []
        let devices = system.names(in: "/sys/class/video4linux").compactMap { name -> String? in
            guard name.hasPrefix("video"), let driver = system.text("/sys/class/video4linux/\(name)/name") else { return nil }
            return "\(name) \"\(driver)\""
        }
        let v4l2 = DoctorFact("V4L2 devices", devices.isEmpty ? "none" : devices.joined(separator: ", "))
        guard let helper else {
            return DoctorSection(id: "video", title: "Video", status: .warning,
                                 summary: "no video helper (vitrine-video): video slides cannot play, and say so; pictures play on",
                                 facts: [v4l2],
                                 findings: ["Install the package for this board's architecture with its video helper, or deploy/install.sh --video-helper PATH."])
        }
        facts.append(DoctorFact("helper", helper))
        let lines: [Substring]
        switch describe(helper) {
        case .success(let text):
            lines = text.split(separator: "\n")
        case .failure(let error):
            return DoctorSection(id: "video", title: "Video", status: .warning, summary: "the video helper cannot be run: \(error)",
                                 facts: facts + [v4l2], findings: ["Reinstall the package: \(helper) does not start."])
        }
        func value(_ key: String) -> String? {
            lines.first { $0.hasPrefix(key + ": ") }.map { String($0.dropFirst(key.count + 2)) }
        }
        guard let version = value("ffmpeg") else {
            return DoctorSection(id: "video", title: "Video", status: .warning, summary: "the video helper did not say what it decodes",
                                 facts: facts + [v4l2], findings: ["\(helper) --describe printed no FFmpeg version: reinstall the package."])
        }
        facts.append(DoctorFact("FFmpeg", version))
        var missing: [String] = []
        for codec in ["h264", "hevc", "vp9", "av1"] {
            let decoder = value("decoder \(codec)") ?? "none"
            facts.append(DoctorFact("\(codec) decoder", decoder))
            if decoder == "none" { missing.append(codec) }
        }
        facts.append(DoctorFact("V4L2 decoders in FFmpeg", value("v4l2m2m").flatMap { $0.isEmpty ? nil : $0 } ?? "none"))
        facts.append(v4l2)
        facts.append(DoctorFact("decoding", "in software, by FFmpeg, in a sandboxed vitrine-video per video slide; hardware decoding is not used yet"))
        let findings = missing.isEmpty ? [] : ["This FFmpeg has no decoder for \(missing.joined(separator: ", ")): such videos are refused, naming the codec."]
        return DoctorSection(id: "video", title: "Video", status: missing.isEmpty ? .ok : .warning,
                             summary: "video slides are decoded in software by \(version.split(separator: " (").first ?? Substring(version))",
                             facts: facts, findings: findings)
    }
}
