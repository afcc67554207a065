import VitrineYAML

/// The `plays` section: proof of play (docs/fleet.md#proof-of-play). Every
/// slide shown is logged in the state directory whatever this says; with
/// `upload`, the log is also POSTed in batches. Like `api` and `channel`,
/// only the local file may set it: nobody who can push may send the log
/// elsewhere.
///
///     plays:
///       upload: https://reports.example/plays
///       batch: 100
///       interval: 60s
public struct PlaysConfiguration: Hashable, Sendable {
    /// Where batches are POSTed; nil (`off`): nowhere.
    public var upload: String?
    /// The most plays in one POST.
    public var batch = 100
    /// How often the plays recorded since the last upload are sent.
    public var interval: Duration = .seconds(60)

    public init() {}

    public static let maximumBatch = 10_000
}

/// Reads the `plays` section.
enum PlaysConfigurationReader {
    static func read(_ object: inout ObjectReader, into plays: inout PlaysConfiguration) {
        plays.upload = object.read("upload") { reader, node, path -> String?? in
            guard let text = reader.string(node, at: path) else { return nil }
            if text == "off" { return .some(nil) }
            guard case .url = SlideSource(text), SlideSource.problem(with: text) == nil else {
                reader.report(path, "must be the http:// or https:// URL to POST plays to, or off, found \(text)")
                return nil
            }
            return .some(text)
        } ?? plays.upload
        plays.batch = object.read("batch") { $0.integer($1, at: $2, in: 1...PlaysConfiguration.maximumBatch) } ?? plays.batch
        plays.interval = object.read("interval") { $0.duration($1, at: $2, maximum: .seconds(86_400)) } ?? plays.interval
        if plays.interval < .seconds(1) {
            object.reader.report(object.child("interval"), "must be at least 1s, found \(DurationSyntax.format(plays.interval))")
            plays.interval = .seconds(1)
        }
    }
}
