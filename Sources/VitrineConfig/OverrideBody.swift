import VitrineCore

/// An emergency override in its JSON form: `{id, since, until, interval, slides}`,
/// times in UTC (RFC 3339, whole seconds), `interval` null when the
/// configuration's applies, each slide in its canonical object form. It is
/// both the stored `override.json` (`OverrideDocument.json`, read back by
/// `OverrideDocument.stored`) and the API's `components/schemas/Override`: the
/// answer to `POST` and `GET /api/v1/override`, `override` in the status, and
/// the `overrideSet` event's data. `document` is its one writer.
public struct OverrideBody: Codable, Hashable, Sendable {
    /// Names the override in the status, the log and events.
    public var id: String
    /// When it was set: RFC 3339, UTC, whole seconds.
    public var since: String
    /// When it ends by itself: RFC 3339, UTC, whole seconds.
    public var until: String
    /// Its own interval in the display form of a duration (`30s`); nil (written
    /// as null) when the configuration's applies.
    public var interval: String?
    public var slides: [SlideBody]

    public init(id: String, since: String, until: String, interval: String?, slides: [SlideBody]) {
        self.id = id
        self.since = since
        self.until = until
        self.interval = interval
        self.slides = slides
    }

    public init(_ override: KioskOverride) {
        self.init(id: override.id, since: override.since.description, until: override.until.description,
                  interval: override.interval.map(DurationSyntax.format), slides: override.slides.map(SlideBody.init))
    }

    /// The override's JSON object.
    public var document: [String: JSONValue] {
        [
            "id": .string(id), "since": .string(since), "until": .string(until),
            "interval": interval.map(JSONValue.string) ?? .null,
            "slides": .array(slides.map { .object($0.document) }),
        ]
    }

    public func encode(to encoder: any Encoder) throws {
        try JSONValue.object(document).encode(to: encoder)
    }
}
