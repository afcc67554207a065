/// `POST /api/v1/control`'s body: `components/schemas/ControlCommand` in
/// docs/api/openapi.yaml, `{"command": "next"}` or `{"command": "goto", "slide": 3}`.
public enum ControlCommand: Codable, Hashable, Sendable {
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

    private enum CodingKeys: String, CodingKey { case command, slide }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        switch try container.decode(ControlCommandName.self, forKey: .command) {
        case .next: self = .next
        case .previous: self = .previous
        case .pause: self = .pause
        case .resume: self = .resume
        case .goto: self = .goTo(slide: try container.decode(Int.self, forKey: .slide))
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
