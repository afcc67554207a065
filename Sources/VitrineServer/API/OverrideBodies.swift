import VitrineConfig
import VitrineCore

/// An emergency override as the API describes it: `components/schemas/Override`
/// in docs/api/openapi.yaml. The answer to `POST` and `GET /api/v1/override`,
/// `override` in the status, and the data of the `overrideSet` event. The same
/// JSON as the stored override (`OverrideDocument.json`).
public struct OverrideBody: Codable, Hashable, Sendable {
    /// Names the override in the status, the log and events.
    public var id: String
    /// When it was set: RFC 3339, UTC, whole seconds.
    public var since: String
    /// When it ends by itself: RFC 3339, UTC, whole seconds.
    public var until: String
    /// Its own interval in the display form of a duration (`30s`); nil when the configuration's applies.
    @ExplicitNull public var interval: String?
    /// Its slides in their object form.
    public var slides: [SlideBody]

    public init(id: String, since: String, until: String, interval: String?, slides: [SlideBody]) {
        self.id = id
        self.since = since
        self.until = until
        self.interval = interval
        self.slides = slides
    }

    init(_ override: KioskOverride) {
        self.init(id: override.id, since: override.since.description, until: override.until.description,
                  interval: override.interval.map(DurationSyntax.format), slides: override.slides.map(SlideBody.init))
    }
}

/// A slide in its canonical object form, as `GET` answers have it: the
/// object variant of `components/schemas/Slide` (and `OverrideSlideObject`).
/// Only the keys the slide sets are written.
public struct SlideBody: Codable, Hashable, Sendable {
    public var path: String
    /// Overrides the interval for this slide, in the display form of a duration.
    public var duration: String?
    public var fit: FitMode?
    public var action: TapActionBody?

    public init(path: String, duration: String? = nil, fit: FitMode? = nil, action: TapActionBody? = nil) {
        self.path = path
        self.duration = duration
        self.fit = fit
        self.action = action
    }

    init(_ slide: SlideConfiguration) {
        self.init(path: slide.path, duration: slide.duration.map(DurationSyntax.format), fit: slide.fit,
                  action: slide.action.map(TapActionBody.init))
    }
}

/// What tapping a slide does: `components/schemas/TapAction`,
/// `{"goto": 3}` or `{"post": "http://…", "timeout": "2s"}`.
public enum TapActionBody: Codable, Hashable, Sendable {
    case goTo(slide: Int)
    /// `timeout` in the display form of a duration; answers always write it.
    case post(url: String, timeout: String?)

    init(_ action: TapAction) {
        switch action {
        case .goTo(let slide): self = .goTo(slide: slide)
        case .post(let url, let timeout): self = .post(url: url, timeout: DurationSyntax.format(timeout))
        }
    }

    private enum CodingKeys: String, CodingKey {
        case goTo = "goto"
        case post, timeout
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        if let slide = try container.decodeIfPresent(Int.self, forKey: .goTo) {
            self = .goTo(slide: slide)
        } else {
            self = .post(url: try container.decode(String.self, forKey: .post),
                         timeout: try container.decodeIfPresent(String.self, forKey: .timeout))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .goTo(let slide):
            try container.encode(slide, forKey: .goTo)
        case .post(let url, let timeout):
            try container.encode(url, forKey: .post)
            try container.encodeIfPresent(timeout, forKey: .timeout)
        }
    }
}

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
