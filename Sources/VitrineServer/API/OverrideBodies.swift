import VitrineConfig
import VitrineCore

/// `POST /api/v1/override`'s JSON body as `vitrine remote override set` sends
/// it: `components/schemas/OverrideRequest` with each slide as its path and
/// the times as text. Exactly one of `until` and `duration`; keys without a
/// value are left out.
public struct OverrideRequestBody: Codable, Hashable, Sendable {
    /// What shows, in order: `asset:<sha256>` or absolute paths on the kiosk.
    public var slides: [String]
    /// When it ends, RFC 3339.
    public var until: String?
    /// How long it shows (`30m`).
    public var duration: String?
    /// How long each slide stays; nil: the configuration's interval.
    public var interval: String?

    public init(slides: [String], until: String? = nil, duration: String? = nil, interval: String? = nil) {
        self.slides = slides
        self.until = until
        self.duration = duration
        self.interval = interval
    }
}
