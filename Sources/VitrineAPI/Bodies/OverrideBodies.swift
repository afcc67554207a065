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

/// What `/api/v1/override` answers, and the `overrideSet` event's data
/// (`components/schemas/OverrideAnswer`): an override's own fields
/// (`OverrideBody`, absent when only outputs have overrides of their own),
/// whose it is, and, for the whole kiosk, each output's own.
public struct OverrideAnswerBody: Codable, Hashable, Sendable {
    /// The override; nil when the kiosk has none for every output but some output has its own.
    public var override: OverrideBody?
    /// The output group whose own override it is (its leading connector); nil: the one for every output.
    public var output: String?
    /// `output` for an output's own, `all` for the one for every output.
    public var scope: Scope?
    /// GET without `output`: each output's own override, by name; nil otherwise.
    public var outputs: [String: OverrideBody]?

    public enum Scope: String, Codable, Hashable, Sendable {
        case output, all
    }

    public init(_ override: OverrideBody?, output: String? = nil, outputs: [String: OverrideBody]? = nil) {
        self.override = override
        self.output = output
        scope = override == nil ? nil : output == nil ? .all : .output
        self.outputs = outputs
    }

    enum CodingKeys: String, CodingKey { case output, scope, outputs }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        // The override's fields sit beside these; without an id there is none.
        override = try? OverrideBody(from: decoder)
        output = try container.decodeIfPresent(String.self, forKey: .output)
        scope = try container.decodeIfPresent(Scope.self, forKey: .scope)
        outputs = try container.decodeIfPresent([String: OverrideBody].self, forKey: .outputs)
    }

    public func encode(to encoder: any Encoder) throws {
        var document = override?.document ?? [:]
        if let output { document["output"] = .string(output) }
        if let scope { document["scope"] = .string(scope.rawValue) }
        if let outputs { document["outputs"] = .object(outputs.mapValues { .object($0.document) }) }
        try JSONValue.object(document).encode(to: encoder)
    }
}
