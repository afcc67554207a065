import VitrineConfig

/// Format 3's `software`: which version of the `vitrine` package a channel's
/// kiosks should run, installed from the signed apt repository by the board's
/// update helper (`vitrine update`, run as root by `vitrine-update.service`;
/// docs/updates.md). The kiosk itself installs nothing.
///
///     "software": {
///       "version": "1.2.0",                 every kiosk without a group entry
///       "groups": {"canary": "1.3.0"},      optional: a staged rollout, by channel.group
///       "floor": "1.1.4"                    optional: raises the helper's floor, never lowers it
///     }
///
/// The floor exists for a stolen channel key: whoever holds it can name any
/// version the repository offers, but never one under the highest floor a
/// board has seen, so a fleet cannot be taken back to a vulnerable release.
public struct ChannelSoftware: Hashable, Sendable {
    /// The version kiosks without a group of their own in `groups` run.
    public var version: String
    /// By group name (`channel.group`).
    public var groups: [String: String]
    /// The lowest version a kiosk may ever run from now on.
    public var floor: String?

    public init(version: String, groups: [String: String] = [:], floor: String? = nil) {
        self.version = version
        self.groups = groups
        self.floor = floor
    }

    /// The version the kiosk of `group` should run.
    public func version(forGroup group: String?) -> String {
        group.flatMap { groups[$0] } ?? version
    }

    /// Why `text` is not a Debian package version (`[epoch:]upstream[-revision]`,
    /// upstream starting with a digit, Debian policy 5.6.12), or nil when it is one.
    public static func versionProblem(_ text: String) -> String? {
        guard !text.isEmpty else { return "is empty" }
        guard text.utf8.count <= 128 else { return "is longer than 128 characters" }
        var rest = Substring(text)
        if let colon = rest.firstIndex(of: ":") {
            let epoch = rest[..<colon]
            guard !epoch.isEmpty, epoch.allSatisfy(\.isASCII), epoch.allSatisfy(\.isNumber) else {
                return "has an epoch (before ':') that is not a whole number"
            }
            rest = rest[rest.index(after: colon)...]
        }
        guard let first = rest.first, first.isASCII, first.isNumber else {
            return "must start with a digit (after any epoch), as Debian versions do"
        }
        let allowed = Set("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.+~-")
        if let bad = rest.first(where: { !allowed.contains($0) }) {
            return "has \"\(bad)\", which a Debian version cannot contain (letters, digits and . + ~ - only)"
        }
        if rest.hasSuffix("-") { return "ends with '-' (an empty Debian revision)" }
        return nil
    }

    /// Reads `software` from a verified manifest, reporting each problem by key path.
    static func parse(_ node: ManifestJSON, report: (String, String) -> Void) -> ChannelSoftware? {
        guard case .object(let members) = node.value else {
            report("software", "must be an object {\"version\": ..., \"groups\": {...}, \"floor\": ...}, found \(node.value.typeName)")
            return nil
        }
        func version(_ value: ManifestJSON, at field: String) -> String? {
            guard case .string(let text) = value.value else {
                report(field, "must be a Debian package version as a string, such as \"1.2.0\", found \(value.value.typeName)")
                return nil
            }
            if let problem = versionProblem(text) {
                report(field, "\"\(text)\" \(problem)")
                return nil
            }
            return text
        }
        var main: String?
        var floor: String?
        var groups: [String: String] = [:]
        var valid = true
        for (key, value) in members {
            switch key {
            case "version":
                main = version(value, at: "software.version")
                if main == nil { valid = false }
            case "floor":
                floor = version(value, at: "software.floor")
                if floor == nil { valid = false }
            case "groups":
                guard case .object(let entries) = value.value else {
                    report("software.groups", "must be an object of versions by group name, found \(value.value.typeName)")
                    valid = false
                    continue
                }
                for (name, entry) in entries {
                    if let problem = DeviceValues.nameProblem(name) {
                        report("software.groups.\(name)", "a group name \(problem)")
                        valid = false
                    } else if let text = version(entry, at: "software.groups.\(name)") {
                        groups[name] = text
                    } else {
                        valid = false
                    }
                }
            default:
                report("software.\(key)", "unknown field (software has version, groups and floor)")
                valid = false
            }
        }
        if !members.contains(where: { $0.key == "version" }) {
            report("software.version", "is required (the version every kiosk without a group entry runs)")
            return nil
        }
        guard valid, let main else { return nil }
        return ChannelSoftware(version: main, groups: groups, floor: floor)
    }

    /// As the publisher writes it.
    var tree: JSONValue {
        var tree: [String: JSONValue] = ["version": .string(version)]
        if !groups.isEmpty { tree["groups"] = .object(groups.mapValues { .string($0) }) }
        if let floor { tree["floor"] = .string(floor) }
        return .object(tree)
    }
}
