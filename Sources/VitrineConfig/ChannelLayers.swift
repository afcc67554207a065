import FoundationEssentials
import VitrineCore
import VitrineYAML

/// A group's part of a channel (docs/fleet.md, "Groups and per-device values"):
/// the playlist-level keys of a configuration, which replace the channel's
/// own for the kiosks of that group (`channel.group`). Each key the group sets
/// replaces the base's key whole (a group's `transition` is all of
/// `transition`, with the defaults for what it leaves out); the keys it does
/// not set stay the base's. `slides` and `schedule` are one playlist: a group
/// that sets either replaces both. The machine's keys (`touch`, `output`,
/// `decode`, `power`) stay the base's, and per-device values (`DeviceValues`)
/// come on top.
public struct GroupPlaylist: Hashable, Sendable {
    /// What a group may set.
    public static let keys: [String] = [
        "slides", "schedule", "interval", "autoplay", "loop", "fit", "background", "placeholder", "onImageError",
        "transition", "indicator", "sync", "kenBurns",
    ]

    /// The top-level keys the group sets.
    public var sets: Set<String>
    /// The group's keys read as a configuration (defaults where it sets none).
    public var configuration: KioskConfiguration

    public init(sets: Set<String>, configuration: KioskConfiguration) {
        self.sets = sets
        self.configuration = configuration
    }

    /// Reads a group from configuration text (YAML, or JSON) with the same
    /// reader and checks as a configuration file, refusing keys a group may
    /// not set. Issues are by key path within the group.
    public static func parse(_ text: String, baseDirectory: String = ".", source: String? = nil,
                             blobReferences: Bool = false) throws(ConfigError) -> GroupPlaylist {
        let document = try ConfigLoader.compose(text, source: source)
        let sets = document.sections
        var issues = sets.subtracting(keys).sorted().map {
            ConfigIssue(path: $0, message: "a group may not set \($0): a group sets only \(keys.joined(separator: ", "))")
        }
        var configuration: KioskConfiguration?
        do {
            configuration = try document.configuration(baseDirectory: baseDirectory, blobReferences: blobReferences)
        } catch {
            issues += error.issues
        }
        guard issues.isEmpty, let configuration else { throw ConfigError(source: source, issues: issues) }
        return GroupPlaylist(sets: sets, configuration: configuration)
    }

    /// `base` with the group's keys in place of its own.
    public func applied(to base: KioskConfiguration) -> KioskConfiguration {
        var c = base
        let g = configuration
        if sets.contains("slides") || sets.contains("schedule") {
            c.slides = g.slides
            c.schedule = g.schedule
        }
        if sets.contains("interval") { c.interval = g.interval }
        if sets.contains("autoplay") { c.autoplay = g.autoplay }
        if sets.contains("loop") { c.loop = g.loop }
        if sets.contains("fit") { c.fit = g.fit }
        if sets.contains("background") { c.background = g.background }
        if sets.contains("placeholder") { c.placeholder = g.placeholder }
        if sets.contains("onImageError") { c.onImageError = g.onImageError }
        if sets.contains("transition") { c.transition = g.transition }
        if sets.contains("indicator") { c.indicator = g.indicator }
        if sets.contains("sync") { c.sync = g.sync }
        if sets.contains("kenBurns") { c.kenBurns = g.kenBurns }
        return c
    }

    /// The group in canonical JSON form: only the keys it sets, as
    /// `ConfigDocument` writes them.
    public var tree: [String: JSONValue] {
        ConfigDocument.tree(configuration).filter { sets.contains($0.key) }
    }
}

/// The values a channel sets for one kiosk, by its device id
/// (`channel.device`): the panel's rotation and the touch calibration, keyed
/// as a configuration file has them. Nil: the value is not set for this device
/// (the kiosk keeps its own).
public struct DeviceValues: Hashable, Sendable {
    /// The key paths a device entry may set.
    public static let keyPaths = ["output.rotation", "touch.calibration", "touch.devices"]

    /// `output.rotation`.
    public var rotation: Int?
    /// `touch.calibration`.
    public var calibration: [Double]?
    /// `touch.devices`: calibrations by input device.
    public var touchDevices: [TouchDeviceCalibration]?

    public init(rotation: Int? = nil, calibration: [Double]? = nil, touchDevices: [TouchDeviceCalibration]? = nil) {
        self.rotation = rotation
        self.calibration = calibration
        self.touchDevices = touchDevices
    }

    /// The key paths these values set, in `keyPaths`' order.
    public var setKeyPaths: [String] {
        zip(Self.keyPaths, [rotation != nil, calibration != nil, touchDevices != nil]).filter(\.1).map(\.0)
    }

