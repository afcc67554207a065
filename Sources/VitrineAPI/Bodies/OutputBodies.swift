import VitrineConfig

/// `GET /api/v1/outputs`'s answer: `components/schemas/OutputGroups` in
/// docs/api/openapi.yaml. One entry per output group (one display loop), the
/// kiosk's own first: what `/api/v1/status` answers with no `output`.
public struct OutputsBody: Codable, Hashable, Sendable {
    public var outputs: [OutputGroupBody]

    public init(outputs: [OutputGroupBody]) { self.outputs = outputs }
}

/// One output group in `OutputsBody`: `components/schemas/OutputGroup`.
public struct OutputGroupBody: Codable, Hashable, Sendable {
    /// What `output=` takes for this group: its leading connector; nil when
    /// the display has no connector name (headless).
    @ExplicitNull public var name: String?
    /// Every connector the group drives, `name` first; each is an `output=` for the group.
    public var connectors: [String]
    /// The group's own status, as `/api/v1/status?output=<name>` answers it.
    public var status: StatusBody

    public init(name: String?, connectors: [String], status: StatusBody) {
        self.name = name
        self.connectors = connectors
        self.status = status
    }
}
