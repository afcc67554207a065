/// Where a slide's picture comes from, as its `path` says.
public enum SlideSource: Hashable, Sendable {
    /// A file: absolute, or relative to the configuration file's directory.
    case file(String)
    /// An uploaded asset, `asset:<SHA-256 in hex>`, kept in the state directory.
    case asset(id: String)
    /// An `http://` or `https://` URL, downloaded in the background.
    case url(String)

    public static let assetPrefix = "asset:"
    /// `blob:<sha256>`: a picture a channel's manifest carries. Only a manifest's
    /// configuration may use it (`ConfigLoader.parse(_:blobReferences:)`); a kiosk
    /// following the channel stores the blob as the asset of the same SHA-256.
    public static let blobPrefix = "blob:"

    public init(_ path: String) {
        if path.hasPrefix(Self.assetPrefix) {
            self = .asset(id: String(path.dropFirst(Self.assetPrefix.count)))
        } else if path.hasPrefix("http://") || path.hasPrefix("https://") {
            self = .url(path)
        } else {
            self = .file(path)
        }
    }

    /// Whether `id` is an asset id: 64 lowercase hexadecimal digits.
    public static func isAssetID(_ id: String) -> Bool {
        id.utf8.count == 64 && id.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }

    /// Why `path` cannot be a slide's source, or nil if it can.
    public static func problem(with path: String) -> String? {
        switch SlideSource(path) {
        case .asset(let id):
            return isAssetID(id) ? nil : "an asset reference must be asset: followed by 64 lowercase hex digits (its SHA-256), found \(path)"
        case .url(let url):
            let rest = url.drop { $0 != ":" }.dropFirst(3)
            let host = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
            if host.isEmpty { return "the URL has no host: \(url)" }
            if url.contains(where: { $0 == " " || $0.isNewline }) { return "the URL must not contain spaces: \(url)" }
            return nil
        case .file(let file):
            if let scheme = file.firstRange(of: "://"), !file[..<scheme.lowerBound].contains("/") {
                return "only http:// and https:// URLs can be fetched, found \(file)"
            }
            return nil
        }
    }
}
