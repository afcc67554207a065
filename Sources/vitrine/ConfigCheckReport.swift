import VitrineConfig

/// What `vitrine check-config --json` prints: `{"file": ..., "valid": Bool,
/// "issues": [{"path", "message"}]}`, every key always, and `warnings` in the
/// same form only when there are some (so a file without any prints what it always did).
struct ConfigCheckReport: Codable, Hashable, Sendable {
    /// The configuration file checked, as given.
    var file: String
    /// Whether the file is valid and every picture it names exists.
    var valid: Bool
    /// Every problem found, at its key path; empty when valid.
    var issues: [ConfigIssue]
    /// What this build does not do yet that the file asks for (`outputs` beyond the first); nil: none.
    var warnings: [ConfigIssue]?
}
