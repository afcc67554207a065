import VitrineCore
import VitrineYAML

// Reading the `outputs` section (docs/configuration.md, "outputs"): each entry
// with its key path, then how the entries relate (VitrineCore's
// `OutputLayout.issues`), then what they name elsewhere in the file.

extension ConfigLoader {
    /// More outputs than any board has connectors: a bound on what a file can ask for.
    static let maximumOutputs = 32
    /// How far from the canvas's origin an output may be, and how large, in millimetres: 100 m.
    static let canvasMillimetres = 100_000.0
    /// More matchers than an output has touch devices: a bound on what a file can ask for.
    static let maximumTouchMatchers = 32

    /// Reads `outputs` into `c.outputs`, if it is there. `schedule` must be read
    /// already: an output's playlist names one of its playlists, and its
    /// entries may name outputs (`scheduleEntryPaths`: their key paths, as
    /// `readSchedule` returns them).
    static func readOutputs(_ top: inout ObjectReader, into c: inout KioskConfiguration, scheduleEntryPaths: [String] = []) {
        guard let (node, path) = top.take("outputs") else { return }
        let reader = top.reader
        guard let items = reader.sequence(node, at: path) else { return }
        guard !items.isEmpty else {
            reader.report(path, "must list at least one output; leave outputs out to drive output.connector or the first connected one")
            return
        }
        guard items.count <= maximumOutputs else {
            reader.report(path, "lists \(items.count) outputs: at most \(maximumOutputs)")
            return
        }
        let outputs = items.enumerated().map { index, item in readOutput(item, at: "\(path)[\(index)]", reader: reader) }
        // How the entries relate needs every entry: with one unreadable, the rest is not judged.
        guard outputs.allSatisfy({ $0 != nil }) else { return }
        let layout = OutputLayout(outputs.map { $0! })
        for issue in layout.issues { reader.report("\(path)[\(issue.output)].\(issue.key)", issue.message) }
        for issue in outputReferenceIssues(layout, in: c, scheduleEntryPaths: scheduleEntryPaths) { reader.report(issue.path, issue.message) }
        c.outputs = layout
    }

    /// What `outputs` names elsewhere and does not find there, or clashes with:
    /// a playlist the schedule does not have, and `output.connector` or
    /// `output.mode`, which choose the one output `outputs` replaces; and the
    /// outputs the schedule's entries name (`scheduleEntryIssues`). Also
    /// asked of a configuration put together from a push and the local file.
    /// `scheduleEntryPaths`: the entries' key paths, when reading left some
    /// out; by default `schedule.entries[i]`.
    public static func outputReferenceIssues(_ layout: OutputLayout, in c: KioskConfiguration,
                                             scheduleEntryPaths: [String] = []) -> [ConfigIssue] {
        var issues: [ConfigIssue] = []
        let playlists = c.schedule?.playlists.map(\.name) ?? []
        for (index, output) in layout.outputs.enumerated() {
            if case .playlist(let name) = output.content, !playlists.contains(name) {
                issues.append(ConfigIssue(path: "outputs[\(index)].playlist", message: unknownPlaylist(name, among: playlists)))
            }
        }
        if let schedule = c.schedule { issues += scheduleEntryIssues(schedule, layout: layout, entryPaths: scheduleEntryPaths) }
        if let connector = c.output.connector {
            issues.append(ConfigIssue(path: "output.connector", message: "cannot be given with outputs, which names the connectors: list \(connector) in outputs instead"))
        }
        if let mode = c.output.mode {
            issues.append(ConfigIssue(path: "output.mode", message: "cannot be given with outputs, which gives each connector its mode: give \(mode) as the mode of an output in outputs instead"))
        }
        return issues
    }

    private static func readOutput(_ node: YAMLNode, at path: String, reader: ConfigNodeReader) -> ConfiguredOutput? {
        guard var object = reader.object(node, at: path) else { return nil }
        defer { object.finish() }
        let issuesBefore = reader.issues.count
        // Every key is read before giving up on the entry, so each problem is reported.
        let name = object.read("name") { $0.string($1, at: $2) }
        if name == nil, !object.has("name") {
            reader.report(object.child("name"), "is required: the connector's kernel name, such as HDMI-A-1 (`vitrine displays` lists them)")
        }
        let mode = object.read("mode") { $0.displayMode($1, at: $2) }
        let rotation = object.read("rotation") { $0.rotation($1, at: $2) }
        let fit = object.read("fit") { $0.choice($1, at: $2, as: FitMode.self) }
        let playlist = object.read("playlist") { $0.string($1, at: $2) }
        let mirror = object.read("mirror") { $0.string($1, at: $2) }
        let canvas = object.read("canvas") { readCanvas($1, at: $2, reader: $0) }
        let whenMissing = object.read("whenMissing") { $0.choice($1, at: $2, as: MissingOutputPolicy.self) }
        let touch = object.read("touch") { readTouchMatchers($1, at: $2, reader: $0) }
        if object.has("mirror"), object.has("canvas") {
            reader.report(path, "has both mirror and canvas: a mirror shows what its source shows; give one of them")
            return nil
        }
        guard let name, reader.issues.count == issuesBefore else { return nil }
        let role: OutputRole = mirror.map { .mirror(of: $0) } ?? canvas.map { .canvas($0) } ?? .own
        return ConfiguredOutput(name: name, mode: mode, rotation: rotation, fit: fit, content: playlist.map { .playlist($0) } ?? .programme,
                                role: role, whenMissing: whenMissing ?? .wait, touch: touch)
    }

