import FoundationEssentials
import VitrineCore
import VitrineYAML

/// Turns configuration text (YAML, or JSON, which YAML reads too) into a
/// validated `KioskConfiguration`, or a `ConfigError` listing every problem.
public enum ConfigLoader {
    /// Reads and validates the file at `path`; relative paths inside it resolve
    /// against its directory.
    public static func load(file path: String) throws(ConfigError) -> KioskConfiguration {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw ConfigError(source: path, issues: [ConfigIssue(path: "", message: "cannot read the file: \(readFailure(path))")])
        }
        let directory = directoryOfPath(path)
        return try parse(text, baseDirectory: directory.isEmpty ? "." : directory, source: path)
    }

    /// - Parameter blobReferences: whether pictures may be `blob:<sha256>`, as
    ///   only a channel manifest's configuration may name them.
    public static func parse(_ text: String, baseDirectory: String = ".", source: String? = nil,
                             blobReferences: Bool = false) throws(ConfigError) -> KioskConfiguration {
        try compose(text, source: source).configuration(baseDirectory: baseDirectory, blobReferences: blobReferences)
    }

    /// Composes `text` once (YAML, or JSON), for a reader that needs both its
    /// top-level keys and its values (a push, a channel's configuration, a
    /// group): throws only for a syntax error or an empty document.
    public static func compose(_ text: String, source: String? = nil) throws(ConfigError) -> ComposedConfiguration {
        let root: YAMLNode?
        do {
            root = try YAMLComposer.compose(text)
        } catch {
            throw ConfigError(source: source, issues: [ConfigIssue(path: "", message: syntaxMessage(error))])
        }
        guard let root else {
            throw ConfigError(source: source, issues: [ConfigIssue(path: "", message: "the configuration is empty")])
        }
        return ComposedConfiguration(root: root, source: source)
    }

    /// Reads and validates an already composed document (a device's values inside a channel's devices file).
    static func parse(_ root: YAMLNode, baseDirectory: String = ".", source: String? = nil,
                      blobReferences: Bool = false) throws(ConfigError) -> KioskConfiguration {
        // An empty document, or one holding only `---` or `null`, has nothing to read.
        if case .scalar(let scalar) = root, scalar.style == .plain, ["", "~", "null", "Null", "NULL"].contains(scalar.string) {
            throw ConfigError(source: source, issues: [ConfigIssue(path: "", message: "the configuration is empty")])
        }
        let reader = ConfigNodeReader()
        reader.allowsBlobReferences = blobReferences
        var configuration = KioskConfiguration()
        configuration.baseDirectory = baseDirectory
        if var top = reader.object(root, at: "") {
            read(&top, into: &configuration)
            top.finish()
        }
        guard reader.issues.isEmpty else { throw ConfigError(source: source, issues: reader.issues) }
        return configuration
    }

    /// libinput's calibration matrix: six numbers.
    private static func calibrationMatrix(_ reader: ConfigNodeReader, _ node: YAMLNode, _ path: String) -> [Double]? {
        guard let items = reader.sequence(node, at: path) else { return nil }
        guard items.count == 6 else {
            reader.report(path, "must be six numbers [a, b, c, d, e, f] (libinput's calibration matrix), found \(items.count)")
            return nil
        }
        let values = items.enumerated().compactMap { reader.number($1, at: "\(path)[\($0)]", in: -100...100) }
        return values.count == 6 ? values : nil
    }


    /// Problems with the files a valid configuration names: missing or unreadable
    /// slide and placeholder files. `run` shows the placeholder for these;
    /// `check-config` reports them.
    public static func fileIssues(in configuration: KioskConfiguration) -> [ConfigIssue] {
        var issues: [ConfigIssue] = []
        func check(_ path: String, at keyPath: String) {
            let resolved: String
            switch (SlideSource(path), configuration.resolve(path)) {
            case (.url, nil):
                return  // Downloaded while the kiosk runs; until then the placeholder shows.
            case (.asset(let id), nil):
                issues.append(ConfigIssue(path: keyPath, message: "asset \(id) cannot be found here: only a kiosk's state directory holds assets"))
                return
            case (.file, nil):
                return  // A file path always resolves.
            case (.asset(let id), let file?) where !FileManager.default.fileExists(atPath: file):
                issues.append(ConfigIssue(path: keyPath, message: "asset \(id) has not been uploaded"))
                return
            case (_, let file?):
                resolved = file
            }
            var isDirectory = false
            if !FileManager.default.fileExists(atPath: resolved, isDirectory: &isDirectory) {
                issues.append(ConfigIssue(path: keyPath, message: "file not found: \(resolved)"))
            } else if isDirectory {
                issues.append(ConfigIssue(path: keyPath, message: "is a directory, not a picture: \(resolved)"))
            } else if !FileManager.default.isReadableFile(atPath: resolved) {
                issues.append(ConfigIssue(path: keyPath, message: "file is not readable: \(resolved)"))
            }
        }
        for (keyPath, slide) in configuration.allSlides { check(slide.path, at: keyPath + ".path") }
        if let placeholder = configuration.placeholder { check(placeholder, at: "placeholder") }
        return issues
    }

    // MARK: Sections

    private static func read(_ top: inout ObjectReader, into c: inout KioskConfiguration) {
        if let (node, path) = top.take("slides"), let items = top.reader.sequence(node, at: path) {
            c.slides = items.enumerated().compactMap { index, item in
                readSlide(item, at: "\(path)[\(index)]", reader: top.reader)
            }
        }
        for (index, slide) in c.slides.enumerated() {
            if case .goTo(let target)? = slide.action, target >= c.slides.count {
                top.reader.report("slides[\(index)].action.goto", "there is no slide \(target): the playlist has \(c.slides.count) slides (counting from 0)")
            }
        }
        c.interval = top.read("interval") { $0.duration($1, at: $2) } ?? c.interval
        c.autoplay = top.read("autoplay") { $0.bool($1, at: $2) } ?? c.autoplay
        c.loop = top.read("loop") { $0.bool($1, at: $2) } ?? c.loop
        c.fit = top.read("fit") { $0.choice($1, at: $2, as: FitMode.self) } ?? c.fit
        c.background = top.read("background") { $0.color($1, at: $2) } ?? c.background
        if let (node, path) = top.take("placeholder"), let file = top.reader.string(node, at: path) {
            c.placeholder = validPath(file, at: path, reader: top.reader)
        }
        c.onImageError = top.read("onImageError") { $0.choice($1, at: $2, as: ImageErrorPolicy.self) } ?? c.onImageError
        c.showAddress = top.read("showAddress") { $0.bool($1, at: $2) } ?? c.showAddress
        // `false` at the top level is the same as leaving it out: no default.
        c.kenBurns = top.read("kenBurns") { readKenBurns($1, at: $2, reader: $0) }.flatMap { $0 == .off ? nil : $0 }
        section(&top, "transition") { t in
            c.transition.kind = t.read("type") { $0.choice($1, at: $2, as: TransitionKind.self) } ?? c.transition.kind
            c.transition.duration = t.read("duration") { $0.duration($1, at: $2, maximum: .seconds(10)) } ?? c.transition.duration
            c.transition.easing = t.read("easing") { $0.choice($1, at: $2, as: Easing.self) } ?? c.transition.easing
        }
        section(&top, "indicator") { i in
            c.indicator.visible = i.read("visible") { $0.bool($1, at: $2) } ?? c.indicator.visible
            c.indicator.diameter = i.read("diameter") { $0.integer($1, at: $2, in: 1...512) } ?? c.indicator.diameter
            c.indicator.spacing = i.read("spacing") { $0.integer($1, at: $2, in: 0...1024) } ?? c.indicator.spacing
            c.indicator.color = i.read("color") { $0.color($1, at: $2) } ?? c.indicator.color
            c.indicator.currentColor = i.read("currentColor") { $0.color($1, at: $2) } ?? c.indicator.currentColor
            c.indicator.position = i.read("position") { $0.choice($1, at: $2, as: IndicatorPosition.self) } ?? c.indicator.position
            c.indicator.margin = i.read("margin") { $0.integer($1, at: $2, in: 0...4096) } ?? c.indicator.margin
        }
        section(&top, "touch") { t in
            c.touch.resumeDelay = t.read("resumeDelay") { $0.duration($1, at: $2, allowZero: true, maximum: .seconds(3600)) } ?? c.touch.resumeDelay
            c.touch.include = t.read("include") { $0.stringList($1, at: $2) } ?? c.touch.include
            c.touch.exclude = t.read("exclude") { $0.stringList($1, at: $2) } ?? c.touch.exclude
            c.touch.calibration = t.read("calibration", calibrationMatrix) ?? c.touch.calibration
            if let (node, path) = t.take("devices"), let items = t.reader.sequence(node, at: path) {
                c.touch.devices = items.enumerated().compactMap { index, item in
                    guard var entry = t.reader.object(item, at: "\(path)[\(index)]") else { return nil }
                    defer { entry.finish() }
                    let match = entry.read("match") { reader, node, path -> String? in
                        guard let text = reader.string(node, at: path) else { return nil }
                        guard !text.isEmpty else { reader.report(path, "must name a device: a part of its name, or vendor:product such as 0eef:0001"); return nil }
                        return text
                    }
                    if match == nil, !entry.has("match") {
                        t.reader.report(entry.child("match"), "is required: a part of the device's name, or vendor:product such as 0eef:0001")
                    }
                    let matrix = entry.read("calibration", calibrationMatrix)
                    if matrix == nil, !entry.has("calibration") {
                        t.reader.report(entry.child("calibration"), "is required: six numbers [a, b, c, d, e, f]")
                    }
                    guard let match, let matrix else { return nil }
                    return TouchDeviceCalibration(pattern: InputDevicePattern(match), matrix: matrix)
                }
            }
            c.touch.tapMaxDuration = t.read("tapMaxDuration") { $0.duration($1, at: $2, maximum: .seconds(5)) } ?? c.touch.tapMaxDuration
            c.touch.tapSlopMillimetres = t.read("tapSlop") { $0.number($1, at: $2, in: 0.1...100) } ?? c.touch.tapSlopMillimetres
            c.touch.swipeFraction = t.read("swipeFraction") { $0.number($1, at: $2, in: 0.01...1) } ?? c.touch.swipeFraction
            c.touch.flickVelocityMillimetresPerSecond = t.read("flickVelocity") { $0.number($1, at: $2, in: 1...100_000) }
                ?? c.touch.flickVelocityMillimetresPerSecond
            if let (node, path) = t.take("attract"), var attract = t.reader.object(node, at: path) {
                defer { attract.finish() }
                let idle = attract.read("after") { $0.duration($1, at: $2, maximum: .seconds(86_400)) }
                if idle == nil, !attract.has("after") {
                    t.reader.report(attract.child("after"), "is required: how long after the last touch the kiosk goes back home, such as 60s")
                }
                let home = attract.read("home") { $0.integer($1, at: $2, in: 0...9_999) } ?? 0
                if let idle { c.touch.attract = AttractMode.Settings(idle: idle, home: home) }
            }
        }
        section(&top, "output") { o in
            c.output.display = o.read("display") { $0.choice($1, at: $2, as: DisplayMode.self) } ?? c.output.display
            c.output.card = o.read("card") { $0.string($1, at: $2) } ?? c.output.card
            c.output.connector = o.read("connector") { $0.string($1, at: $2) } ?? c.output.connector
            c.output.mode = o.read("mode") { $0.displayMode($1, at: $2) } ?? c.output.mode
            c.output.modesetting = o.read("modesetting") { $0.choice($1, at: $2, as: ModesettingInterface.self) } ?? c.output.modesetting
            c.output.planes = o.read("planes") { $0.choice($1, at: $2, as: PlanePlanner.Mode.self) } ?? c.output.planes
            c.output.planeMemoryMiB = o.read("planeMemory") { $0.integer($1, at: $2, in: 16...4096) } ?? c.output.planeMemoryMiB
            c.output.rotation = o.read("rotation") { $0.rotation($1, at: $2)?.rawValue } ?? c.output.rotation
            c.output.width = o.read("width") { $0.integer($1, at: $2, in: 16...16384) } ?? c.output.width
            c.output.height = o.read("height") { $0.integer($1, at: $2, in: 16...16384) } ?? c.output.height
            c.output.preview = o.read("preview") { $0.string($1, at: $2) } ?? c.output.preview
        }
        section(&top, "decode") { d in
            c.decode.maxPixels = d.read("maxPixels") { $0.integer($1, at: $2, in: 1...1_000_000_000) } ?? c.decode.maxPixels
            c.decode.cacheSlides = d.read("cacheSlides") { $0.integer($1, at: $2, in: 3...64) } ?? c.decode.cacheSlides
            c.decode.maxVideoBitrateMbps = d.read("maxVideoBitrate") { $0.integer($1, at: $2, in: 1...1000) } ?? c.decode.maxVideoBitrateMbps
        }
        let scheduleEntryPaths = readSchedule(&top, into: &c)
        readOutputs(&top, into: &c, scheduleEntryPaths: scheduleEntryPaths)
        scheduleIssues(c, entryPaths: scheduleEntryPaths, outputsSection: top.has("outputs"), reader: top.reader)
        // The schedule's playlists differ in length: with one, home is clamped to the playlist on screen.
        if let home = c.touch.attract?.home, c.schedule == nil, !c.slides.isEmpty, home >= c.slides.count {
            top.reader.report("touch.attract.home", "is slide \(home), but the playlist has \(c.slides.count) slide\(c.slides.count == 1 ? "" : "s") (counted from 0)")
        }
        checkAttractOnly(c, reader: top.reader)
        if let (node, path) = top.take("sync"), let sync = RotationSync.read(node, at: path, reader: top.reader) { c.sync = sync }
        section(&top, "power") { p in
            c.power.wakeOnTouch = p.read("wakeOnTouch") { (reader, node, path) -> Duration?? in
                if case .scalar(let scalar) = node, scalar.string == "off" { return .some(nil) }
                return reader.duration(node, at: path, maximum: .seconds(86_400)).map { .some($0) }
            } ?? c.power.wakeOnTouch
            c.power.cec = p.read("cec") { reader, node, path in
                guard let text = reader.string(node, at: path) else { return nil }
                guard let setting = CECSetting(text) else {
                    reader.report(path, "must be auto, off or a CEC adapter's device node, /dev/cecN (such as /dev/cec0), found \(text)")
                    return nil
                }
                return setting
            } ?? c.power.cec
        }
        section(&top, "api") { a in
            c.api.listen = a.read("listen") { reader, node, path in
                guard let text = reader.string(node, at: path) else { return nil }
                guard let address = APIListenAddress(parsing: text) else {
                    reader.report(path, "must be HOST:PORT (0.0.0.0:8080, [::]:8080) or off, found \(text)")
                    return nil
                }
                return address
            } ?? c.api.listen
            c.api.token = a.read("token") { reader, node, path in
                guard let token = reader.string(node, at: path) else { return nil }
                guard token.count >= APIConfiguration.minimumTokenLength,
                      token.unicodeScalars.allSatisfy({ (0x21...0x7E).contains($0.value) }) else {
                    reader.report(path, "must be at least \(APIConfiguration.minimumTokenLength) printable ASCII characters without spaces")
                    return nil
                }
                return token
            } ?? c.api.token
            if let (node, path) = a.take("tls"), var tls = a.reader.object(node, at: path) {
                let certificate = tls.read("certificate") { $0.string($1, at: $2) }
                let key = tls.read("key") { $0.string($1, at: $2) }
                for (name, value) in [("certificate", certificate), ("key", key)] where value == nil && !tls.has(name) {
                    tls.reader.report(tls.child(name), "is required (a PEM file)")
                }
                tls.finish()
                if let certificate, let key { c.api.tls = TLSFiles(certificate: c.absolute(certificate), key: c.absolute(key)) }
            }
            c.api.maxUploadBytes = a.read("maxUploadSize") { $0.byteSize($1, at: $2, in: 1024...2_000_000_000) } ?? c.api.maxUploadBytes
            c.api.minimumFreeBytes = a.read("minimumFreeSpace") { $0.byteSize($1, at: $2, in: 0...1_000_000_000_000) } ?? c.api.minimumFreeBytes
            c.api.urlRefresh = a.read("urlRefresh") { $0.duration($1, at: $2, maximum: .seconds(7 * 86_400)) } ?? c.api.urlRefresh
            c.api.urlTimeout = a.read("urlTimeout") { $0.duration($1, at: $2, maximum: .seconds(600)) } ?? c.api.urlTimeout
            c.api.outbound.allowed = a.read("allowAddresses") { reader, node, path -> Set<NetworkAddressKind>? in
                guard let names = reader.stringList(node, at: path) else { return nil }
                var kinds = Set<NetworkAddressKind>()
                let allowable = OutboundPolicy.allowable.map(\.rawValue)
                for (index, name) in names.enumerated() {
                    guard let kind = NetworkAddressKind(rawValue: name), OutboundPolicy.allowable.contains(kind) else {
                        reader.report("\(path)[\(index)]", "must be one of \(allowable.joined(separator: ", ")), found \(name)")
                        return nil
                    }
                    kinds.insert(kind)
                }
                return kinds
            } ?? c.api.outbound.allowed
        }
        if let (node, path) = top.take("channel") {
            c.channel = ChannelConfigurationReader.read(node, at: path, reader: top.reader, in: c)
        }
        section(&top, "plays") { PlaysConfigurationReader.read(&$0, into: &c.plays) }
    }

    private static func section(_ top: inout ObjectReader, _ key: String, _ body: (inout ObjectReader) -> Void) {
        guard let (node, path) = top.take(key), var object = top.reader.object(node, at: path) else { return }
        body(&object)
        object.finish()
    }

    /// `extra` reads keys a slide may have only in some places (a schedule playlist's `from` and `until`).
    static func readSlide(_ node: YAMLNode, at path: String, reader: ConfigNodeReader,
                          extra: (inout ObjectReader) -> Void = { _ in }) -> SlideConfiguration? {
        // A bare string is shorthand for { path: ... }.
        if case .scalar = node {
            guard let file = reader.string(node, at: path) else { return nil }
            return validPath(file, at: path, reader: reader).map { SlideConfiguration(path: $0) }
        }
        guard var object = reader.object(node, at: path) else { return nil }
        defer { object.finish() }
        // Every key is read before giving up on the slide, so that a missing or bad
        // `path` neither hides problems in the others nor makes them "unknown".
        let file = object.read("path") { $0.string($1, at: $2) }
        if file == nil, object.take("path") == nil { reader.report(object.child("path"), "is required") }
        let duration = object.read("duration") { $0.duration($1, at: $2) }
        let fit = object.read("fit") { $0.choice($1, at: $2, as: FitMode.self) }
        let action = object.read("action") { reader, node, path in readAction(node, at: path, reader: reader) }
        let attractOnly = object.read("attractOnly") { $0.bool($1, at: $2) } ?? false
        let kenBurns = object.read("kenBurns") { readKenBurns($1, at: $2, reader: $0) }
        let loop = object.read("loop") { $0.bool($1, at: $2) } ?? false
        if loop, duration == nil { reader.report(object.child("loop"), "needs duration: how long the video loops (loop: true, duration: 5m)") }
        extra(&object)
        let pathKey = object.child("path")
        guard let file = file.flatMap({ validPath($0, at: pathKey, reader: reader) }) else { return nil }
        return SlideConfiguration(path: file, duration: duration, fit: fit, action: action, attractOnly: attractOnly,
                                  kenBurns: kenBurns, loop: loop)
    }

    /// `attractOnly` slides need attract mode, which decides when nobody is
    /// using the kiosk; and a visitor needs at least one slide that is not one.
    private static func checkAttractOnly(_ c: KioskConfiguration, reader: ConfigNodeReader) {
        var playlists: [(path: String, slides: [SlideConfiguration])] = [("slides", c.slides)]
        for playlist in c.schedule?.playlists ?? [] {
            playlists.append(("schedule.playlists.\(playlist.name)", playlist.slides.map(\.slide)))
        }
        for (path, slides) in playlists {
            if c.touch.attract == nil, let index = slides.firstIndex(where: \.attractOnly) {
                reader.report("\(path)[\(index)].attractOnly",
                              "needs attract mode: set touch.attract (such as after: 60s), which decides when nobody is using the kiosk")
            }
            if !slides.isEmpty, slides.allSatisfy(\.attractOnly) {
                reader.report(path, "has only attractOnly slides: a visitor would have nothing to see; leave at least one slide without attractOnly")
            }
        }
    }

    /// `{goto: N}` or `{post: http://…, timeout: 2s}`.
    private static func readAction(_ node: YAMLNode, at path: String, reader: ConfigNodeReader) -> TapAction? {
        guard var object = reader.object(node, at: path) else { return nil }
        defer { object.finish() }
        let goTo = object.read("goto") { $0.integer($1, at: $2, in: 0...1_000_000) }
        let url = object.read("post") { $0.string($1, at: $2) }
        let timeout = object.read("timeout") { $0.duration($1, at: $2, maximum: .seconds(60)) }
        switch (goTo, url) {
        case (let index?, nil):
            return .goTo(index)
        case (nil, let url?):
            guard case .url = SlideSource(url), SlideSource.problem(with: url) == nil else {
                reader.report(object.child("post"), "must be an http:// or https:// URL, found \(url)")
                return nil
            }
            return .post(url: url, timeout: timeout ?? .seconds(2))
        case (.some, .some):
            reader.report(path, "must have either goto or post, not both")
            return nil
        case (nil, nil):
            if object.take("goto") == nil && object.take("post") == nil {
                reader.report(path, "must have goto (a slide index) or post (an http:// or https:// URL)")
            }
            return nil
        }
    }

    private static func validPath(_ path: String, at keyPath: String, reader: ConfigNodeReader) -> String? {
        if path.isEmpty {
            reader.report(keyPath, "must not be empty")
            return nil
        }
        if path.contains("\0") {
            reader.report(keyPath, "must not contain a NUL character")
            return nil
        }
        if let problem = SlideSource.problem(with: path) {
            reader.report(keyPath, problem)
            return nil
        }
        // `blob:` names a picture a channel's manifest carries. Anywhere else it
        // would be read as a file called "blob:…", which is never what was meant.
        if path.hasPrefix(SlideSource.blobPrefix), !reader.allowsBlobReferences {
            reader.report(keyPath, "a blob: reference names a picture in a channel's manifest and can be used only there; name a file, an asset: or an http(s) URL, found \(path)")
            return nil
        }
        return path
    }

    /// One line: the position and the problem, then the context it arose in.
    static func syntaxMessage(_ error: YAMLError) -> String {
        let within = error.context.map { " (\($0.text) at line:column \($0.mark))" } ?? ""
        return "syntax error at line:column \(error.mark): \(error.problem)\(within)"
    }

    private static func readFailure(_ path: String) -> String {
        var isDirectory = false
        if !FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) { return "no such file" }
        if isDirectory { return "is a directory" }
        if !FileManager.default.isReadableFile(atPath: path) { return "permission denied" }
        // Foundation reads only regular files: a pipe (`<(…)`, /dev/stdin from a pipe) is refused.
        if let type = try? FileManager.default.attributesOfItem(atPath: path)[.type] as? FileAttributeType, type != .typeRegular {
            return "not a regular file (a pipe or a device); write the configuration to a file"
        }
        return "not valid UTF-8 text"
    }
}
