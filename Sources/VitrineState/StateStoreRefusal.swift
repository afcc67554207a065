import VitrineConfig

/// Why the state store would not make a change. The store knows nothing of
/// HTTP: the API answers each case with its status (`APIError.init(_:)` in
/// VitrineHTTP), and the channel follower logs it.
public enum StateStoreRefusal: Error, Sendable, Equatable, CustomStringConvertible {
    /// The state directory cannot be written (503).
    case readOnly(reason: String)
    /// A configuration without the playlists or outputs the local file's `outputs` shows (422).
    case lacksLocalOutputs(issues: [ConfigIssue])
    /// `If-Match` named a version that is no longer current (412).
    case versionChanged(since: String, current: String)
    /// An asset the configuration names was deleted while it was being stored (422).
    case assetDeletedDuringChange(id: String)
    /// A rollback with nothing to return to (409).
    case noPreviousConfiguration
    /// No asset has this id (404).
    case noSuchAsset(id: String)
    /// The asset is named by a configuration, or held by something else (an override) (409).
    case assetInUse(id: String, by: String)

    public var description: String {
        switch self {
        case .readOnly(let reason): "nothing can be stored: \(reason); the kiosk keeps showing what it has"
        case .lacksLocalOutputs: "the configuration lacks what the local outputs section shows"
        case .versionChanged(let since, let current): "the configuration changed since version \(since); the current one is \(current)"
        case .assetDeletedDuringChange(let id): "asset \(id) was deleted while the configuration was being pushed"
        case .noPreviousConfiguration: "there is no previous configuration to return to"
        case .noSuchAsset(let id): "there is no asset \(id)"
        case .assetInUse(let id, let holder): "asset \(id) is in use by \(holder)"
        }
    }
}
