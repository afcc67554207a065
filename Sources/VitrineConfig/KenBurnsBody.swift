import VitrineCore

/// `kenBurns` in its canonical form, top level and per slide
/// (`components/schemas/KenBurns` in docs/api/openapi.yaml): `false`, or the
/// object of its form with every key written, `easing` included. `true` is
/// written as the object it stands for. The one writer of the key:
/// `ConfigDocument` and `SlideBody` write `document`; `ConfigLoader.readKenBurns`
/// reads it back to an equal value.
public enum KenBurnsBody: Codable, Hashable, Sendable {
    case off
    case rectangles(from: [Double], to: [Double], easing: Easing)
    case seeded(seed: UInt32, zoom: Double, easing: Easing)

    public init(_ kenBurns: KenBurns) {
        switch kenBurns {
        case .off:
            self = .off
        case .rectangles(let from, let to, let easing):
            self = .rectangles(from: [from.x, from.y, from.width, from.height], to: [to.x, to.y, to.width, to.height], easing: easing)
        case .seeded(let seed, let zoom, let easing):
            self = .seeded(seed: seed, zoom: zoom, easing: easing)
        }
    }

    public var document: JSONValue {
        switch self {
        case .off:
            return .bool(false)
        case .rectangles(let from, let to, let easing):
            return ["from": JSONValue(from), "to": JSONValue(to), "easing": .string(easing.rawValue)]
        case .seeded(let seed, let zoom, let easing):
            return ["seed": JSONValue(Int(seed)), "zoom": JSONValue(zoom), "easing": .string(easing.rawValue)]
        }
    }

    private enum CodingKeys: String, CodingKey {
        case from, to, seed, zoom, easing
    }

    public init(from decoder: any Decoder) throws {
        if let on = try? decoder.singleValueContainer().decode(Bool.self) {
            self = on ? .seeded(seed: 0, zoom: KenBurns.defaultZoom, easing: KenBurns.defaultEasing) : .off
            return
        }
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let easing = try container.decodeIfPresent(Easing.self, forKey: .easing) ?? KenBurns.defaultEasing
        if container.contains(.from) || container.contains(.to) {
            self = .rectangles(from: try container.decode([Double].self, forKey: .from),
                               to: try container.decode([Double].self, forKey: .to), easing: easing)
        } else {
            self = .seeded(seed: try container.decodeIfPresent(UInt32.self, forKey: .seed) ?? 0,
                           zoom: try container.decodeIfPresent(Double.self, forKey: .zoom) ?? KenBurns.defaultZoom, easing: easing)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        try document.encode(to: encoder)
    }
}
