import FoundationEssentials
import VitrineConfig
import VitrineCore

/// `channel.json`: what a channel says its kiosks should show, signed as a
/// whole by `channel.json.sig`. See docs/fleet.md.
///
///     {
///       "format": 1,
///       "version": 7,                               only ever increases
///       "published": "2026-03-28T12:00:00Z",
///       "expires": "2026-04-04T12:00:00Z",          optional
///       "epoch": "2026-03-28T00:00:00Z",            optional: for synchronised rotation (later)
///       "configuration": { ... },                   ConfigDocument's canonical form, slide paths "blob:<sha256>"
///       "blobs": { "<sha256>": {"path": "blobs/ab/<sha256>", "size": 123456} },
///       "groups": { "<name>": { ... } },             optional: each group's playlist (format 2)
///       "devices": { "<id>": { ... } },              optional: per-device values (format 2)
///       "plays": { "upload": "https://..." },        optional: where kiosks POST proof of play (format 2)
///       "software": { "version": "1.2.0", ... }      optional: the package version to run (format 3, ChannelSoftware)
///     }
///
/// Format 2 is format 1 with `groups` and `devices` in use, and format 3 is
/// format 2 with `software`. The publisher writes the oldest format that
/// holds what the manifest has, so kiosks that read only an older format
/// follow such a channel still, and refuse (rather than half understand) one
/// that serves what they cannot read: a kiosk that ignored `software` would
/// never be updated, and would not say why.
public struct ChannelManifest: Hashable, Sendable {
    /// The newest format, written when the manifest has `software`; format 2
    /// is written for groups, devices or plays without it, otherwise format 1.
    public static let format = 3
    /// The formats this code reads.
    public static let formats: ClosedRange<UInt64> = 1...3
    public static let fileName = "channel.json"
    public static let signatureFileName = "channel.json.sig"

    /// Only ever increases: a kiosk refuses a version not newer than the one it applied.
    public var version: UInt64
    public var published: WallInstant
    /// After this instant the manifest is refused: a publisher must re-sign
    /// (with a new version) before then, so a mirror that keeps serving an old
    /// manifest cannot freeze a kiosk on it for ever.
    public var expires: WallInstant?
    /// A reference instant for rotating in step across kiosks (not used yet).
    public var epoch: WallInstant?
    /// The configuration; its slide and placeholder paths are `blob:<sha256>`
    /// (each listed in `blobs`) or http(s) URLs.
    public var configuration: KioskConfiguration
    /// The configuration's JSON exactly as signed.
    public var configurationJSON: [UInt8]
    /// By SHA-256.
    public var blobs: [String: ChannelBlob]
    /// `groups` exactly as signed. In format 1 it was reserved: only checked
    /// to be an object, and nothing acts on it (`groups` stays empty).
    public var groupsJSON: [UInt8]?
    /// Format 2: each group's playlist by name (`channel.group`), pictures as
    /// `blob:` references or URLs like the configuration's. A kiosk picks its
    /// own after verification (`selecting(group:device:)`), so the signature
    /// covers every group at once.
    public var groups: [String: GroupPlaylist] = [:]
    /// Format 2: per-device values by device id (`channel.device`).
    public var devices: [String: DeviceValues] = [:]
    /// Format 2: the URL the channel's kiosks POST their plays to (`plays.upload`
    /// in the manifest), unless a kiosk's local file names its own.
    public var playsUpload: String?
    /// Format 3: the package version the channel's kiosks should run.
    public var software: ChannelSoftware?

    /// The blob a `blob:` reference names, if the manifest lists it.
    public func blob(for reference: String) -> ChannelBlob? {
        guard reference.hasPrefix(ChannelBlob.referencePrefix) else { return nil }
        return blobs[String(reference.dropFirst(ChannelBlob.referencePrefix.count))]
    }
}

/// A manifest that cannot be used, with every problem found in it.
public struct ChannelManifestError: Error, Hashable, Sendable, CustomStringConvertible {
    public var file: String
    /// Each by key path (`version`, `blobs.<sha256>.size`, `configuration.slides[0].path`;
    /// empty for the document), as a configuration's issues are.
    public var issues: [ConfigIssue]

    public init(file: String, issues: [ConfigIssue]) {
        self.file = file
        self.issues = issues
    }

    /// One line per issue: `channel.json: version: must be a whole number`.
    public var lines: [String] { issues.map { "\(file): \($0)" } }

    /// All on one line, for a log.
    public var description: String { lines.joined(separator: "; ") }
}

