/// One output group as the API addresses it: the connectors its loop drives
/// and that loop alone. `GET /api/v1/outputs` lists them; the `output` query
/// parameter of the status, screenshot, control and power routes picks one
/// by any of its connectors (`OutputAddress`).
public struct OutputGroupLink: Sendable {
    /// The connectors the group drives, its leader (the output whose
    /// `outputs` entry it shows) first; empty for a display with no connector
    /// (headless, or a card chosen without a name).
    public let connectors: [String]
    /// The group's own loop: commands sent here reach no other group.
    public let loop: any DisplayLoopLink
    /// The group's name in the API, its events, plays, metrics and override
    /// file: its leading output's connector, as the plan has it, even when
    /// that output could not be opened and a mirror stands in for it (so that
    /// the name, and what is kept under it, does not move with what opened);
    /// nil when it has none.
    public let name: String?

    /// - Parameter name: nil: the first connector.
    public init(name: String? = nil, connectors: [String], loop: any DisplayLoopLink) {
        self.name = name ?? connectors.first
        self.connectors = connectors
        self.loop = loop
    }

    /// Whether `output` names this group: its name or any connector it drives.
    public func answers(to output: String) -> Bool { name == output || connectors.contains(output) }
}
