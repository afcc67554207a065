import VitrineCore
import VitrineYAML

// Reading the `schedule` section (docs/configuration.md, "Schedule"). Every
// problem is reported with its key path, and reading carries on, as for the
// rest of the file.

extension ConfigLoader {
    /// Reads `schedule` from the top-level mapping into `c.schedule`, if it is
    /// there. Returns each entry's key path, by its index in `entries` (an
    /// entry that could not be read is left out, so the two may differ), for
    /// what is checked once `outputs` is read: `scheduleIssues`.
    @discardableResult
    static func readSchedule(_ top: inout ObjectReader, into c: inout KioskConfiguration) -> [String] {
        guard let (node, path) = top.take("schedule") else { return [] }
        let reader = top.reader
        if let slides = top.entries.first(where: { $0.key == "slides" })?.value, case .sequence(let items) = slides, !items.isEmpty {
            reader.report("slides", "must be empty when there is a schedule: the schedule's playlists say what shows (move these slides into one of schedule.playlists)")
        }
        guard var section = reader.object(node, at: path) else { return [] }
        defer { section.finish() }
        var schedule = ScheduleConfiguration()

        schedule.timezone = section.read("timezone") { reader, node, path in
            guard let name = reader.string(node, at: path) else { return nil }
            guard ScheduleTimeZone(identifier: name) != nil else {
                reader.report(path, "unknown time zone \(name): must be an IANA zone name such as Europe/Berlin or America/New_York (as in /usr/share/zoneinfo); leave timezone out to use the system's")
                return nil
            }
            return name
        }

        if let (node, path) = section.take("playlists"), var lists = reader.object(node, at: path) {
            for (name, value) in lists.entries {
                _ = lists.take(name)
                if let playlist = readPlaylist(name, value, at: lists.child(name), reader: reader) { schedule.playlists.append(playlist) }
            }
            lists.finish()
            schedule.playlists.sort { $0.name < $1.name }  // A mapping has no order: keep one, for the canonical JSON.
        }
        let names = schedule.playlists.map(\.name)
        /// Reports a playlist name that names nothing.
        func known(_ name: String, at path: String) -> Bool {
            guard !names.contains(name) else { return true }
            reader.report(path, unknownPlaylist(name, among: names))
            return false
        }

        var entryPaths: [String] = []
        if let (node, path) = section.take("entries"), let items = reader.sequence(node, at: path) {
            for (index, item) in items.enumerated() {
                let entryPath = "\(path)[\(index)]"
                guard let (entry, outputs) = readEntry(item, at: entryPath, reader: reader, known: known) else { continue }
                if !outputs.isEmpty { schedule.entryOutputs[schedule.entries.count] = outputs }
                schedule.entries.append(entry)
                entryPaths.append(entryPath)
            }
        }

        schedule.otherwise = section.read("otherwise") { reader, node, path -> ScheduleFallback? in
            guard let text = reader.string(node, at: path) else { return nil }
            if text == "off" { return .off }
            return known(text, at: path) ? .playlist(text) : nil
        } ?? schedule.otherwise

        c.schedule = schedule
        return entryPaths
    }

    /// What the schedule's entries say that needs `outputs` read: an entry
    /// naming outputs in a file without that section (a push names them only
    /// with `outputs` as `GET /api/v1/config` returns it), and entries nothing
    /// decides between on some output (`outputConflicts(in:)`), with both key
    /// paths, where they meet and on which outputs. (What an entry names that
    /// `outputs` lacks is `outputReferenceIssues`'.)
    static func scheduleIssues(_ c: KioskConfiguration, entryPaths: [String], outputsSection: Bool, reader: ConfigNodeReader) {
        guard let schedule = c.schedule else { return }
        if !outputsSection {
            for index in schedule.entries.indices where !schedule.outputs(ofEntry: index).isEmpty {
                reader.report("\(entryPaths[index]).outputs", "names \(schedule.outputs(ofEntry: index).joined(separator: ", ")), but the configuration has no outputs section: list the connectors in outputs, or leave this out for every output")
            }
        }
        for conflict in schedule.outputConflicts(in: c.outputs) {
            let first = schedule.entries[conflict.first], second = schedule.entries[conflict.second]
            let overlap: String
            switch conflict.overlap {
            case .weekly(let week): overlap = "on \(week.description) every week"
            case .dates(let range):
                let (start, end) = (ScheduleDocument.start(range.from), ScheduleDocument.end(range.until))
                overlap = start == end ? "on \(start)" : "from \(start) to \(end)"
            }
            let outputs = conflict.outputs.isEmpty ? "" : " on output\(conflict.outputs.count == 1 ? "" : "s") \(conflict.outputs.joined(separator: ", "))"
            reader.report(entryPaths[conflict.second],
                          "overlaps \(entryPaths[conflict.first]) \(overlap)\(outputs) with the same priority (\(second.priority)) and another playlist (\(second.playlist), not \(first.playlist)): give one of them a higher priority")
        }
    }