extension ChannelManifest {
    /// Reads and checks a manifest. This is parsing: call it only on bytes
    /// whose signature has been checked (`ChannelVerifier` does), or on the
    /// publisher's own file.
    public static func parse(_ bytes: [UInt8], file: String = fileName) throws(ChannelManifestError) -> ChannelManifest {
        func fail(_ field: String, _ message: String) -> ChannelManifestError {
            ChannelManifestError(file: file, issues: [ConfigIssue(path: field, message: message)])
        }
        let root: ManifestJSON
        do {
            root = try ManifestJSON.parse(bytes)
        } catch {
            throw fail("", "syntax error at \(ManifestJSON.position(of: error.offset, in: bytes)): \(error.message)")
        }
        guard case .object(let members) = root.value else { throw fail("", "must be a JSON object, found \(root.value.typeName)") }
        let fields = Dictionary(members.map { ($0.key, $0.value) }, uniquingKeysWith: { first, _ in first })

        // The format first: another format's fields may mean other things, so
        // nothing else is worth reporting.
        let numbers = Self.formats.map(String.init)
        let readable = "format " + (numbers.count > 1 ? numbers.dropLast().joined(separator: ", ") + " or " + numbers.last! : numbers[0])
        guard let format = fields["format"] else { throw fail("format", "is required (this Vitrine reads \(readable))") }
        guard case .number(let formatText) = format.value, let formatNumber = UInt64(formatText) else {
            throw fail("format", "must be a whole number, found \(describe(format.value))")
        }
        guard Self.formats.contains(formatNumber) else {
            throw fail("format", "unsupported format \(formatNumber): this Vitrine reads \(readable)")
        }

        var issues: [ConfigIssue] = []
        func report(_ field: String, _ message: String) { issues.append(ConfigIssue(path: field, message: message)) }
        var known: Set<String> = ["format", "version", "published", "expires", "epoch", "configuration", "blobs", "groups"]
        if formatNumber >= 2 { known.formUnion(["devices", "plays"]) }
        if formatNumber >= 3 { known.insert("software") }
        for (key, _) in members where !known.contains(key) {
            report(key, "unknown field (format \(formatNumber) has \(known.sorted().joined(separator: ", ")))")
        }

        func required(_ key: String) -> ManifestJSON? {
            if let value = fields[key] { return value }
            report(key, "is required")
            return nil
        }
        func whole(_ value: ManifestJSON, at field: String) -> UInt64? {
            guard case .number(let text) = value.value, let number = UInt64(text) else {
                report(field, "must be a whole number from 0 to \(UInt64.max), found \(describe(value.value))")
                return nil
            }
            return number
        }
        func instant(_ value: ManifestJSON, at field: String) -> WallInstant? {
            guard case .string(let text) = value.value, let instant = RFC3339.parse(text) else {
                report(field, "must be an RFC 3339 date and time such as 2026-03-28T12:00:00Z, found \(describe(value.value))")
                return nil
            }
            return instant
        }

        let version = required("version").flatMap { whole($0, at: "version") }
        let published = required("published").flatMap { instant($0, at: "published") }
        let expires = fields["expires"].flatMap { instant($0, at: "expires") }
        let epoch = fields["epoch"].flatMap { instant($0, at: "epoch") }
        if let published, let expires, expires <= published {
            report("expires", "must be after published (\(RFC3339.format(published))), found \(RFC3339.format(expires))")
        }

        var blobs: [String: ChannelBlob] = [:]
        if let node = required("blobs") {
            if case .object(let entries) = node.value {
                for (sha256, entry) in entries {
                    let field = "blobs.\(sha256)"
                    guard ChannelDigest.isSHA256(sha256) else {
                        report(field, "a blob's name must be its SHA-256: 64 lowercase hex digits")
                        continue
                    }
                    guard case .object(let properties) = entry.value else {
                        report(field, "must be an object {\"path\": ..., \"size\": ...}, found \(entry.value.typeName)")
                        continue
                    }
                    var path: String?
                    var size: UInt64?
                    for (key, value) in properties {
                        switch key {
                        case "path":
                            guard case .string(let text) = value.value else {
                                report("\(field).path", "must be a string, found \(value.value.typeName)")
                                continue
                            }
                            guard text == ChannelBlob.path(for: sha256) else {
                                report("\(field).path", "must be \(ChannelBlob.path(for: sha256)) (format \(formatNumber) fixes where a blob is), found \(text)")
                                continue
                            }
                            path = text
                        case "size":
                            size = whole(value, at: "\(field).size")
                        default:
                            report("\(field).\(key)", "unknown field (a blob has path and size)")
                        }
                    }
                    if !properties.contains(where: { $0.key == "path" }) { report("\(field).path", "is required") }
                    if !properties.contains(where: { $0.key == "size" }) { report("\(field).size", "is required") }
                    if path != nil, let size { blobs[sha256] = ChannelBlob(sha256: sha256, size: size) }
                }
            } else {
                report("blobs", "must be an object of blobs by SHA-256, found \(node.value.typeName)")
            }
        }

        var configuration: KioskConfiguration?
        var configurationJSON: [UInt8] = []
        if let node = required("configuration") {
            if case .object = node.value {
                configurationJSON = Array(bytes[node.range])
                configuration = readConfiguration(configurationJSON, blobs: blobs, report: report)
            } else {
                report("configuration", "must be an object (a configuration in its JSON form), found \(node.value.typeName)")
            }
        }

        var playsUpload: String?
        if formatNumber >= 2, let node = fields["plays"] {
            playsUpload = readPlays(node, report: report)
        }

        var groupsJSON: [UInt8]?
        var groups: [String: GroupPlaylist] = [:]
        if let node = fields["groups"] {
            if case .object(let entries) = node.value {
                groupsJSON = Array(bytes[node.range])
                // Format 1 reserved the field: checked to be an object, nothing more.
                if formatNumber >= 2 {
                    groups = readGroups(entries, in: bytes, blobs: blobs, report: report)
                }
            } else {
                report("groups", "must be an object, found \(node.value.typeName)")
            }
        }

        var devices: [String: DeviceValues] = [:]
        if formatNumber >= 2, let node = fields["devices"] {
            if case .object = node.value {
                do {
                    devices = try DeviceValues.parseDevices(String(decoding: bytes[node.range], as: UTF8.self))
                } catch {
                    for issue in error.issues { report(issue.path.isEmpty ? "devices" : "devices.\(issue.path)", issue.message) }
                }
            } else {
                report("devices", "must be an object of per-device values by device id, found \(node.value.typeName)")
            }
        }

        var software: ChannelSoftware?
        if formatNumber >= 3, let node = fields["software"] {
            software = ChannelSoftware.parse(node, report: report)
        }

        guard issues.isEmpty, let version, let published, let configuration else {
            throw ChannelManifestError(file: file, issues: issues)
        }
        return ChannelManifest(version: version, published: published, expires: expires, epoch: epoch,
                               configuration: configuration, configurationJSON: configurationJSON, blobs: blobs,
                               groupsJSON: groupsJSON, groups: groups, devices: devices, playsUpload: playsUpload,
                               software: software)
    }

