import VitrineConfig

/// Every failure's answer: `components/schemas/Error` in docs/api/openapi.yaml,
/// with the fields some failures add (`VersionConflict`'s `currentVersion`,
/// `FollowingAChannel`'s `channel`, `UnknownOutput`'s `outputs`). Keys without a value are left out.
public struct ErrorBody: Codable, Hashable, Sendable {
    /// One clear sentence saying what is wrong.
    public var error: String
    /// Every problem found, each at its key path (`components/schemas/ConfigIssue`);
    /// nil (left out) when there are none to list.
    public var issues: [ConfigIssue]?
    /// On a 412: the version that is current now.
    public var currentVersion: String?
    /// On a 409 while following a channel: the channel's URL.
    public var channel: String?
    /// On a 404 for an `output` the kiosk does not drive: the names it answers to.
    public var outputs: [String]?

    public init(error: String, issues: [ConfigIssue]? = nil, currentVersion: String? = nil, channel: String? = nil,
                outputs: [String]? = nil) {
        self.error = error
        self.issues = issues
        self.currentVersion = currentVersion
        self.channel = channel
        self.outputs = outputs
    }
}
