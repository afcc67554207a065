import Glibc

/// Where the video helper, `vitrine-video`, is installed: the kiosk starts it
/// for each video slide (VitrineSandbox's `SandboxedVideoOpener`), and
/// `vitrine doctor` asks it what it can decode.
public enum VideoHelperLocation {
    /// `$VITRINE_VIDEO_HELPER`, then beside the running `vitrine` (a build
    /// folder, `/usr/local/bin` from install.sh's binary), then the package's
    /// `/usr/libexec/vitrine/` and install.sh's `/usr/local/libexec/vitrine/`;
    /// nil when none is there.
    public static func installed() -> String? {
        candidates().first { access($0, X_OK) == 0 }
    }

    static func candidates() -> [String] {
        var candidates: [String] = []
        if let named = getenv("VITRINE_VIDEO_HELPER") { candidates.append(String(cString: named)) }
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        if count > 0 {
            let own = String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if let slash = own.lastIndex(of: "/") { candidates.append(own[..<slash] + "/vitrine-video") }
        }
        return candidates + ["/usr/libexec/vitrine/vitrine-video", "/usr/local/libexec/vitrine/vitrine-video"]
    }
}