    /// Format 2's `groups`: each through `GroupPlaylist` (the configuration
    /// reader, and only the keys a group may set), its pictures checked as the
    /// configuration's are.
    private static func readGroups(_ entries: [(key: String, value: ManifestJSON)], in bytes: [UInt8], blobs: [String: ChannelBlob],
                                   report: (String, String) -> Void) -> [String: GroupPlaylist] {
        var groups: [String: GroupPlaylist] = [:]
        for (name, entry) in entries {
            let field = "groups.\(name)"
            if let problem = DeviceValues.nameProblem(name) {
                report(field, "a group name \(problem)")
                continue
            }
            guard case .object = entry.value else {
                report(field, "must be an object (a group's playlist keys), found \(entry.value.typeName)")
                continue
            }
            let text = String(decoding: bytes[entry.range], as: UTF8.self)
            let group: GroupPlaylist
            do {
                group = try GroupPlaylist.parse(text, blobReferences: true)
            } catch {
                for issue in error.issues { report(issue.path.isEmpty ? field : "\(field).\(issue.path)", issue.message) }
                continue
            }
            checkPictures(of: group.configuration, at: field, blobs: blobs, report: report)
            groups[name] = group
        }
        return groups
    }

    /// The configuration through `ConfigLoader`, the same reader and checks a
    /// local file gets, then the channel's own rules: every picture is a
    /// listed blob or a URL, and `api` (the kiosk's own listener and token)
    /// never comes from a channel.
    private static func readConfiguration(_ json: [UInt8], blobs: [String: ChannelBlob],
                                          report: (String, String) -> Void) -> KioskConfiguration? {
        let text = String(decoding: json, as: UTF8.self)
        let document: ComposedConfiguration
        do {
            document = try ConfigLoader.compose(text)
        } catch {
            for issue in error.issues {
                report(issue.path.isEmpty ? "configuration" : "configuration.\(issue.path)", issue.message)
            }
            return nil
        }
        let sections = document.sections
        if sections.contains("api") {
            report("configuration.api", "a channel may not set api: the listener and token belong to each kiosk's local file")
        }
        if sections.contains("channel") {
            report("configuration.channel", "a channel may not set channel: which channel a kiosk follows, and with which keys, belongs to its local file")
        }
        if sections.contains("plays") {
            report("configuration.plays", "a channel may not set plays: where a kiosk's proof of play goes belongs to its local file")
        }
        let configuration: KioskConfiguration
        do {
            configuration = try document.configuration(blobReferences: true)
        } catch {
            for issue in error.issues {
                report(issue.path.isEmpty ? "configuration" : "configuration.\(issue.path)", issue.message)
            }
            return nil
        }
        checkPictures(of: configuration, at: "configuration", blobs: blobs, report: report)
        return configuration
    }

