import VitrineRuntime

/// What `PlayUploader` POSTs to `plays.upload`:
/// `{"device": "lobby-left", "dropped": 0, "plays": [...]}`, the plays as the
/// log and `GET /api/v1/plays` have them.
public struct PlayUploadBatch: Codable, Hashable, Sendable {
    /// `plays.device`: which kiosk the plays are from.
    public var device: String
    /// Plays the log dropped before they were sent, ever.
    public var dropped: UInt64
    public var plays: [PlayBody]

    public init(device: String, dropped: UInt64, plays: [PlayBody]) {
        self.device = device
        self.dropped = dropped
        self.plays = plays
    }
}