    /// What the schedule's entries name in `outputs` and do not find there as
    /// a carousel of its own: an output it does not list, a mirror (which
    /// shows its source's carousel: name the source), some of a canvas's
    /// outputs but not the others (one picture across them all).
    static func scheduleEntryIssues(_ schedule: ScheduleConfiguration, layout: OutputLayout, entryPaths: [String]) -> [ConfigIssue] {
        var issues: [ConfigIssue] = []
        let listed = layout.outputs.map(\.name).joined(separator: ", ")
        for index in schedule.entries.indices {
            let named = schedule.outputs(ofEntry: index)
            let path = (entryPaths.indices.contains(index) ? entryPaths[index] : "schedule.entries[\(index)]") + ".outputs"
            for (position, name) in named.enumerated() {
                guard let output = layout.output(named: name) else {
                    issues.append(ConfigIssue(path: "\(path)[\(position)]", message: "no output named \(name) in outputs; outputs lists \(listed)"))
                    continue
                }
                if let source = output.mirrored {
                    issues.append(ConfigIssue(path: "\(path)[\(position)]", message: "\(name) mirrors \(source) and shows what it shows: name \(source)"))
                }
            }
            var reported = Set<String>()
            for name in named {
                guard let canvas = layout.output(named: name)?.canvas, reported.insert(canvas.name).inserted else { continue }
                let members = layout.members(ofCanvas: canvas.name).map { layout.outputs[$0].name }
                let missing = members.filter { !named.contains($0) }
                guard !missing.isEmpty else { continue }
                let given = members.filter(named.contains)
                issues.append(ConfigIssue(path: path, message: "names \(given.joined(separator: ", ")) but not \(missing.joined(separator: ", ")) of canvas \(canvas.name), which shows one picture across them: name all of its outputs, or none"))
            }
        }
        return issues
    }

    /// A name a configuration gives (a playlist, a canvas): letters, digits, - and _.
    static func isPlainName(_ name: String) -> Bool {
        !name.isEmpty && name.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-" || $0 == "_") }
    }

    /// "unknown playlist nigth (did you mean "night"?)", or the playlists there are.
    static func unknownPlaylist(_ name: String, among names: [String]) -> String {
        var message = "unknown playlist \(name)"
        if let near = names.min(by: { editDistance($0, name) < editDistance($1, name) }), editDistance(near, name) <= max(2, name.count / 3) {
            message += " (did you mean \"\(near)\"?)"
        } else {
            message += names.isEmpty ? ": schedule.playlists defines none" : " (playlists: \(names.joined(separator: ", ")))"
        }
        return message
    }

    private static func readPlaylist(_ name: String, _ node: YAMLNode, at path: String, reader: ConfigNodeReader) -> PlaylistConfiguration? {
        guard isPlainName(name) else {
            reader.report(path, "a playlist's name must be letters, digits, - and _, found \"\(name)\"")
            return nil
        }
        guard name != "off" else {
            reader.report(path, "off cannot name a playlist: an entry's or otherwise's off switches the screen off")
            return nil
        }
        guard let items = reader.sequence(node, at: path) else { return nil }
        var slides: [ScheduledSlide] = []
        for (index, item) in items.enumerated() {
            var validity = SlideValidity.always
            let slidePath = "\(path)[\(index)]"
            let slide = readSlide(item, at: slidePath, reader: reader) { object in
                validity.from = object.read("from") { $0.calendarMoment($1, at: $2, isEnd: false) }
                validity.until = object.read("until") { $0.calendarMoment($1, at: $2, isEnd: true) }
                if let from = validity.from, let until = validity.until, until <= from {
                    reader.report(object.child("until"), endBeforeStart(from: from, until: object.scalarText("until")))
                }
            }
            if let slide { slides.append(ScheduledSlide(slide, validity: validity)) }
        }
        for (index, scheduled) in slides.enumerated() {
            if case .goTo(let target)? = scheduled.slide.action, target >= slides.count {
                reader.report("\(path)[\(index)].action.goto", "there is no slide \(target): the playlist has \(slides.count) slides (counting from 0)")
            }
        }
        return PlaylistConfiguration(name: name, slides: slides)
    }

