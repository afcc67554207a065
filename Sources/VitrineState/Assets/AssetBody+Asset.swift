import FoundationEssentials
import VitrineAPI

extension Asset {
    /// The API's description of this asset.
    package func body(inUse: Bool) -> AssetBody {
        let type: AssetBody.Kind = switch kind {
        case .jpeg: .jpeg
        case .png: .png
        case .webp: .webp
        case .gif: .gif
        case .heif: .heif
        case .mp4: .mp4
        case .webm: .webm
        case .matroska: .matroska
        }
        return AssetBody(id: id, ref: reference, name: name, type: type, size: size, width: width, height: height,
                  inUse: inUse, added: Date(timeIntervalSince1970: added.rounded(.down)).formatted(.iso8601))
    }
}
