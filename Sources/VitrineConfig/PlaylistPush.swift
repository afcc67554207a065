import VitrineYAML

/// A push addressed to one output (`PUT /api/v1/config?output=NAME`): of the
/// pushed document only `slides` is taken, and it becomes the slides of the
/// schedule playlist that output shows as its own (`outputs[].playlist`);
/// everything else stays as it is stored.
///
/// The slides are put into the stored document's tree in place of the
/// playlist's, and the whole is read and checked as a pushed configuration
/// is, so a slide is read as the schedule reader reads a playlist's (with its
/// `from` and `until`) and the checks that look across the configuration
/// (`attractOnly` against `touch.attract`, a `goto` past the end) are the
/// same. The key paths of its problems are then put back into the pushed
/// document's terms: `schedule.playlists.menu[2].path` is `slides[2].path`.
public struct PlaylistPush: Sendable {
    /// The one key a push to one output may have.
    public static let key = "slides"

    /// The schedule playlist the slides replace.
    public let playlist: String
    /// The pushed `slides`, as composed.
    let slides: YAMLNode

    /// Takes the `slides` of a pushed document. Any other top-level key is a
    /// problem at that key; a document without `slides`, one at `slides`.
    public init(_ pushed: ComposedConfiguration, playlist: String) throws(ConfigError) {
        guard case .mapping(let mapping) = pushed.root else {
            throw ConfigError(source: nil, issues: [ConfigIssue(path: "", message: "must be a mapping with slides, such as slides: [asset:…, https://…]")])
        }
        let others = pushed.sections.subtracting([Self.key]).sorted()
        guard others.isEmpty else { throw ConfigError(source: nil, issues: others.map { ConfigIssue(path: $0, message: Self.onlySlides(changing: [$0])) }) }
        guard let slides = mapping[Self.key] else {
            throw ConfigError(source: nil, issues: [ConfigIssue(path: Self.key, message: "is required: the slides of playlist \(playlist), which this output shows")])
        }
        self.playlist = playlist
        self.slides = slides
    }

    /// Why `keys` cannot be pushed to one output.
    public static func onlySlides(changing keys: [String]) -> String {
        "only slides can be pushed to one output; push the whole configuration without output= to change \(keys.joined(separator: ", "))"
    }

    /// The stored configuration (its canonical JSON, `stored`) with the
    /// playlist's slides replaced by the pushed ones, read and checked as a
    /// configuration file is. Problems in the pushed slides are at their key
    /// paths in the pushed document (`slides[2].path`).
    public func applied(toStored stored: [UInt8], baseDirectory: String) throws(ConfigError) -> KioskConfiguration {
        let root: YAMLNode?
        do {
            root = try YAMLComposer.compose(String(decoding: stored, as: UTF8.self))
        } catch {
            throw ConfigError(source: nil, issues: [ConfigIssue(path: "", message: "the stored configuration cannot be read: \(ConfigLoader.syntaxMessage(error))")])
        }
        guard let root, let merged = replacingPlaylist(in: root) else {
            throw ConfigError(source: nil, issues: [ConfigIssue(path: "", message: "the stored configuration has no playlist \(playlist) in schedule.playlists")])
        }
        do {
            return try ConfigLoader.parse(merged, baseDirectory: baseDirectory)
        } catch {
            let issues = error.issues.map { ConfigIssue(path: pushedPath($0.path), message: $0.message) }
            // The stored rest was valid: a problem there (outputs[1].playlist unknown, when the
            // slides are no list) follows from one in the slides, which says what to fix.
            let inSlides = issues.filter { isPushed($0.path) }
            throw ConfigError(source: nil, issues: inSlides.isEmpty ? issues : inSlides)
        }
    }

    /// The pictures the pushed slides name in `configuration` (`applied`'s
    /// result), at their key paths in the pushed document: what a push checks.
    public func pictures(in configuration: KioskConfiguration) -> [(keyPath: String, path: String)] {
        (configuration.schedule?.playlist(named: playlist)?.slides ?? []).enumerated().map { ("slides[\($0)].path", $1.slide.path) }
    }

    /// Where the playlist's key paths are in the stored document.
    private var storedPath: String { "schedule.playlists.\(playlist)" }

    /// A key path of the merged document in the pushed one's terms; one outside
    /// the playlist is left as it is.
    func pushedPath(_ path: String) -> String {
        guard let rest = Self.below(storedPath, path) else { return path }
        return Self.key + rest
    }

    /// Whether a key path (in the pushed document's terms) is in the pushed slides.
    func isPushed(_ path: String) -> Bool { Self.below(Self.key, path) != nil }

    /// What follows `prefix` in `path` when `path` is `prefix` or a key path within it.
    private static func below(_ prefix: String, _ path: String) -> Substring? {
        guard path.hasPrefix(prefix) else { return nil }
        let rest = path.dropFirst(prefix.count)
        return rest.isEmpty || rest.hasPrefix("[") || rest.hasPrefix(".") ? rest : nil
    }

    /// `root` with `schedule.playlists[playlist]` replaced by the pushed slides; nil when it has no such playlist.
    private func replacingPlaylist(in root: YAMLNode) -> YAMLNode? {
        Self.replacing("schedule", in: root) { schedule in
            Self.replacing("playlists", in: schedule) { playlists in
                Self.replacing(playlist, in: playlists) { _ in slides }
            }
        }
    }

    /// `node`, a mapping, with the value at `key` replaced by `change`'s; nil when either is not there.
    private static func replacing(_ key: String, in node: YAMLNode, _ change: (YAMLNode) -> YAMLNode?) -> YAMLNode? {
        guard case .mapping(let mapping) = node,
              let index = mapping.entries.firstIndex(where: { $0.key.scalar?.string == key }),
              let value = change(mapping.entries[index].value) else { return nil }
        var entries = mapping.entries
        entries[index].value = value
        return .mapping(YAMLMapping(entries, mark: mapping.mark))
    }
}
