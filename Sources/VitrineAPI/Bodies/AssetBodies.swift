import FoundationEssentials

/// An asset as the API describes it: `components/schemas/Asset` in
/// docs/api/openapi.yaml (named apart from the store's `Asset`, which it
/// describes). The answer to an upload, each item of the asset list, and the
/// data of the `assetAdded` event.
public struct AssetBody: Codable, Hashable, Sendable {
    public enum Kind: String, Codable, Hashable, Sendable { case jpeg, png, webp, gif, heif, mp4, webm, matroska }

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

    public init(id: String, ref: String, name: String, type: Kind, size: Int, width: Int, height: Int, inUse: Bool, added: String) {
        self.id = id
        self.ref = ref
        self.name = name
        self.type = type
        self.size = size
        self.width = width
        self.height = height
        self.inUse = inUse
        self.added = added
    }
}

/// `GET /api/v1/assets`'s answer.
public struct AssetListBody: Codable, Hashable, Sendable {
    public var assets: [AssetBody]

    public init(assets: [AssetBody]) { self.assets = assets }
}