    /// One entry and the outputs it names; `known` reports a playlist name
    /// that names nothing.
    private static func readEntry(_ node: YAMLNode, at path: String, reader: ConfigNodeReader,
                                  known: (String, String) -> Bool) -> (ScheduleEntry, [String])? {
        guard var object = reader.object(node, at: path) else { return nil }
        defer { object.finish() }
        // `off` is no playlist's name (they may not take it): the screen is off while the entry applies.
        let playlist = object.read("playlist") { reader, node, path in
            reader.string(node, at: path).flatMap { $0 == ScheduleEntry.off || known($0, path) ? $0 : nil }
        }
        if playlist == nil, !object.has("playlist") {
            reader.report(object.child("playlist"), "is required: the name of one of schedule.playlists, or off")
        }
        let priority = object.read("priority") { $0.integer($1, at: $2, in: -1000...1000) } ?? 0
        let days = object.read("days") { $0.weekdays($1, at: $2) }
        let from = object.read("from") { $0.clockTime($1, at: $2, endOfDay: false) }
        let until = object.read("until") { $0.clockTime($1, at: $2, endOfDay: true) }
        let dates = object.read("dates") { $0.dateRange($1, at: $2) }
        let outputs = object.read("outputs") { $0.entryOutputs($1, at: $2) }
        if object.has("outputs"), outputs == nil { return nil }
        let period: SchedulePeriod
        switch (object.has("days"), object.has("dates")) {
        case (true, true):
            reader.report(path, "must have either days (a weekly window) or dates (a date range), not both")
            return nil
        case (false, false):
            reader.report(path, "must have days (a weekly window: days, from, until) or dates (a date range: dates: {from, until})")
            return nil
        case (false, true):
            for key in ["from", "until"] where object.has(key) {
                reader.report(object.child(key), "belongs to a weekly window (with days); a date range has its times inside dates, such as dates: {from: \"2026-12-24 18:00\", until: \"2026-12-26 12:00\"}")
            }
            guard let dates else { return nil }
            period = .dates(dates)
        case (true, false):
            guard let days, object.has("from") == (from != nil), object.has("until") == (until != nil) else { return nil }
            let window = WeeklyWindow(days: days, from: from ?? .midnight, until: until ?? .endOfDay)
            guard window.from != window.until else {
                reader.report(object.child(object.has("until") ? "until" : "from"),
                              "must differ from \(object.has("until") ? "from" : "until") (\(window.from)): a whole day is from 00:00 until 24:00")
                return nil
            }
            period = .weekly(window)
        }
        guard let playlist else { return nil }
        return (ScheduleEntry(playlist: playlist, period: period, priority: priority), outputs ?? [])
    }
}

extension ConfigLoader {
    /// The problem with an `until` that is not after its `from`: a date alone
    /// may be `from`'s own day (that whole day), a date and time must be later.
    static func endBeforeStart(from: LocalDateTime, until written: String) -> String {
        ScheduleSyntax.dateTimeParts(written)?.time == nil
            ? "must not be before from (\(from)), found \(written)"
            : "must be after from (\(from)), found \(written)"
    }
}

extension ObjectReader {
    /// The text of `key`'s value as written, when it is a single value.
    func scalarText(_ key: String) -> String {
        guard case .scalar(let scalar)? = entries.first(where: { $0.key == key })?.value else { return "" }
        return scalar.string
    }
}

extension ConfigNodeReader {
    /// An entry's `outputs`: a list of connector names, each once. Whether
    /// `outputs` lists them is checked with the rest of that section
    /// (`outputReferenceIssues`).
    func entryOutputs(_ node: YAMLNode, at path: String) -> [String]? {
        guard let items = sequence(node, at: path) else { return nil }
        guard !items.isEmpty else {
            report(path, "must name at least one output; leave outputs out for every output that follows the schedule")
            return nil
        }
        var first: [String: Int] = [:]
        var names: [String] = []
        for (index, item) in items.enumerated() {
            guard let name = string(item, at: "\(path)[\(index)]") else { continue }
            if let earlier = first[name] {
                report("\(path)[\(index)]", "names \(name) again (as \(path)[\(earlier)]): name each output once")
                continue
            }
            first[name] = index
            names.append(name)
        }
        return names.count == items.count ? names : nil
    }

