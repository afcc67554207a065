import FoundationEssentials
import VitrineConfig
import VitrineCore

/// Where an override's pictures may come from: an uploaded asset that exists,
/// or an absolute path to a readable file on the kiosk. Never a URL: an
/// emergency must not wait on the network, so its picture is uploaded first.
enum OverrideSources {
    /// Every slide whose picture cannot be shown at once, at `slides[N].path`.
    static func issues(_ slides: [SlideConfiguration], assets: AssetStore) -> [ConfigIssue] {
        var issues: [ConfigIssue] = []
        for (index, slide) in slides.enumerated() {
            let keyPath = "slides[\(index)].path"
            switch SlideSource(slide.path) {
            case .url(let url):
                issues.append(ConfigIssue(path: keyPath, message: "an override cannot show a URL (\(url)): an emergency must not wait on the network; upload the picture first (POST /api/v1/assets, or POST /api/v1/override with the picture as the body) and name it asset:<sha256>"))
            case .file(let file) where !file.hasPrefix("/"):
                issues.append(ConfigIssue(path: keyPath, message: "must be asset:<sha256> or an absolute path on the kiosk (/srv/pictures/alert.jpg); a relative path (\(file)) has no configuration directory to resolve against here"))
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
}