    /// Every picture a configuration (or a group) names is a listed blob or a URL.
    private static func checkPictures(of configuration: KioskConfiguration, at prefix: String, blobs: [String: ChannelBlob],
                                      report: (String, String) -> Void) {
        var pictures = configuration.allSlides.map { ($0.keyPath + ".path", $0.slide.path) }
        if let placeholder = configuration.placeholder { pictures.append(("placeholder", placeholder)) }
        for (keyPath, path) in pictures {
            let field = "\(prefix).\(keyPath)"
            if case .url = SlideSource(path) { continue }
            guard path.hasPrefix(ChannelBlob.referencePrefix) else {
                report(field, "must be blob:<sha256> (a picture the channel carries) or an http(s) URL, found \(path)")
                continue
            }
            let sha256 = String(path.dropFirst(ChannelBlob.referencePrefix.count))
            if !ChannelDigest.isSHA256(sha256) {
                report(field, "a blob reference must be blob: followed by 64 lowercase hex digits, found \(path)")
            } else if blobs[sha256] == nil {
                report(field, "names blob \(sha256), which blobs does not list")
            }
        }
    }

    /// `plays`: `{"upload": "https://..."}`, the only field it has.
    private static func readPlays(_ node: ManifestJSON, report: (String, String) -> Void) -> String? {
        guard case .object(let members) = node.value else {
            report("plays", "must be an object {\"upload\": URL}, found \(node.value.typeName)")
            return nil
        }
        var upload: String?
        for (key, value) in members {
            guard key == "upload" else {
                report("plays.\(key)", "unknown field (plays has upload)")
                continue
            }
            guard case .string(let text) = value.value, case .url = SlideSource(text), SlideSource.problem(with: text) == nil else {
                report("plays.upload", "must be an http:// or https:// URL, found \(describe(value.value))")
                continue
            }
            upload = text
        }
        if upload == nil, !members.contains(where: { $0.key == "upload" }) { report("plays.upload", "is required") }
        return upload
    }

    private static func describe(_ value: ManifestJSON.Value) -> String {
        switch value {
        case .number(let text): text
        case .string(let text): "\"\(text.count > 40 ? text.prefix(40) + "…" : text)\""
        default: value.typeName
        }
    }

    /// The manifest's bytes, as the publisher writes them: sorted keys, two
    /// spaces of indentation, a final newline. `configuration` must already
    /// name its pictures as `blob:` references, and so must the groups. Format
    /// 3 with software, else 2 with groups, devices or plays, else 1.
    public static func document(version: UInt64, published: WallInstant, expires: WallInstant?, epoch: WallInstant?,
                                configuration: KioskConfiguration, blobs: [ChannelBlob],
                                groups: [String: GroupPlaylist] = [:], devices: [String: DeviceValues] = [:],
                                playsUpload: String? = nil, software: ChannelSoftware? = nil) -> [UInt8] {
        let format = software != nil ? 3 : (groups.isEmpty && devices.isEmpty && playsUpload == nil ? 1 : 2)
        var tree: [String: JSONValue] = [
            "format": JSONValue(format),
            "version": JSONValue(version),
            "published": .string(RFC3339.format(published)),
            "configuration": .object(ConfigDocument.tree(configuration)),
            "blobs": .object(Dictionary(blobs.map { ($0.sha256, ["path": .string($0.path), "size": JSONValue($0.size)]) },
                                        uniquingKeysWith: { first, _ in first })),
        ]
        if let expires { tree["expires"] = .string(RFC3339.format(expires)) }
        if let epoch { tree["epoch"] = .string(RFC3339.format(epoch)) }
        if !groups.isEmpty { tree["groups"] = .object(groups.mapValues { .object($0.tree) }) }
        if !devices.isEmpty { tree["devices"] = .object(devices.mapValues { .object($0.tree) }) }
        if let playsUpload { tree["plays"] = ["upload": .string(playsUpload)] }
        if let software { tree["software"] = software.tree }
        return JSONValue.object(tree).encoded([.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]) + [0x0A]
    }
}
