import VitrineAPI
import VitrineRuntime

/// What `PlayUploader` POSTs to `plays.upload`:
/// `{"device": "lobby-left", "dropped": 0, "plays": [...], "board": {...}, "software": {...}}`,
/// the plays as the log and `GET /api/v1/plays` have them, the board's last
/// health reading and the update helper's last run, so that a fleet's
/// operator sees under-voltage, storage errors and how an update went where
/// the plays arrive.
public struct PlayUploadBatch: Codable, Hashable, Sendable {
    /// `plays.device`: which kiosk the plays are from.
    public var device: String
    /// Plays the log dropped before they were sent, ever.
    public var dropped: UInt64
    public var plays: [PlayBody]
    /// The board's power and storage as last read (`GET /api/v1/status`'s `board`);
    /// absent before the first reading, and where the kiosk does not watch them.
    public var board: BoardHealthBody?
    /// The update helper's last run (`GET /api/v1/status`'s `software`);
    /// absent before it ran, and where it is not installed.
    public var software: SoftwareStatusBody?

    public init(device: String, dropped: UInt64, plays: [PlayBody], board: BoardHealthBody? = nil, software: SoftwareStatusBody? = nil) {
        self.software = software
        self.device = device
        self.dropped = dropped
        self.plays = plays
        self.board = board
    }
}
