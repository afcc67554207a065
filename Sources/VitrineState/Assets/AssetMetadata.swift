/// An asset's `<id>.json` beside its bytes in the asset directory: what the
/// upload said and found. Its presence is what lists the asset.
struct AssetMetadata: Codable, Hashable, Sendable {
    /// The file name it was first uploaded under; files without one list under their id.
    var name: String?
    /// `jpeg`, `png`, `webp`, `gif` or `heif`.
    var type: String
    var size: Int
    var width: Int
    var height: Int
    /// Seconds since the Unix epoch; files without it list as the oldest.
    var added: Double?

    init(_ asset: Asset) {
        name = asset.name
        type = asset.kind.rawValue
        size = asset.size
        width = asset.width
        height = asset.height
        added = asset.added
    }
}
