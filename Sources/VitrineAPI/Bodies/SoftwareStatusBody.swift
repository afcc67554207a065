import VitrineConfig
import VitrineCore
import VitrineRuntime

/// `software` in the status: the update helper's last run
/// (`components/schemas/SoftwareStatus`; docs/updates.md).
public struct SoftwareStatusBody: Codable, Hashable, Sendable {
    /// `installed`, `unchanged`, `rolled-back`, `refused`, `failed` or `unmanaged`.
    public var outcome: String
    /// When the helper wrote it (RFC 3339, UTC).
    public var at: String
    /// The vitrine package version installed after the run, as dpkg has it.
    @ExplicitNull public var installed: String?
    /// The version the channel named for this board.
    @ExplicitNull public var wanted: String?
    /// The version installed before the run.
    @ExplicitNull public var from: String?
    /// The lowest version this board will ever install again.
    @ExplicitNull public var floor: String?
    /// The channel manifest version the run acted on.
    @ExplicitNull public var manifestVersion: UInt64?
    public var detail: String

    public init(outcome: String, at: String, installed: String?, wanted: String?, from: String?, floor: String?,
                manifestVersion: UInt64?, detail: String) {
        self.outcome = outcome
        self.at = at
        self.installed = installed
        self.wanted = wanted
        self.from = from
        self.floor = floor
        self.manifestVersion = manifestVersion
        self.detail = detail
    }
}
