import VitrineConfig
import VitrineRuntime

/// `GET /api/v1/plays`'s answer: `components/schemas/Plays` in docs/api/openapi.yaml.
public struct PlaysBody: Codable, Hashable, Sendable {
    /// The plays that matched, oldest first.
    public var plays: [PlayBody]
    /// Whether more matched than `limit` let through.
    public var more: Bool
    /// Plays the log's bound deleted, oldest first, since the log began.
    public var dropped: UInt64
    /// How the upload to `plays.upload` is doing; nil without one.
    @ExplicitNull public var upload: PlayUploadBody?
    /// The kiosk's signify public key line; nil when none could be made.
    @ExplicitNull public var signingKey: String?

    public init(plays: [PlayBody], more: Bool, dropped: UInt64, upload: PlayUploadBody?, signingKey: String?) {
        self.plays = plays
        self.more = more
        self.dropped = dropped
        self.upload = upload
        self.signingKey = signingKey
    }

    /// A kiosk without a log (some tests): nothing was recorded.
    package static let nothingRecorded = PlaysBody(plays: [], more: false, dropped: 0, upload: nil, signingKey: nil)
}

/// `upload` in the plays answer: `components/schemas/PlayUpload`.
public struct PlayUploadBody: Codable, Hashable, Sendable {
    public var url: String
    /// Plays waiting to be accepted.
    public var pending: UInt64
    /// Plays accepted since the kiosk started.
    public var uploaded: Int
    /// Batches that did not get through since the kiosk started.
    public var failures: Int
    /// Plays the log deleted before they were accepted, ever.
    public var dropped: UInt64
    /// Why the last batch failed; nil once one gets through.
    @ExplicitNull public var lastError: String?

    public init(url: String, pending: UInt64, uploaded: Int, failures: Int, dropped: UInt64, lastError: String?) {
        self.url = url
        self.pending = pending
        self.uploaded = uploaded
        self.failures = failures
        self.dropped = dropped
        self.lastError = lastError
    }
}
