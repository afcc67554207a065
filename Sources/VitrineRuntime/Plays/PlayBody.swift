import VitrineConfig

/// One play as JSON: `components/schemas/Play` in docs/api/openapi.yaml. A
/// line of the proof-of-play log, an item of `GET /api/v1/plays` and of an
/// upload batch.
public struct PlayBody: Codable, Hashable, Sendable {
    /// 1, 2, 3… in the order plays ended, with no gaps.
    public var seq: UInt64
    /// The slide's index in the playlist that showed it.
    public var slide: Int
    /// The slide's `path` as the configuration names it.
    public var path: String
    /// The SHA-256 of the picture shown; nil (written as null) when it could not be read.
    @ExplicitNull public var sha256: String?
    /// When the first frame showing the slide at rest reached the screen:
    /// RFC 3339, UTC, microseconds (`2026-11-23T08:15:46.123456Z`).
    public var start: String
    /// How long it stayed, on the monotonic clock.
    public var durationMs: Int64
    /// The output group that showed it (its leading connector, `HDMI-A-1`) on a
    /// kiosk with `outputs`; nil, and the key left out, otherwise, so that a
    /// single-output kiosk's lines and bodies are what they were before.
    public var output: String?
    /// How much of a video slide's video played, in milliseconds, when the
    /// carousel paged away from it; nil, and the key left out, otherwise.
    public var videoPlayedMs: Int64?

    public init(seq: UInt64, slide: Int, path: String, sha256: String?, start: String, durationMs: Int64, output: String? = nil,
                videoPlayedMs: Int64? = nil) {
        self.seq = seq
        self.slide = slide
        self.path = path
        self.sha256 = sha256
        self.start = start
        self.durationMs = durationMs
        self.output = output
        self.videoPlayedMs = videoPlayedMs
    }
}
