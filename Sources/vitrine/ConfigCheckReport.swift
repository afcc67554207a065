import VitrineConfig

/// What `vitrine check-config --json` prints: `{"file": ..., "valid": Bool,
/// "issues": [{"path", "message"}]}`, every key always.
struct ConfigCheckReport: Codable, Hashable, Sendable {
    /// The configuration file checked, as given.
    var file: String
    /// Whether the file is valid and every picture it names exists.
    var valid: Bool
    /// Every problem found, at its key path; empty when valid.
    var issues: [ConfigIssue]
}
