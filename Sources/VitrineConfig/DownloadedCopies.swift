/// What a change in the downloaded copies of URL slides touches: the pure part
/// of a download arriving, so that the display thread decodes only the slides
/// that show that URL and leaves the rest (the slide on screen, its deadline,
/// the other decoded frames) alone.
public struct DownloadedCopiesChange: Hashable, Sendable {
    /// The playlist slides whose picture now comes from another local file (or none).
    public var slides: [Int]
    /// Whether the placeholder is one of those URLs.
    public var placeholder: Bool

    public var isEmpty: Bool { slides.isEmpty && !placeholder }
}

extension KioskConfiguration {
    /// Which of this configuration's slides show a URL whose local copy in
    /// `downloads` differs from the one in `self.downloads`: a new download, a
    /// changed one, or one no longer there.
    public func change(toDownloads downloads: [String: String]) -> DownloadedCopiesChange {
        func changed(_ path: String) -> Bool {
            guard case .url(let url) = SlideSource(path) else { return false }
            return self.downloads[url] != downloads[url]
        }
        return DownloadedCopiesChange(slides: slides.indices.filter { changed(slides[$0].path) },
                                      placeholder: placeholder.map(changed) ?? false)
    }
}
