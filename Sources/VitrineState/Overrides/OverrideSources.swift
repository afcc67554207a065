import FoundationEssentials
import Glibc
import VitrineConfig
import VitrineCore

/// Where an override's pictures may come from: an uploaded asset that exists,
/// or an absolute path to a readable file on the kiosk inside one of its own
/// directories (the configuration's, where its pictures are, and the state
/// directory). Never a URL: an emergency must not wait on the network, so its
/// picture is uploaded first. Never any other file: the API must not become a
/// way to ask whether /etc/shadow exists, or to show a file from another program.
package enum OverrideSources {
    /// Every slide whose picture cannot be shown at once, at `slides[N].path`.
    /// - Parameter directories: where local files may be, as absolute paths.
    package static func issues(_ slides: [SlideConfiguration], assets: AssetStore, directories: [String]) -> [ConfigIssue] {
        var issues: [ConfigIssue] = []
        for (index, slide) in slides.enumerated() {
            let keyPath = "slides[\(index)].path"
            switch SlideSource(slide.path) {
            case .url(let url):
                issues.append(ConfigIssue(path: keyPath, message: "an override cannot show a URL (\(url)): an emergency must not wait on the network; upload the picture first (POST /api/v1/assets, or POST /api/v1/override with the picture as the body) and name it asset:<sha256>"))
            case .file(let file) where !file.hasPrefix("/"):
                issues.append(ConfigIssue(path: keyPath, message: "must be asset:<sha256> or an absolute path on the kiosk (/srv/pictures/alert.jpg); a relative path (\(file)) has no configuration directory to resolve against here"))
            case .file(let file) where !isInside(file, directories):
                let allowed = directories.map { $0 + "/" }.joined(separator: " or ")
                issues.append(ConfigIssue(path: keyPath, message: "\(file) is not under the kiosk's content or state directory (\(allowed)); upload the picture, or put it there"))
            case .asset, .file:
                break
            }
        }
        // Whether each asset and file is there and readable, as `check-config` says it.
        var shown = KioskConfiguration()
        shown.slides = slides
        shown.assetDirectory = assets.directory
        let refused = Set(issues.map(\.path))
        issues += ConfigLoader.fileIssues(in: shown).filter { !refused.contains($0.path) }
        return issues.sorted { naturallyPrecedes($0.path, $1.path) }
    }

    /// Whether `file`, with every symbolic link and `..` resolved, is inside one
    /// of `directories` (also resolved). A file that does not exist is judged by
    /// its path as written, with `..` refused; the existence check names it.
    static func isInside(_ file: String, _ directories: [String]) -> Bool {
        let resolved = realPath(file) ?? (file.split(separator: "/").contains("..") ? nil : file)
        guard let resolved else { return false }
        return directories.contains { directory in
            let root = realPath(directory) ?? directory
            return resolved.hasPrefix(root.hasSuffix("/") ? root : root + "/")
        }
    }

    /// `path` made absolute against the working directory (`.` is the working directory itself).
    package static func absolute(_ path: String) -> String {
        if path.hasPrefix("/") { return path }
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard getcwd(&buffer, buffer.count) != nil else { return "/" + path }
        let working = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return path == "." ? working : working + "/" + path
    }

    private static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
