import VitrineCore

/// A slide in its canonical object form: `{"path": ...}` and only the keys the
/// slide sets, durations in their display form (`90s`). It is the one writer of
/// a slide's JSON: the configuration document (`ConfigDocument.slide`, whose
/// bytes decide a configuration's version), the stored override and the API's
/// answers (the object variant of `components/schemas/Slide` in
/// docs/api/openapi.yaml) all write `document`. The slide reader
/// (`ConfigLoader.readSlide`) reads it back to an equal value.
public struct SlideBody: Codable, Hashable, Sendable {
    public var path: String
    /// Overrides the interval for this slide, in the display form of a duration.
    public var duration: String?
    public var fit: FitMode?
    public var action: TapActionBody?
    /// True when the slide shows only while nobody uses the kiosk; written
    /// only then, so that every slide without it keeps its bytes (and its
    /// configuration its version).
    public var attractOnly: Bool?
    /// The slide's own pan and zoom (`false` turns the top-level one off here);
    /// written only when the slide sets it, for the same reason.
    public var kenBurns: KenBurnsBody?
    /// True when a video slide loops for its duration; written only then.
    public var loop: Bool?

    public init(path: String, duration: String? = nil, fit: FitMode? = nil, action: TapActionBody? = nil,
                attractOnly: Bool? = nil, kenBurns: KenBurnsBody? = nil, loop: Bool? = nil) {
        self.path = path
        self.duration = duration
        self.fit = fit
        self.action = action
        self.attractOnly = attractOnly
        self.kenBurns = kenBurns
        self.loop = loop
    }

    public init(_ slide: SlideConfiguration) {
        self.init(path: slide.path, duration: slide.duration.map(DurationSyntax.format), fit: slide.fit,
                  action: slide.action.map(TapActionBody.init), attractOnly: slide.attractOnly ? true : nil,
                  kenBurns: slide.kenBurns.map(KenBurnsBody.init), loop: slide.loop ? true : nil)
    }

    /// The slide's JSON object.
    public var document: [String: JSONValue] {
        var entry: [String: JSONValue] = ["path": .string(path)]
        if let duration { entry["duration"] = .string(duration) }
        if let fit { entry["fit"] = .string(fit.rawValue) }
        if let action { entry["action"] = action.document }
        if attractOnly == true { entry["attractOnly"] = true }
        if let kenBurns { entry["kenBurns"] = kenBurns.document }
        if loop == true { entry["loop"] = true }
        return entry
    }

    public func encode(to encoder: any Encoder) throws {
        try JSONValue.object(document).encode(to: encoder)
    }
}

/// What tapping a slide does: `components/schemas/TapAction`,
/// `{"goto": 3}` or `{"post": "http://…", "timeout": "2s"}`.
public enum TapActionBody: Codable, Hashable, Sendable {
    case goTo(slide: Int)
    /// `timeout` in the display form of a duration; a slide's own always has it.
    case post(url: String, timeout: String?)

    public init(_ action: TapAction) {
        switch action {
        case .goTo(let slide): self = .goTo(slide: slide)
        case .post(let url, let timeout): self = .post(url: url, timeout: DurationSyntax.format(timeout))
        }
    }

    /// The action's JSON object.
    public var document: JSONValue {
        switch self {
        case .goTo(let slide):
            return ["goto": JSONValue(slide)]
        case .post(let url, let timeout):
            var object: [String: JSONValue] = ["post": .string(url)]
            if let timeout { object["timeout"] = .string(timeout) }
            return .object(object)
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
        try document.encode(to: encoder)
    }
}