    /// What a touch matcher is, for the messages.
    private static let touchMatcherForms = "a part of the device's name, vendor:product such as \"0eef:0001\", or {phys: PREFIX} (a prefix of its physical path); `vitrine touch list` prints each"

    /// `touch: [Goodix, "0eef:0001", {phys: "usb-0000:01:00.0-1.3"}]`: the
    /// patterns `touch.include` takes, and physical path prefixes.
    private static func readTouchMatchers(_ node: YAMLNode, at path: String, reader: ConfigNodeReader) -> [InputDevicePattern]? {
        guard case .sequence(let items) = node else {
            reader.report(path, "must be a list of touch devices, each \(touchMatcherForms); found \(reader.describe(node))")
            return nil
        }
        guard items.count <= maximumTouchMatchers else {
            reader.report(path, "lists \(items.count) devices: at most \(maximumTouchMatchers)")
            return nil
        }
        let matchers = items.enumerated().map { index, item -> InputDevicePattern? in
            let itemPath = "\(path)[\(index)]"
            switch item {
            case .scalar:
                guard let text = reader.string(item, at: itemPath) else { return nil }
                guard !text.isEmpty else {
                    reader.report(itemPath, "must name a device: \(touchMatcherForms)")
                    return nil
                }
                return InputDevicePattern(text)
            case .mapping:
                guard var object = reader.object(item, at: itemPath) else { return nil }
                defer { object.finish() }
                guard object.has("phys") else {
                    reader.report(itemPath, "a mapping names a device by its physical path: {phys: PREFIX}, such as {phys: \"usb-0000:01:00.0-1.3\"}")
                    return nil
                }
                let prefix = object.read("phys") { reader, node, path -> String? in
                    guard let text = reader.string(node, at: path) else { return nil }
                    // An empty prefix would match every device that has a path.
                    guard !text.isEmpty else {
                        reader.report(path, "must be the start of a physical path, such as usb-0000:01:00.0-1.3 (`vitrine touch list` prints each device's)")
                        return nil
                    }
                    return text
                }
                return prefix.map { InputDevicePattern(physicalPathPrefix: $0) }
            case .sequence:
                reader.report(itemPath, "must be \(touchMatcherForms); found a list")
                return nil
            }
        }
        guard matchers.allSatisfy({ $0 != nil }) else { return nil }
        return matchers.map { $0! }
    }

    /// `{name: wall, x: 0, y: 0}`, with `width` and `height` when the display reports no size: millimetres.
    private static func readCanvas(_ node: YAMLNode, at path: String, reader: ConfigNodeReader) -> CanvasMembership? {
        guard var object = reader.object(node, at: path) else { return nil }
        defer { object.finish() }
        let name = object.read("name") { reader, node, path -> String? in
            guard let name = reader.string(node, at: path) else { return nil }
            guard isPlainName(name) else {
                reader.report(path, "a canvas's name must be letters, digits, - and _, found \"\(name)\"")
                return nil
            }
            return name
        }
        let place = -canvasMillimetres...canvasMillimetres, size = 1...canvasMillimetres
        let x = object.read("x") { $0.number($1, at: $2, in: place) }
        let y = object.read("y") { $0.number($1, at: $2, in: place) }
        let width = object.read("width") { $0.number($1, at: $2, in: size) }
        let height = object.read("height") { $0.number($1, at: $2, in: size) }
        for (key, read, what) in [("name", name != nil, "the canvas's name, the same on each of its outputs"),
                                  ("x", x != nil, "millimetres from the canvas's left edge to this output's picture area"),
                                  ("y", y != nil, "millimetres from the canvas's top edge to this output's picture area")]
            where !read && !object.has(key) {
            reader.report(object.child(key), "is required: \(what)")
        }
        if object.has("width") != object.has("height") {
            reader.report(path, "gives \(object.has("width") ? "width" : "height") alone: give both width and height (millimetres), or neither to use the size the display reports")
            return nil
        }
        guard let name, let x, let y, object.has("width") == (width != nil) else { return nil }
        return CanvasMembership(name: name, x: x, y: y, width: width, height: height)
    }
}
