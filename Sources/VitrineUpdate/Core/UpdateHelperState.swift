import FoundationEssentials

/// What the update helper keeps between runs (`/var/lib/vitrine-update/state.json`,
/// root's alone): the floor, the newest manifest version it acted on, and
/// the versions it rolled back. The kiosk never writes it, so nothing the
/// kiosk (or whoever holds its API token) does can lower the floor.
public struct UpdateHelperState: Equatable, Sendable {
    public static let fileName = "state.json"

    /// The lowest version ever to be installed again; only rises.
    public var floor: String?
    /// The newest channel manifest version acted on: an older one is a replay.
    public var manifestVersion: UInt64?
    /// The newest channel root version a request verified under (`channel.root`).
    public var rootVersion: UInt64?
    /// Versions rolled back on this board, with why: not tried again until a
    /// channel names another version (then this is emptied).
    public var failed: [String: String]

    public init(floor: String? = nil, manifestVersion: UInt64? = nil, rootVersion: UInt64? = nil, failed: [String: String] = [:]) {
        self.floor = floor
        self.manifestVersion = manifestVersion
        self.rootVersion = rootVersion
        self.failed = failed
    }

    /// The floor raised to `candidate` when that is higher; never lowered.
    public mutating func raiseFloor(to candidate: PackageVersion?) {
        guard let candidate else { return }
        if let current = floor.flatMap(PackageVersion.init), candidate <= current { return }
        floor = candidate.text
    }

    private struct Document: Codable {
        var floor: String?
        var manifestVersion: UInt64?
        var rootVersion: UInt64?
        var failed: [String: String]?
    }

    public var json: [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        let document = Document(floor: floor, manifestVersion: manifestVersion, rootVersion: rootVersion, failed: failed.isEmpty ? nil : failed)
        return Array((try? encoder.encode(document)) ?? Data()) + [0x0A]
    }

    /// Nil with the reason when the bytes are not a state file.
    public static func parse(_ bytes: [UInt8]) -> Result<UpdateHelperState, UpdateFileError> {
        do {
            let document = try JSONDecoder().decode(Document.self, from: Data(bytes))
            if let floor = document.floor, PackageVersion(floor) == nil {
                return .failure(UpdateFileError(message: "floor: \"\(floor)\" is not a Debian version"))
            }
            return .success(UpdateHelperState(floor: document.floor, manifestVersion: document.manifestVersion,
                                                rootVersion: document.rootVersion, failed: document.failed ?? [:]))
        } catch {
            return .failure(UpdateFileError(message: "not an update helper state: \(error)"))
        }
    }
}

/// A file of the update helper's that cannot be read, and why.
public struct UpdateFileError: Error, Equatable, Sendable, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}
