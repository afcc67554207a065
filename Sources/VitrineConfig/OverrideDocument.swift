import FoundationEssentials
import VitrineCore
import VitrineYAML

/// What an operator asks for with `POST /api/v1/override`: slides, the
/// interval between them, and when the override ends on the wall clock.
public struct OverrideRequest: Hashable, Sendable {
    public var slides: [SlideConfiguration]
    /// Nil: the configuration's `interval`.
    public var interval: Duration?
    public var until: WallInstant

    public init(slides: [SlideConfiguration], interval: Duration? = nil, until: WallInstant) {
        self.slides = slides
        self.interval = interval
        self.until = until
    }
}

/// The JSON forms of an emergency override: the request body, the stored file
/// (`override.json`) and the API's answer, which is also the stored form.
///
/// Slides are read by the configuration's own slide reader, so they follow the
/// same rules and every problem is reported at the same kind of key path
/// (`slides[1].duration`). Times are RFC 3339; the parser comes from the
/// caller (`parseTimestamp`), which has one, so that this module keeps none of its own.
public enum OverrideDocument {
    /// The longest an override may last: it is for an emergency, not a second playlist.
    public static let longest: Int64 = 7 * WallInstant.secondsPerDay
    /// How `longest` reads in messages.
    public static let longestText = "7 days (10080m)"

    /// Reads a request body: `{"slides": [...], "until": "2026-11-23T18:00:00Z"}`
    /// or `{"slides": [...], "duration": "30m"}`, with an optional `interval`.
    /// The end must come after `now` and at most `longest` after it.
    public static func request(_ text: String, now: WallInstant,
                               parseTimestamp: (String) -> WallInstant?) throws(ConfigError) -> OverrideRequest {
        let reader = ConfigNodeReader()
        var result: OverrideRequest?
        if var top = try object(text, reader: reader) {
            let slides = readSlides(&top)
            let interval = top.read("interval") { $0.duration($1, at: $2) }
            let until = readEnd(until: top.take("until"), duration: top.take("duration"), now: now, reader: reader,
                                parseTimestamp: parseTimestamp)
            top.finish()
            if let slides, let until { result = OverrideRequest(slides: slides, interval: interval, until: until) }
        }
        guard reader.issues.isEmpty, let result else { throw ConfigError(source: nil, issues: reader.issues) }
        return result
    }

    /// The end an override of a single picture asks for in its query, `until`
    /// or `duration` (one of them), with the rules of `request`.
    public static func end(until: String?, duration: String?, now: WallInstant,
                           parseTimestamp: (String) -> WallInstant?) throws(ConfigError) -> WallInstant {
        let reader = ConfigNodeReader()
        // The query's text, read as the same values in a JSON body would be.
        func node(_ text: String?, _ key: String) -> (node: YAMLNode, path: String)? {
            text.map { (YAMLNode.scalar(YAMLScalar($0, style: .plain)), key) }
        }
        let end = readEnd(until: node(until, "until"), duration: node(duration, "duration"), now: now, reader: reader,
                          parseTimestamp: parseTimestamp)
        guard reader.issues.isEmpty, let end else { throw ConfigError(source: nil, issues: reader.issues) }
        return end
    }

    /// Reads back what `object` wrote (the stored `override.json`), without the
    /// request's bounds: whether it is still active is the caller's question.
    public static func stored(_ text: String, source: String,
                              parseTimestamp: (String) -> WallInstant?) throws(ConfigError) -> KioskOverride {
        let reader = ConfigNodeReader()
        var result: KioskOverride?
        do {
            if var top = try object(text, reader: reader) {
                let id = top.read("id") { reader, node, path -> String? in
                    guard let id = reader.string(node, at: path), !id.isEmpty else {
                        reader.report(path, "must be a non-empty string")
                        return nil
                    }
                    return id
                }
                let slides = readSlides(&top)
                let interval = top.read("interval") { reader, node, path -> Duration?? in
                    if case .scalar(let scalar) = node, reader.isNull(scalar) { return .some(nil) }
                    return reader.duration(node, at: path).map { .some($0) }
                }
                func instant(_ key: String) -> WallInstant? {
                    guard let (node, path) = top.take(key) else {
                        reader.report(top.child(key), "is required")
                        return nil
                    }
                    return timestamp(node, at: path, reader: reader, parseTimestamp: parseTimestamp)
                }
                let since = instant("since"), until = instant("until")
                if !top.has("id") { reader.report("id", "is required") }
                top.finish()
                if let id, let slides, let since, let until {
                    result = KioskOverride(id: id, slides: slides, interval: interval ?? nil, since: since, until: until)
                }
            }
        } catch {
            throw ConfigError(source: source, issues: error.issues)
        }
        guard reader.issues.isEmpty, let result else { throw ConfigError(source: source, issues: reader.issues) }
        return result
    }

