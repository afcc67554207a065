/// A `Schedule` in a zone: what shows at any instant of real time, since when,
/// until when, and every change after an instant.
///
/// Every answer is a pure function of the schedule, the zone's rules and the
/// instant asked about: nothing here reads a clock. The schedule changes only
/// at **boundaries**: the instants where a window or a date range starts or
/// ends, or a slide's validity begins or ends. What shows is worked out at
/// each boundary by the precedence rules of `Schedule`, and a boundary where
/// the answer does not change (two adjacent windows of the same playlist) is
/// not a transition.
///
/// Wall-clock readings become instants by `ZoneRules.instant(for:)`: a
/// reading in the missing hour of spring is the first instant after the gap,
/// a reading in the repeated hour of autumn its first occurrence (see there).
public struct ScheduleTimeline: Sendable {
    public let schedule: Schedule
    public let zone: any ZoneRules

    /// One entry's period as instants: [start, end).
    struct Span {
        var start: WallInstant
        var end: WallInstant
        var entry: Int
    }

    /// The date ranges' spans, worked out once.
    private let dateSpans: [Span]
    /// Per playlist (as `schedule.playlists`), per slide: its validity as instants.
    private let validity: [[(from: WallInstant?, until: WallInstant?)]]
    private let playlistIndex: [String: Int]
    private let weeklyEntries: [(index: Int, window: WeeklyWindow)]
    /// Every one-off boundary, sorted: date ranges' ends, slides' validity ends.
    /// Outside them the schedule repeats every week.
    let oneOffBoundaries: [WallInstant]

    static let day: Int64 = 86_400
    /// The stretch scanned at a time.
    static let chunk: Int64 = 7 * day
    /// With no change for this long, and no one-off boundary in it, the
    /// schedule cannot change before the next one-off boundary: weekly windows
    /// repeat, so two weeks (one of them free of any clock change) without a
    /// change mean none until something else happens.
    static let quietPeriod: Int64 = 15 * day
    /// Nothing is looked for beyond these years.
    static let earliest = WallInstant(utc: LocalDate(year: -9000, month: 1, day: 1)!)
    static let latest = WallInstant(utc: LocalDate(year: 9000, month: 1, day: 1)!)

    public init(schedule: Schedule, zone: any ZoneRules) {
        self.schedule = schedule
        self.zone = zone
        var dateSpans: [Span] = []
        var weekly: [(Int, WeeklyWindow)] = []
        var boundaries: [WallInstant] = []
        for (index, entry) in schedule.entries.enumerated() {
            switch entry.period {
            case .weekly(let window):
                weekly.append((index, window))
            case .dates(let range):
                let span = Span(start: zone.instant(for: range.from), end: zone.instant(for: range.until), entry: index)
                if span.start < span.end { dateSpans.append(span) }
                boundaries += [span.start, span.end]
            }
        }
        self.dateSpans = dateSpans
        self.weeklyEntries = weekly
        self.validity = schedule.playlists.map { playlist in
            playlist.slideValidity.map { slide in
                let from = slide.from.map(zone.instant(for:)), until = slide.until.map(zone.instant(for:))
                boundaries += [from, until].compactMap { $0 }
                return (from, until)
            }
        }
        var index: [String: Int] = [:]
        for (i, playlist) in schedule.playlists.enumerated() where index[playlist.name] == nil { index[playlist.name] = i }
        self.playlistIndex = index
        self.oneOffBoundaries = Array(Set(boundaries)).sorted()
    }

    // MARK: Questions

    /// What shows at `instant`.
    public func showing(at instant: WallInstant) -> ScheduleShowing {
        showing(at: instant, spans: spans(from: instant - Self.day, through: instant + Self.day))
    }

    /// What shows while the wall clock cannot be believed (`WallClockTrust.notSet`):
    /// what applies at any time of day. No entry's window or dates, and no
    /// slide's `from` or `until`, can be judged without the time, so that is
    /// `otherwise`, with only its slides that are valid at any time; with
    /// `otherwise: off`, the screen off. Nothing changes until the clock is
    /// set: `since` and `until` are nil.
    public func stateWithoutClock() -> ScheduleState {
        let showing: ScheduleShowing
        switch schedule.otherwise {
        case .off:
            showing = .off
        case .playlist(let name):
            let slides = playlistIndex[name].map { index in
                schedule.playlists[index].slideValidity.indices.filter { schedule.playlists[index].slideValidity[$0].isAlways }
            } ?? []
            showing = .playlist(name, slides: slides)
        }
        return ScheduleState(showing: showing, since: nil, until: nil)
    }

    /// What shows at `instant`, since when and until when.
    public func state(at instant: WallInstant) -> ScheduleState {
        var next = transitions(after: instant)
        return ScheduleState(showing: next.current, since: lastChange(atOrBefore: instant), until: next.next()?.instant)
    }

    /// Every change strictly after `instant`, in order, each to something
    /// other than what showed before it. The sequence is endless while weekly
    /// windows keep changing what shows; take a prefix (`prefix(while:)`).
    public func transitions(after instant: WallInstant) -> ScheduleTransitions {
        ScheduleTransitions(timeline: self, after: instant)
    }

