import ArgumentParser
import FoundationEssentials
import VitrineConfig
import VitrineCore

/// `vitrine schedule`: what a configuration's schedule shows now and every
/// change in the days ahead, the way `systemd-analyze calendar` shows a timer's
/// next elapses: one line per transition, in local time with the zone's
/// abbreviation and offset, and in UTC.
struct ScheduleCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schedule",
        abstract: "Print what the configuration's schedule shows now and each change in the days ahead.",
        discussion: """
            The first line says what shows at the start (now, or --from) and until when; then one line per \
            transition. When the schedule's entries name outputs, one such listing per output \
            (with --output, that output's alone): local time, zone abbreviation, UTC offset, UTC, and what shows from then on. \
            Exit status: 0; 1 when the configuration has problems, one per line on standard error as \
            FILE: KEY.PATH: PROBLEM (as vitrine check-config prints them).
            """)

    @Option(name: .shortAndLong, help: "The configuration file (YAML or JSON).")
    var config: String

    @Option(help: ArgumentHelp(
        "Start here instead of now: 2026-03-28T12:00:00Z or with an offset (+01:00) for an instant; 2026-03-28T12:00, \"2026-03-28 12:00\" or 2026-03-28 for the schedule's local time.",
        valueName: "ISO-DATETIME"))
    var from: String?

    @Option(help: "How many days of transitions to list.")
    var days = 7

    @Option(help: ArgumentHelp(
        "One output's schedule (a connector in outputs, such as HDMI-A-1): the entries naming it or no output, or, for an output with a playlist of its own, that playlist and the entries naming it.",
        valueName: "NAME"))
    var output: String?

    func validate() throws {
        guard (1...3660).contains(days) else { throw ValidationError("--days must be between 1 and 3660") }
        // The zone comes with the configuration; the form can be checked without it.
        if let from, Self.instant(from, in: FixedOffsetZone.utc) == nil {
            throw ValidationError("--from must be an ISO 8601 date and time such as 2026-03-28T12:00:00Z, 2026-03-28T12:00+01:00, 2026-03-28T12:00 (local) or 2026-03-28, found \(from)")
        }
    }

    func run() throws {
        let configuration: KioskConfiguration
        do {
            configuration = try ConfigLoader.load(file: config)
        } catch {
            for issue in error.issues { writeToStandardError("\(config): \(issue)\n") }
            throw ExitCode(1)
        }
        // One listing per output when entries name outputs: together they would mix what different screens show.
        var listings: [(output: String?, shown: KioskConfiguration)] = [(nil, configuration)]
        if let output {
            guard let layout = configuration.outputs else {
                writeToStandardError("\(config): --output \(output): the configuration has no outputs section\n")
                throw ExitCode(1)
            }
            guard layout.output(named: output) != nil else {
                writeToStandardError("\(config): --output \(output): no output named \(output) in outputs; outputs lists \(layout.outputs.map(\.name).joined(separator: ", "))\n")
                throw ExitCode(1)
            }
            listings = [(output, configuration.shown(onOutput: output))]
        } else if let layout = configuration.outputs, configuration.schedule?.namesOutputs == true {
            listings = layout.scheduleLeaders.map { ($0, configuration.shown(onOutput: $0)) }
        }
        guard configuration.schedule != nil else {
            print("\(config): no schedule: the \(configuration.slides.count) slides of slides show all the time")
            return
        }
        for (index, listing) in listings.enumerated() {
            if index > 0 { print("") }
            try list(listing.shown.schedule!, output: listing.output)
        }
    }

    /// The state at the start and the transitions after it, of one schedule
    /// (one output's, when `output` is given).
    private func list(_ schedule: ScheduleConfiguration, output: String?) throws {
        guard let zone = schedule.zone() else {
            writeToStandardError("\(config): schedule.timezone: unknown time zone \(schedule.timezone ?? "")\n")
            throw ExitCode(1)
        }
        let timeline = ScheduleTimeline(schedule: schedule.schedule, zone: zone)
        let start: WallInstant
        if let from {
            guard let instant = Self.instant(from, in: zone) else { throw ExitCode(64) }  // validate() checked the form
            start = instant
        } else {
            start = WallInstant(secondsSinceEpoch: Int64(Date().timeIntervalSince1970.rounded(.down)))
        }
        let format = ScheduleListing(zone: zone, configuration: schedule)
        let state = timeline.state(at: start)
        var line = "\(from == nil ? "Now" : "At") \(format.local(start)): \(format.describe(state.showing))"
        if let since = state.since { line += ", since \(format.local(since))" }
        line += state.until.map { ", until \(format.local($0))" } ?? ", with no change ahead"
        print(output.map { "Output \($0): \(line)" } ?? line)
        let zoneName = zone.identifier + (zone.isSystem ? " (the system's zone)" : "")
        print("Transitions in the \(days) day\(days == 1 ? "" : "s") from then, time zone \(zoneName):")
        let end = start + Int64(days) * 86_400
        let transitions = Array(timeline.transitions(after: start).prefix { $0.instant < end })
        if transitions.isEmpty { print("  none") }
        let width = transitions.map { zone.abbreviation(at: $0.instant).count }.max() ?? 0
        for transition in transitions {
            let instant = transition.instant
            let abbreviation = zone.abbreviation(at: instant)
            let local = format.clock(instant)
            let padded = abbreviation + String(repeating: " ", count: width - abbreviation.count)
            print("  \(local) \(padded)  \(formatUTCOffset(zone.utcOffset(at: instant)))  \(instant)  \(format.describe(transition.showing))")
        }
    }

    /// `--from`: an instant (`Z` or an offset), or a reading of the schedule's clock.
    static func instant(_ text: String, in zone: some ZoneRules) -> WallInstant? {
        var body = Substring(text)
        var offset: Int?
        if body.hasSuffix("Z") || body.hasSuffix("z") {
            offset = 0
            body = body.dropLast()
        } else if let sign = body.lastIndex(where: { $0 == "+" || $0 == "-" }), body[..<sign].contains(where: { $0 == "T" || $0 == " " }) {
            let digits = body[body.index(after: sign)...].filter { $0 != ":" }
            guard digits.count == 4 || digits.count == 2, digits.allSatisfy(\.isNumber), let value = Int(digits) else { return nil }
            let seconds = digits.count == 4 ? (value / 100) * 3600 + (value % 100) * 60 : value * 3600
            offset = body[sign] == "-" ? -seconds : seconds
            body = body[..<sign]
        }
        guard let parts = ScheduleSyntax.dateTimeParts(String(body)),
              let date = LocalDate(year: parts.date.year, month: parts.date.month, day: parts.date.day) else { return nil }
        let time = parts.time.map { LocalTime(hour: $0.hour, minute: $0.minute, second: $0.second) } ?? .midnight
        guard let time, time < .endOfDay else { return nil }
        let local = LocalDateTime(date, time)
        if let offset { return WallInstant(secondsSinceEpoch: local.secondsAsIfUTC - Int64(offset)) }
        return zone.instant(for: local)
    }
}

