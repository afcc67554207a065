import VitrineState

extension APIError {
    /// The answer to a change the state store refused: its status, and the
    /// store's words for why.
    init(_ refusal: StateStoreRefusal) {
        switch refusal {
        case .readOnly: self.init(.serviceUnavailable, refusal.description)
        case .lacksLocalOutputs(let issues): self.init(.unprocessableContent, refusal.description, issues: issues)
        case .versionChanged(_, let current): self.init(.preconditionFailed, refusal.description, currentVersion: current)
        case .assetDeletedDuringChange: self.init(.unprocessableContent, refusal.description)
        case .noPreviousConfiguration: self.init(.conflict, refusal.description)
        case .noSuchAsset: self.init(.notFound, refusal.description)
        case .assetInUse: self.init(.conflict, refusal.description)
        }
    }
}
