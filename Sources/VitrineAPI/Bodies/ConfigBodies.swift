/// The answer to `PUT /api/v1/config` and its rollback:
/// `components/schemas/ConfigVersion` in docs/api/openapi.yaml.
public struct ConfigVersionBody: Codable, Hashable, Sendable {
    /// The version current now.
    public var version: String
    /// The version current before.
    public var previousVersion: String
    /// False when the configuration pushed is the one already current.
    public var changed: Bool

    public init(version: String, previousVersion: String, changed: Bool) {
        self.version = version
        self.previousVersion = previousVersion
        self.changed = changed
    }
}
