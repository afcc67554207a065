import VitrineChannel
import VitrineCore

/// `channel` in the status: `components/schemas/ChannelStatus` in
/// docs/api/openapi.yaml. What is applied, how old it is, when the origin was
/// last reached, what the follower is doing, and the refusal that stands.
/// Times are RFC 3339, UTC.
public struct ChannelStatusBody: Codable, Hashable, Sendable {
    /// A newer version whose pictures are downloading.
    public struct Pending: Codable, Hashable, Sendable {
        public var version: UInt64
        public var remainingPictures: Int

        public init(version: UInt64, remainingPictures: Int) {
            self.version = version
            self.remainingPictures = remainingPictures
        }
    }

    /// What the origin serves now and the kiosk refuses.
    public struct Refused: Codable, Hashable, Sendable {
        /// `bad-signature`, `unknown-key`, `malformed`, `expired`, `not-newer`, `blob-mismatch` or `blob-unusable`.
        public var reason: String
        /// The refused version, when its signature verified far enough to read it.
        public var version: UInt64?
        public var at: String
        /// The log line's text.
        public var message: String

        public init(reason: String, version: UInt64?, at: String, message: String) {
            self.reason = reason
            self.version = version
            self.at = at
            self.message = message
        }

        private enum CodingKeys: String, CodingKey { case reason, version, at, message }

        /// `version` is always there, null when it could not be read.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(reason, forKey: .reason)
            try container.encode(version, forKey: .version)
            try container.encode(at, forKey: .at)
            try container.encode(message, forKey: .message)
        }
    }

    /// Why the last poll got no usable answer, or why the follower is off.
    public struct LastError: Codable, Hashable, Sendable {
        public var message: String
        /// Nil when the follower is off (no trusted key could be read).
        public var at: String?

        public init(message: String, at: String?) {
            self.message = message
            self.at = at
        }

        private enum CodingKeys: String, CodingKey { case message, at }

        /// `at` is always there, null when the follower is off.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(message, forKey: .message)
            try container.encode(at, forKey: .at)
        }
    }

    /// The channel's directory on its origin.
    public var url: String
    public var group: String?
    public var device: String?
    /// `waiting`, `checking`, `downloading`, `ready` or `off`.
    public var state: String
    /// The channel version applied; nil before the first.
    public var version: UInt64?
    /// When that version was published.
    public var published: String?
    /// When this kiosk applied it.
    public var appliedAt: String?
    /// Seconds since that version was published.
    public var ageSeconds: Int64?
    /// When the origin last answered a poll; nil when not since the kiosk started.
    public var lastReached: String?
    /// Whether `PUT /api/v1/config` and rollback still work.
    public var allowLocalPush: Bool
    /// The root.json version whose keys sign (0: the local file's `channel.keys`).
    public var rootVersion: UInt64
    /// With `channel.root`: when the trust in the root that signs ends (`ChannelRootTrust`).
    public var rootExpires: String?
    public var pending: Pending?
    public var refused: Refused?
    public var lastError: LastError?

    public init(url: String, group: String?, device: String?, state: String, version: UInt64?, published: String?, appliedAt: String?,
                ageSeconds: Int64?, lastReached: String?, allowLocalPush: Bool, rootVersion: UInt64, rootExpires: String?,
                pending: Pending?, refused: Refused?, lastError: LastError?) {
        self.url = url
        self.group = group
        self.device = device
        self.state = state
        self.version = version
        self.published = published
        self.appliedAt = appliedAt
        self.ageSeconds = ageSeconds
        self.lastReached = lastReached
        self.allowLocalPush = allowLocalPush
        self.rootVersion = rootVersion
        self.rootExpires = rootExpires
        self.pending = pending
        self.refused = refused
        self.lastError = lastError
    }

    private enum CodingKeys: String, CodingKey {
        case url, group, device, state, version, published, appliedAt, ageSeconds, lastReached, allowLocalPush, rootVersion, rootExpires
        case pending, refused, lastError
    }

    /// Every key always, as the schema requires: null where there is nothing.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(url, forKey: .url)
        try container.encode(group, forKey: .group)
        try container.encode(device, forKey: .device)
        try container.encode(state, forKey: .state)
        try container.encode(version, forKey: .version)
        try container.encode(published, forKey: .published)
        try container.encode(appliedAt, forKey: .appliedAt)
        try container.encode(ageSeconds, forKey: .ageSeconds)
        try container.encode(lastReached, forKey: .lastReached)
        try container.encode(allowLocalPush, forKey: .allowLocalPush)
        try container.encode(rootVersion, forKey: .rootVersion)
        try container.encode(rootExpires, forKey: .rootExpires)
        try container.encode(pending, forKey: .pending)
        try container.encode(refused, forKey: .refused)
        try container.encode(lastError, forKey: .lastError)
    }
}
