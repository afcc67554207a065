import VitrineCore

/// The `schedule` section: named playlists, the entries that choose between
/// them by time of day, day of the week and date, what shows otherwise, and
/// the zone all of it is in. See docs/configuration.md, "Schedule".
///
/// The rules themselves are `VitrineCore.Schedule`'s; this adds the slides
/// and the zone's name.
public struct ScheduleConfiguration: Hashable, Sendable {
    /// The IANA zone the times are in (`Europe/Berlin`); nil: the system's.
    public var timezone: String?
    public var playlists: [PlaylistConfiguration] = []
    public var entries: [ScheduleEntry] = []
    /// The outputs (connector names, as `outputs` has them) each entry names,
    /// by the entry's index in `entries`. An entry without a key names none:
    /// it applies to every output that follows the schedule, as every entry
    /// did before entries could name outputs. Kept beside `entries` rather
    /// than in them so that the core's `ScheduleEntry` stays free of outputs:
    /// `shown(onOutput:)` filters the entries before the core sees them.
    public var entryOutputs: [Int: [String]] = [:]
    /// What shows when no entry applies.
    public var otherwise: ScheduleFallback = .off

    public init(timezone: String? = nil, playlists: [PlaylistConfiguration] = [], entries: [ScheduleEntry] = [],
                entryOutputs: [Int: [String]] = [:], otherwise: ScheduleFallback = .off) {
        self.timezone = timezone
        self.playlists = playlists
        self.entries = entries
        self.entryOutputs = entryOutputs
        self.otherwise = otherwise
    }

    /// The outputs entry `index` names; empty: it names none.
    public func outputs(ofEntry index: Int) -> [String] { entryOutputs[index] ?? [] }

    public func playlist(named name: String) -> PlaylistConfiguration? { playlists.first { $0.name == name } }

    /// The rules, for the pure core.
    public var schedule: Schedule {
        Schedule(playlists: playlists.map { SchedulePlaylist(name: $0.name, slideValidity: $0.slides.map(\.validity)) },
                 entries: entries, otherwise: otherwise)
    }

    /// The zone the schedule is in: the configured one, or the system's. Nil
    /// only for a configured name tzdata does not know (which the loader
    /// already refuses).
    public func zone() -> ScheduleTimeZone? {
        guard let timezone else { return ScheduleTimeZone.system() }
        return ScheduleTimeZone(identifier: timezone)
    }

    /// The schedule in its zone.
    public func timeline() -> ScheduleTimeline? {
        zone().map { ScheduleTimeline(schedule: schedule, zone: $0) }
    }
}

/// One named playlist of the schedule: slides as the top-level `slides` has
/// them, each with its validity.
public struct PlaylistConfiguration: Hashable, Sendable {
    public var name: String
    public var slides: [ScheduledSlide]

    public init(name: String, slides: [ScheduledSlide]) {
        self.name = name
        self.slides = slides
    }
}

/// A slide of a schedule's playlist, with when it may be shown.
public struct ScheduledSlide: Hashable, Sendable {
    public var slide: SlideConfiguration
    public var validity: SlideValidity

    public init(_ slide: SlideConfiguration, validity: SlideValidity = .always) {
        self.slide = slide
        self.validity = validity
    }
}

extension KioskConfiguration {
    /// Every slide the configuration names, with its key path: the top-level
    /// playlist's, then each schedule playlist's.
    public var allSlides: [(keyPath: String, slide: SlideConfiguration)] {
        var all = slides.enumerated().map { ("slides[\($0)]", $1) }
        for playlist in schedule?.playlists ?? [] {
            all += playlist.slides.enumerated().map { ("schedule.playlists.\(playlist.name)[\($0)]", $1.slide) }
        }
        return all
    }

    /// Every picture the configuration names, at its key path: each slide's
    /// `path` (`allSlides`), then the `placeholder`.
    public var pictures: [(keyPath: String, path: String)] {
        allSlides.map { ($0.keyPath + ".path", $0.slide.path) } + (placeholder.map { [("placeholder", $0)] } ?? [])
    }
}
