import VitrineCore
import VitrineYAML

/// `sync`: rotation in step with the other kiosks that show the same playlist
/// (docs/fleet.md). Slide k begins at `epoch` plus the durations of the slides
/// before it, counted round the playlist, on the wall clock: kiosks whose
/// clocks agree change slides at the same instants, whenever they started.
public struct RotationSync: Hashable, Sendable {
    /// What the slides' instants are counted from. nil: 1970-01-01T00:00:00Z;
    /// a kiosk that follows a channel gets the manifest's `epoch` here when
    /// the channel's configuration sets none.
    public var epoch: WallInstant?

    public init(epoch: WallInstant? = nil) { self.epoch = epoch }

    /// The epoch in force.
    public var effectiveEpoch: WallInstant { epoch ?? .epoch }

    /// `sync: true`, `sync: false`, or `sync: {epoch: 2026-01-01T00:00:00Z}` (UTC).
    static func read(_ node: YAMLNode, at path: String, reader: ConfigNodeReader) -> RotationSync?? {
        if case .scalar = node {
            guard let on = reader.bool(node, at: path) else { return nil }
            return .some(on ? RotationSync() : nil)
        }
        guard var section = reader.object(node, at: path) else { return nil }
        defer { section.finish() }
        let epoch = section.read("epoch") { reader, node, path -> WallInstant? in
            guard let text = reader.string(node, at: path) else { return nil }
            let problem = "must be a UTC date and time such as 2026-01-01T00:00:00Z, found \(text)"
            guard text.hasSuffix("Z"), let parts = ScheduleSyntax.dateTimeParts(String(text.dropLast())), let time = parts.time else {
                reader.report(path, problem)
                return nil
            }
            if let issue = ScheduleSyntax.dateProblem(year: parts.date.year, month: parts.date.month, day: parts.date.day)
                ?? ScheduleSyntax.timeProblem(hour: time.hour, minute: time.minute, second: time.second, endOfDay: false) {
                reader.report(path, issue)
                return nil
            }
            guard let date = LocalDate(year: parts.date.year, month: parts.date.month, day: parts.date.day),
                  let clock = LocalTime(hour: time.hour, minute: time.minute, second: time.second) else {
                reader.report(path, problem)
                return nil
            }
            return WallInstant(utc: date, clock)
        }
        return .some(RotationSync(epoch: epoch))
    }

    /// The canonical form ConfigDocument writes: `true`, or `{"epoch": ...}`.
    var document: JSONValue { epoch.map { ["epoch": .string($0.description)] } ?? true }
}
