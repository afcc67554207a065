import VitrineCore

/// The `schedule` section written back out, keyed as the file is, in
/// canonical form: every entry's keys, days in week order, dates without
/// midnight, a period's last day written as the file writes it (inclusive).
/// `ConfigLoader.parse` reads it back to an equal value.
///
public enum ScheduleDocument {
    public static func tree(_ schedule: ScheduleConfiguration) -> [String: JSONValue] {
        var playlists: [String: JSONValue] = [:]
        for playlist in schedule.playlists {
            playlists[playlist.name] = .array(playlist.slides.map { .object(slide($0)) })
        }
        let otherwise: JSONValue = switch schedule.otherwise {
        case .off: "off"
        case .playlist(let name): .string(name)
        }
        var tree: [String: JSONValue] = [
            "playlists": .object(playlists),
            "entries": .array(schedule.entries.indices.map { .object(entry(schedule.entries[$0], outputs: schedule.outputs(ofEntry: $0))) }),
            "otherwise": otherwise,
        ]
        if let timezone = schedule.timezone { tree["timezone"] = .string(timezone) }
        return tree
    }

    static func slide(_ scheduled: ScheduledSlide) -> [String: JSONValue] {
        // A slide as the top-level playlist writes it, with its validity.
        var entry = ConfigDocument.slide(scheduled.slide)
        if let from = scheduled.validity.from { entry["from"] = .string(start(from)) }
        if let until = scheduled.validity.until { entry["until"] = .string(end(until)) }
        return entry
    }

    /// An entry; `outputs` only when it names some, so a schedule without
    /// them is written as it always was.
    static func entry(_ entry: ScheduleEntry, outputs: [String] = []) -> [String: JSONValue] {
        var tree: [String: JSONValue] = ["playlist": .string(entry.playlist), "priority": JSONValue(entry.priority)]
        if !outputs.isEmpty { tree["outputs"] = JSONValue(outputs) }
        switch entry.period {
        case .weekly(let window):
            tree["days"] = JSONValue(window.days.sorted().map(\.shortName))
            tree["from"] = .string(window.from.description)
            tree["until"] = .string(window.until.description)
        case .dates(let range):
            tree["dates"] = ["from": .string(start(range.from)), "until": .string(end(range.until))]
        }
        return tree
    }

    /// The start of a period: `2026-12-24` at midnight, else `2026-12-24 18:00`.
    public static func start(_ moment: LocalDateTime) -> String { moment.description }

    /// The end of a period as the file writes it: a midnight is the day before's
    /// end (`2026-12-26` for 2026-12-27 00:00), anything else its date and time.
    public static func end(_ moment: LocalDateTime) -> String {
        moment.time == .midnight ? moment.date.adding(days: -1).description : moment.description
    }
}