    /// The last change at or before `instant`, or nil when nothing changes as
    /// far back as the schedule reaches.
    public func lastChange(atOrBefore instant: WallInstant) -> WallInstant? {
        var high = instant
        while high > Self.earliest {
            let low = high - Self.chunk
            let spans = spans(from: low - Self.day, through: high + Self.day)
            for candidate in boundaries(in: low, through: high, spans: spans).reversed()
            where showing(at: candidate, spans: spans) != showing(at: candidate - 1, spans: spans) {
                return candidate
            }
            high = low
            // Quiet since the nearest one-off boundary above (or `instant`): it
            // stays so down to the previous one-off boundary.
            let above = min(instant, oneOffBoundaries.first { $0 > high } ?? instant)
            if above - high >= Self.quietPeriod {
                guard let below = oneOffBoundaries.last(where: { $0 <= high }) else { return nil }
                high = min(high, below + Self.day)
            }
        }
        return nil
    }

    // MARK: Working it out

    /// The periods that overlap [from, through], as instants.
    func spans(from low: WallInstant, through high: WallInstant) -> [Span] {
        var spans = dateSpans.filter { $0.end > low && $0.start <= high }
        guard !weeklyEntries.isEmpty else { return spans }
        // A window lasts at most a day on the clock and starts on its own date:
        // the dates that can matter are those around the clock readings.
        let first = zone.localDateTime(at: low).date.adding(days: -2)
        let last = zone.localDateTime(at: high).date.adding(days: 1)
        var date = first
        while date <= last {
            for (index, window) in weeklyEntries {
                guard let (start, end) = window.occurrence(startingOn: date) else { continue }
                let span = Span(start: zone.instant(for: start), end: zone.instant(for: end), entry: index)
                if span.start < span.end, span.end > low, span.start <= high { spans.append(span) }
            }
            date = date.adding(days: 1)
        }
        return spans
    }

    /// The instants in (low, through] where something could change, sorted.
    func boundaries(in low: WallInstant, through high: WallInstant, spans: [Span]) -> [WallInstant] {
        var instants = Set<WallInstant>()
        for span in spans {
            if span.start > low && span.start <= high { instants.insert(span.start) }
            if span.end > low && span.end <= high { instants.insert(span.end) }
        }
        for boundary in oneOffBoundaries where boundary > low && boundary <= high { instants.insert(boundary) }
        return instants.sorted()
    }

    /// What shows at `instant`, given every span that could cover it.
    func showing(at instant: WallInstant, spans: [Span]) -> ScheduleShowing {
        var winner: (entry: Int, isDateRange: Bool, priority: Int)?
        for span in spans where span.start <= instant && instant < span.end {
            let entry = schedule.entries[span.entry]
            let isDateRange: Bool
            switch entry.period {
            case .dates: isDateRange = true
            case .weekly: isDateRange = false
            }
            let candidate = (entry: span.entry, isDateRange: isDateRange, priority: entry.priority)
            guard let best = winner else { winner = candidate; continue }
            // A date range beats a window; then the higher priority; then the entry listed first.
            let beats = candidate.isDateRange != best.isDateRange ? candidate.isDateRange
                : candidate.priority != best.priority ? candidate.priority > best.priority
                : candidate.entry < best.entry
            if beats { winner = candidate }
        }
        let name: String
        if let winner {
            let entry = schedule.entries[winner.entry]
            if entry.switchesScreenOff { return .off }
            name = entry.playlist
        } else {
            switch schedule.otherwise {
            case .off: return .off
            case .playlist(let fallback): name = fallback
            }
        }
        guard let index = playlistIndex[name] else { return .playlist(name, slides: []) }
        let slides = validity[index].indices.filter { slide in
            let (from, until) = validity[index][slide]
            return (from.map { $0 <= instant } ?? true) && (until.map { instant < $0 } ?? true)
        }
        return .playlist(name, slides: slides)
    }
}

/// The changes of a `ScheduleTimeline` after an instant, found a week at a time.
public struct ScheduleTransitions: Sequence, IteratorProtocol, Sendable {
    let timeline: ScheduleTimeline
    /// What shows just after the last change returned (at the start: at the instant asked about).
    public private(set) var current: ScheduleShowing
    private var cursor: WallInstant
    private var lastChange: WallInstant
    private var pending: [ScheduleTransition] = []

    init(timeline: ScheduleTimeline, after instant: WallInstant) {
        self.timeline = timeline
        self.cursor = instant
        self.lastChange = instant
        self.current = timeline.showing(at: instant)
    }

    public mutating func next() -> ScheduleTransition? {
        while pending.isEmpty {
            guard cursor < ScheduleTimeline.latest else { return nil }
            let high = cursor + ScheduleTimeline.chunk
            let spans = timeline.spans(from: cursor - ScheduleTimeline.day, through: high + ScheduleTimeline.day)
            var running = current
            for candidate in timeline.boundaries(in: cursor, through: high, spans: spans) {
                let showing = timeline.showing(at: candidate, spans: spans)
                if showing != running {
                    pending.append(ScheduleTransition(candidate, showing))
                    running = showing
                }
            }
            cursor = high
            if let last = pending.last {
                lastChange = last.instant
                break
            }
            // Quiet since the last change or one-off boundary: it stays so until the next one-off boundary.
            let since = Swift.max(lastChange, timeline.oneOffBoundaries.last { $0 <= cursor } ?? lastChange)
            if cursor - since >= ScheduleTimeline.quietPeriod {
                guard let next = timeline.oneOffBoundaries.first(where: { $0 > cursor }) else { return nil }
                cursor = Swift.max(cursor, next - ScheduleTimeline.day)
            }
        }
        let transition = pending.removeFirst()
        current = transition.showing
        return transition
    }
}
