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

    public init(connectors: [String], loop: any DisplayLoopLink) {
        self.connectors = connectors
        self.loop = loop
    }

    /// The group's name in the API: its leader's connector; nil when it has none.
    public var name: String? { connectors.first }
}