/// How `vitrine schedule` writes instants and what shows.
struct ScheduleListing {
    let zone: ScheduleTimeZone
    let configuration: ScheduleConfiguration

    /// `Sun 2026-03-29 03:00:00`.
    func clock(_ instant: WallInstant) -> String {
        let local = zone.localDateTime(at: instant)
        return "\(local.date.weekday.displayName) \(local.date) \(local.time.description.count == 5 ? "\(local.time):00" : "\(local.time)")"
    }

    /// `Sun 2026-03-29 03:00:00 CEST`.
    func local(_ instant: WallInstant) -> String { "\(clock(instant)) \(zone.abbreviation(at: instant))" }

    /// `playlist day`, `playlist day (2 of 3 slides: 0, 2)`, `screen off`.
    func describe(_ showing: ScheduleShowing) -> String {
        switch showing {
        case .off:
            return "screen off"
        case .playlist(let name, let slides):
            let total = configuration.playlist(named: name)?.slides.count ?? slides.count
            if slides.count == total { return "playlist \(name)" }
            if slides.isEmpty { return "playlist \(name) (none of its \(total) slides valid: the placeholder shows)" }
            return "playlist \(name) (\(slides.count) of \(total) slides: \(slides.map(String.init).joined(separator: ", ")))"
        }
    }
}