    /// The override as JSON objects: `OverrideBody`'s document.
    public static func object(_ override: KioskOverride) -> [String: JSONValue] {
        OverrideBody(override).document
    }

    /// `object` as compact JSON with sorted keys: what `stored` reads.
    public static func json(_ override: KioskOverride) -> [UInt8] {
        JSONValue.object(object(override)).encoded([.sortedKeys, .withoutEscapingSlashes]) + [0x0A]
    }

    // MARK: Reading

    /// The document's top-level mapping, or nil (reported) when it is something else.
    private static func object(_ text: String, reader: ConfigNodeReader) throws(ConfigError) -> ObjectReader? {
        let root: YAMLNode?
        do {
            root = try YAMLComposer.compose(text)
        } catch {
            throw ConfigError(source: nil, issues: [ConfigIssue(path: "", message: ConfigLoader.syntaxMessage(error))])
        }
        guard let root else {
            throw ConfigError(source: nil, issues: [ConfigIssue(path: "", message: "the body is empty; it must be a JSON object with slides and until or duration")])
        }
        return reader.object(root, at: "")
    }

    /// `slides`: at least one, each read as a configuration's slide is, and
    /// each tap action's `goto` naming one of them.
    private static func readSlides(_ top: inout ObjectReader) -> [SlideConfiguration]? {
        let reader = top.reader
        guard let (node, path) = top.take("slides") else {
            reader.report("slides", "is required: the pictures to show, such as [\"asset:<sha256>\"] or [\"/srv/pictures/alert.jpg\"]")
            return nil
        }
        guard let items = reader.sequence(node, at: path) else { return nil }
        guard !items.isEmpty else {
            reader.report(path, "must have at least one slide")
            return nil
        }
        let before = reader.issues.count
        let slides = items.enumerated().compactMap { index, item in ConfigLoader.readSlide(item, at: "\(path)[\(index)]", reader: reader) }
        for (index, slide) in slides.enumerated() {
            if case .goTo(let target)? = slide.action, target >= slides.count {
                reader.report("\(path)[\(index)].action.goto", "there is no slide \(target): the override has \(slides.count) slides (counting from 0)")
            }
        }
        return reader.issues.count == before ? slides : nil
    }

    /// Exactly one of `until` (an instant) and `duration` (from `now`), ending
    /// after `now` and at most `longest` after it. Whole seconds, as the wall
    /// clock's timer is: a duration's fraction of a second rounds up.
    private static func readEnd(until: (node: YAMLNode, path: String)?, duration: (node: YAMLNode, path: String)?, now: WallInstant,
                                reader: ConfigNodeReader, parseTimestamp: (String) -> WallInstant?) -> WallInstant? {
        let latest = now + longest
        switch (until, duration) {
        case (nil, nil):
            reader.report("duration", "is required: how long the override shows (30m), or else until: when it ends (RFC 3339, 2026-11-23T18:00:00Z)")
            return nil
        case (.some, .some(let duration)):
            reader.report(duration.path, "give either duration or until, not both")
            return nil
        case (let until?, nil):
            guard let end = timestamp(until.node, at: until.path, reader: reader, parseTimestamp: parseTimestamp) else { return nil }
            guard end > now else {
                reader.report(until.path, "must be in the future: it is \(end), and the kiosk's clock says \(now)")
                return nil
            }
            guard end <= latest else {
                reader.report(until.path, "must be at most \(longestText) ahead, no later than \(latest); it is \(end)")
                return nil
            }
            return end
        case (nil, let duration?):
            guard let length = reader.duration(duration.node, at: duration.path, maximum: .seconds(Int64.max / 2)) else { return nil }
            let (seconds, attoseconds) = length.components
            guard seconds < longest || (seconds == longest && attoseconds == 0) else {
                reader.report(duration.path, "must be at most \(longestText), found \(DurationSyntax.format(length))")
                return nil
            }
            return now + seconds + (attoseconds > 0 ? 1 : 0)
        }
    }

    private static func timestamp(_ node: YAMLNode, at path: String, reader: ConfigNodeReader,
                                  parseTimestamp: (String) -> WallInstant?) -> WallInstant? {
        guard let text = reader.string(node, at: path) else { return nil }
        guard let instant = parseTimestamp(text) else {
            reader.report(path, "must be an RFC 3339 date and time such as 2026-11-23T18:00:00Z, found \(text)")
            return nil
        }
        return instant
    }
}
