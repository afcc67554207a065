/// The board's health in `StatusBody.board`: `components/schemas/BoardHealth`
/// in docs/api/openapi.yaml. The doctor's power and storage sections, read
/// again every minute by the running kiosk.
public struct BoardHealthBody: Codable, Hashable, Sendable {
    /// The worst subject's status: `ok`, `unavailable`, `warning` or `problem`.
    public var status: String
    /// When it was read (RFC 3339, UTC).
    public var checkedAt: String
    public var subjects: [BoardHealthSubjectBody]

    public init(status: String, checkedAt: String, subjects: [BoardHealthSubjectBody]) {
        self.status = status
        self.checkedAt = checkedAt
        self.subjects = subjects
    }
}

/// One subject of `BoardHealthBody`: `components/schemas/BoardHealthSubject`.
public struct BoardHealthSubjectBody: Codable, Hashable, Sendable {
    /// `power` or `storage`.
    public var id: String
    public var status: String
    public var summary: String
    /// What to act on, in words; empty when nothing.
    public var findings: [String]

    public init(id: String, status: String, summary: String, findings: [String]) {
        self.id = id
        self.status = status
        self.summary = summary
        self.findings = findings
    }
}
