/// `POST /api/v1/control`'s body: `components/schemas/ControlCommand` in
/// docs/api/openapi.yaml, `{"command": "next"}` or `{"command": "goto", "slide": 3}`.
public enum ControlCommand: Codable, Hashable, Sendable, APIRequestBody {
    public static let keys = ["command", "slide"]
    public static let example = #"{"command": "next"}"#

    case next, previous, pause, resume
    case goTo(slide: Int)

    /// The command's name on the wire.
    public var name: ControlCommandName {
        switch self {
        case .next: .next
        case .previous: .previous
        case .pause: .pause
        case .resume: .resume
        case .goTo: .goto
        }
    }

    /// The highest slide index a `goto` may name: far above any playlist,
    /// low enough that no arithmetic on it overflows.
    public static let maxSlide = 1_000_000

    private enum CodingKeys: String, CodingKey { case command, slide }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let known = ControlCommandName.allCases.map(\.rawValue).joined(separator: ", ")
        guard let value = try? container.decodeIfPresent(String.self, forKey: .command), let name = ControlCommandName(rawValue: value) else {
            let found = (try? container.decodeIfPresent(String.self, forKey: .command)) ?? nil
            throw DecodingError.refused(.command, in: container, "must be one of \(known), found \(found ?? "something else")")
        }
        switch name {
        case .next: self = .next
        case .previous: self = .previous
        case .pause: self = .pause
        case .resume: self = .resume
        case .goto:
            // Decoded as an Int: true is not a slide, and neither is 1.5 or "1".
            guard let slide = try? container.decodeIfPresent(Int.self, forKey: .slide), (0...Self.maxSlide).contains(slide) else {
                throw DecodingError.refused(.slide, in: container, "must be a slide index for goto, a whole number from 0 to \(Self.maxSlide)")
            }
            self = .goTo(slide: slide)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .command)
        if case .goTo(let slide) = self { try container.encode(slide, forKey: .slide) }
    }
}

/// The commands' names, in the order the API lists them.
public enum ControlCommandName: String, Codable, Hashable, Sendable, CaseIterable {
    case next, previous, goto, pause, resume
}

/// `POST /api/v1/control`'s answer: `components/schemas/ControlAccepted`.
public struct ControlAccepted: Codable, Hashable, Sendable {
    public var accepted: ControlCommandName

    public init(accepted: ControlCommandName) { self.accepted = accepted }
}