    /// `configuration` with these values in place of its own.
    public func applied(to configuration: KioskConfiguration) -> KioskConfiguration {
        var c = configuration
        if let rotation { c.output.rotation = rotation }
        if let calibration { c.touch.calibration = calibration }
        if let touchDevices { c.touch.devices = touchDevices }
        return c
    }

    /// The entry in its JSON form: `{"output": {"rotation": 90}, "touch": {...}}`.
    public var tree: [String: JSONValue] {
        var tree: [String: JSONValue] = [:]
        if let rotation { tree["output"] = ["rotation": JSONValue(rotation)] }
        var touch: [String: JSONValue] = [:]
        if let calibration { touch["calibration"] = JSONValue(calibration) }
        if let touchDevices { touch["devices"] = .array(touchDevices.map(ConfigDocument.touchDevice)) }
        if !touch.isEmpty { tree["touch"] = .object(touch) }
        return tree
    }

    /// Reads a mapping of device ids to their values (YAML, or JSON):
    ///
    ///     lobby-left:
    ///       output: {rotation: 90}
    ///       touch: {calibration: [0, 1, 0, -1, 0, 1]}
    ///
    /// Each value through the configuration's own reader, so a rotation or a
    /// matrix is checked as in a configuration file. Issues are by key path
    /// (`lobby-left.output.rotation`).
    public static func parseDevices(_ text: String, source: String? = nil) throws(ConfigError) -> [String: DeviceValues] {
        func fail(_ path: String, _ message: String) -> ConfigError {
            ConfigError(source: source, issues: [ConfigIssue(path: path, message: message)])
        }
        let root: YAMLNode?
        do {
            root = try YAMLComposer.compose(text)
        } catch {
            throw fail("", ConfigLoader.syntaxMessage(error))
        }
        guard case .mapping(let mapping)? = root else {
            throw fail("", "must be a mapping of device ids (channel.device) to their values, such as lobby-left: {output: {rotation: 90}}")
        }
        var issues: [ConfigIssue] = []
        var devices: [String: DeviceValues] = [:]
        for (keyNode, entry) in mapping {
            guard case .scalar(let key) = keyNode else {
                issues.append(ConfigIssue(path: "", message: "a device id must be a string"))
                continue
            }
            let id = key.string
            if let problem = nameProblem(id) {
                issues.append(ConfigIssue(path: id, message: "a device id \(problem)"))
                continue
            }
            guard case .mapping(let sections) = entry else {
                issues.append(ConfigIssue(path: id, message: "must be a mapping such as {output: {rotation: 90}}"))
                continue
            }
            var sets = Set<String>()
            var allowed = true
            for (sectionKey, sectionNode) in sections {
                let section = sectionKey.scalar?.string ?? ""
                guard case .mapping(let inner) = sectionNode, ["output", "touch"].contains(section) else {
                    allowed = false
                    issues.append(ConfigIssue(path: "\(id).\(section)", message: "a device may set only \(keyPaths.joined(separator: ", "))"))
                    continue
                }
                for innerKey in inner.keys {
                    let keyPath = "\(section).\(innerKey.scalar?.string ?? "")"
                    if keyPaths.contains(keyPath) {
                        sets.insert(keyPath)
                    } else {
                        allowed = false
                        issues.append(ConfigIssue(path: "\(id).\(keyPath)", message: "a device may set only \(keyPaths.joined(separator: ", "))"))
                    }
                }
            }
            guard allowed else { continue }
            let configuration: KioskConfiguration
            do {
                configuration = try ConfigLoader.parse(entry)
            } catch {
                issues += error.issues.map { ConfigIssue(path: "\(id).\($0.path)", message: $0.message) }
                continue
            }
            devices[id] = DeviceValues(
                rotation: sets.contains("output.rotation") ? configuration.output.rotation : nil,
                calibration: sets.contains("touch.calibration") ? configuration.touch.calibration : nil,
                touchDevices: sets.contains("touch.devices") ? configuration.touch.devices : nil)
        }
        guard issues.isEmpty else { throw ConfigError(source: source, issues: issues) }
        return devices
    }

    /// Why `name` cannot be a group name or device id (one line of 1 to 200
    /// characters, as `channel.group` and `channel.device` are), or nil.
    public static func nameProblem(_ name: String) -> String? {
        name.isEmpty || name.count > 200 || name.contains(where: \.isNewline) ? "must be one line of 1 to 200 characters" : nil
    }
}
