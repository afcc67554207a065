import FoundationEssentials

/// An asset as the API describes it: `components/schemas/Asset` in
/// docs/api/openapi.yaml (named apart from the store's `Asset`, which it
/// describes). The answer to an upload, each item of the asset list, and the
/// data of the `assetAdded` event.
public struct AssetBody: Codable, Hashable, Sendable {
    public enum Kind: String, Codable, Hashable, Sendable { case jpeg, png, webp, gif, heif }

    /// The SHA-256 of the stored bytes, lower-case hexadecimal.
    public var id: String
    /// `asset:<id>`: what a slide's `path` says to show it.
    public var ref: String
    /// The file name it was first uploaded under.
    public var name: String
    public var type: Kind
    /// Bytes.
    public var size: Int
    /// Pixels, upright.
    public var width: Int
    public var height: Int
    /// Whether the current or the previous configuration names it.
    public var inUse: Bool
    /// When it was first uploaded: RFC 3339, UTC, whole seconds (`2026-11-22T09:00:00Z`).
    public var added: String
}

/// `GET /api/v1/assets`'s answer.
public struct AssetListBody: Codable, Hashable, Sendable {
    public var assets: [AssetBody]
}

extension Asset {
    /// The API's description of this asset.
    func body(inUse: Bool) -> AssetBody {
        let type: AssetBody.Kind = switch kind {
        case .jpeg: .jpeg
        case .png: .png
        case .webp: .webp
        case .gif: .gif
        case .heif: .heif
        }
        return AssetBody(id: id, ref: reference, name: name, type: type, size: size, width: width, height: height,
                  inUse: inUse, added: Date(timeIntervalSince1970: added.rounded(.down)).formatted(.iso8601))
    }
}
