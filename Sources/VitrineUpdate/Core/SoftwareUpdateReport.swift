import FoundationEssentials
import VitrineChannel
import VitrineCore

/// The outcome of the update helper's last run
/// (`/var/lib/vitrine-update/report.json`, mode 0644): what the kiosk reports
/// in `/api/v1/status`, `/metrics`, its log and its proof of play. Written
/// by root, read by the kiosk.
public struct SoftwareUpdateReport: Equatable, Sendable {
    public static let fileName = "report.json"
    public static let standardDirectory = "/var/lib/vitrine-update"

    public enum Outcome: String, Codable, Sendable, CaseIterable {
        /// The wanted version was installed and ran healthy.
        case installed
        /// The wanted version is the one installed: nothing to do.
        case unchanged
        /// The wanted version did not run healthy; the previous one is back.
        case rolledBack = "rolled-back"
        /// Not installed: below the floor, rolled back before, not in the
        /// repository, or a request that does not verify.
        case refused
        /// Something failed that needs a person: apt could not install, or the
        /// rollback itself did not come back healthy.
        case failed
        /// The channel names no version: the helper removed its apt pin, and
        /// apt's own upgrades apply again.
        case unmanaged
    }

    public var at: WallInstant
    public var outcome: Outcome
    /// The manifest version the request carried, when it verified.
    public var manifestVersion: UInt64?
    /// The version the channel named for this board.
    public var wanted: String?
    /// The version installed before the run.
    public var from: String?
    /// The version installed after it.
    public var installed: String?
    public var floor: String?
    /// One sentence: why, or what was seen.
    public var detail: String

    public init(at: WallInstant, outcome: Outcome, manifestVersion: UInt64? = nil, wanted: String? = nil, from: String? = nil,
                installed: String? = nil, floor: String? = nil, detail: String) {
        self.at = at
        self.outcome = outcome
        self.manifestVersion = manifestVersion
        self.wanted = wanted
        self.from = from
        self.installed = installed
        self.floor = floor
        self.detail = detail
    }

    private struct Document: Codable {
        var at: String
        var outcome: Outcome
        var manifestVersion: UInt64?
        var wanted: String?
        var from: String?
        var installed: String?
        var floor: String?
        var detail: String
    }

    public var json: [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        let document = Document(at: RFC3339.format(at), outcome: outcome, manifestVersion: manifestVersion, wanted: wanted, from: from,
                                installed: installed, floor: floor, detail: detail)
        return Array((try? encoder.encode(document)) ?? Data()) + [0x0A]
    }

    public static func parse(_ bytes: [UInt8]) -> Result<SoftwareUpdateReport, UpdateFileError> {
        let document: Document
        do {
            document = try JSONDecoder().decode(Document.self, from: Data(bytes))
        } catch {
            return .failure(UpdateFileError(message: "not an update report: \(error)"))
        }
        guard let at = RFC3339.parse(document.at) else { return .failure(UpdateFileError(message: "at: must be an RFC 3339 time")) }
        return .success(SoftwareUpdateReport(at: at, outcome: document.outcome, manifestVersion: document.manifestVersion,
                                             wanted: document.wanted, from: document.from, installed: document.installed,
                                             floor: document.floor, detail: document.detail))
    }
}
