/// What the update helper does about a version a channel names. Pure: the
/// helper gathers the facts (what dpkg has installed, what the signed
/// repository offers, its own floor and the versions that failed before) and
/// this decides.
public enum UpdatePlan: Equatable, Sendable {
    /// The wanted version is the one installed.
    case alreadyInstalled
    case install(PackageVersion, replacing: PackageVersion)
    case refused(UpdateRefusal)

    /// The order of the checks is the order of what matters most: the floor
    /// first (a stolen channel key must never get past it, whatever else is
    /// true), then a version that was rolled back on this board before (not
    /// retried until the channel names another), then what the repository offers.
    public static func decide(wanted: PackageVersion, installed: PackageVersion?, floor: PackageVersion?,
                              failedBefore: [String: String], offered: [PackageVersion]) -> UpdatePlan {
        guard let installed else { return .refused(.notInstalledAsPackage) }
        if wanted == installed { return .alreadyInstalled }
        if let floor, wanted < floor { return .refused(.belowFloor(wanted: wanted.text, floor: floor.text)) }
        if let reason = failedBefore[wanted.text] { return .refused(.failedBefore(version: wanted.text, reason: reason)) }
        guard offered.contains(wanted) else {
            return .refused(.notOffered(version: wanted.text, offered: offered.sorted().map(\.text)))
        }
        return .install(wanted, replacing: installed)
    }
}

/// Why the helper did not install a version a channel named.
public enum UpdateRefusal: Equatable, Sendable, CustomStringConvertible {
    case belowFloor(wanted: String, floor: String)
    case failedBefore(version: String, reason: String)
    case notOffered(version: String, offered: [String])
    /// dpkg has no `vitrine` installed: the kiosk runs from deploy/install.sh
    /// or a build tree, which apt cannot replace.
    case notInstalledAsPackage

    /// Short and stable, for status and metrics.
    public var code: String {
        switch self {
        case .belowFloor: "below-floor"
        case .failedBefore: "failed-before"
        case .notOffered: "not-offered"
        case .notInstalledAsPackage: "not-a-package"
        }
    }

    public var description: String {
        switch self {
        case .belowFloor(let wanted, let floor):
            "vitrine \(wanted) is older than this board's floor, \(floor): it is never installed again (a channel raises the floor with software.floor and can never lower it)"
        case .failedBefore(let version, let reason):
            "vitrine \(version) was rolled back on this board before (\(reason)); it is not tried again until the channel names another version"
        case .notOffered(let version, let offered):
            "vitrine \(version) is not in the signed apt repository (it offers \(offered.isEmpty ? "none" : offered.joined(separator: ", "))): publish it there first (make repo)"
        case .notInstalledAsPackage:
            "the vitrine package is not installed (dpkg-query knows no vitrine): a kiosk installed by deploy/install.sh is not updated through apt"
        }
    }
}