    /// `days`: a day (`mon`, `monday`), `weekdays`, `weekend` or `daily`, or a list of them.
    func weekdays(_ node: YAMLNode, at path: String) -> Set<Weekday>? {
        func word(_ node: YAMLNode, at path: String) -> Set<Weekday>? {
            guard let text = string(node, at: path) else { return nil }
            switch text.lowercased() {
            case "weekdays": return Weekday.weekdays
            case "weekend": return Weekday.weekend
            case "daily": return Set(Weekday.allCases)
            case let name:
                if let day = Weekday(name: name) { return [day] }
                report(path, "unknown day \(text): days are mon, tue, wed, thu, fri, sat, sun (or monday … sunday), weekdays, weekend or daily")
                return nil
            }
        }
        guard case .sequence(let items) = node else { return word(node, at: path) }
        guard !items.isEmpty else {
            report(path, "must name at least one day")
            return nil
        }
        let sets = items.enumerated().map { word($1, at: "\(path)[\($0)]") }
        guard !sets.contains(where: { $0 == nil }) else { return nil }
        return sets.reduce(into: Set<Weekday>()) { $0.formUnion($1!) }
    }

    /// A clock time `HH:MM` (or `HH:MM:SS`); 24:00 only where `endOfDay` allows it.
    func clockTime(_ node: YAMLNode, at path: String, endOfDay: Bool) -> LocalTime? {
        guard case .scalar(let scalar) = node, !isNull(scalar), let parts = ScheduleSyntax.timeParts(scalar.string) else {
            report(path, "must be a time HH:MM, such as \"07:00\", found \(describe(node))")
            return nil
        }
        if let problem = ScheduleSyntax.timeProblem(hour: parts.hour, minute: parts.minute, second: parts.second, endOfDay: endOfDay) {
            report(path, problem)
            return nil
        }
        return LocalTime(hour: parts.hour, minute: parts.minute, second: parts.second)
    }

    /// A date `2026-12-24`, or a date and time `2026-12-24 18:00` (or with a T).
    /// A date alone is the start of that day, or, at the end of a period
    /// (`isEnd`), the end of it: the next day's 00:00.
    func calendarMoment(_ node: YAMLNode, at path: String, isEnd: Bool) -> LocalDateTime? {
        guard case .scalar(let scalar) = node, !isNull(scalar), let parts = ScheduleSyntax.dateTimeParts(scalar.string) else {
            report(path, "must be a date YYYY-MM-DD, or a date and time \"YYYY-MM-DD HH:MM\", found \(describe(node))")
            return nil
        }
        if let problem = ScheduleSyntax.dateProblem(year: parts.date.year, month: parts.date.month, day: parts.date.day) {
            report(path, problem)
            return nil
        }
        let date = LocalDate(year: parts.date.year, month: parts.date.month, day: parts.date.day)!
        guard let time = parts.time else { return LocalDateTime(isEnd ? date.adding(days: 1) : date) }
        if let problem = ScheduleSyntax.timeProblem(hour: time.hour, minute: time.minute, second: time.second, endOfDay: false) {
            report(path, problem)
            return nil
        }
        return LocalDateTime(date, LocalTime(hour: time.hour, minute: time.minute, second: time.second)!)
    }

    /// `dates`: `{from: DATE[ TIME], until: DATE[ TIME]}`, the last day included;
    /// `until` defaults to the end of `from`'s day. A single date is that whole day.
    func dateRange(_ node: YAMLNode, at path: String) -> ScheduleDateRange? {
        if case .scalar = node {
            guard let day = calendarMoment(node, at: path, isEnd: false) else { return nil }
            guard case .scalar(let scalar) = node, ScheduleSyntax.dateTimeParts(scalar.string)?.time == nil else {
                report(path, "a single value must be a date (that whole day); for times write {from: \"2026-12-24 18:00\", until: \"2026-12-26 12:00\"}")
                return nil
            }
            return ScheduleDateRange(from: day, until: LocalDateTime(day.date.adding(days: 1)))
        }
        guard var object = object(node, at: path) else { return nil }
        defer { object.finish() }
        let from = object.read("from") { $0.calendarMoment($1, at: $2, isEnd: false) }
        if from == nil, !object.has("from") { report(object.child("from"), "is required: the first day, such as 2026-12-24") }
        let until = object.read("until") { $0.calendarMoment($1, at: $2, isEnd: true) }
        guard let from, object.has("until") == (until != nil) else { return nil }
        let end = until ?? LocalDateTime(from.date.adding(days: 1))
        guard from < end else {
            report(object.child("until"), ConfigLoader.endBeforeStart(from: from, until: object.scalarText("until")))
            return nil
        }
        return ScheduleDateRange(from: from, until: end)
    }
}
