/// Which playlist shows when: named playlists chosen by weekly windows and by
/// date ranges, with a fallback for the rest of the time.
///
/// This is pure data on wall-clock readings, with no zone and no clock;
/// `ScheduleTimeline` joins it to a zone's rules and answers questions about
/// instants.
///
/// **Precedence**, at any instant:
/// 1. a date-range entry that covers the instant beats every weekly window;
/// 2. among entries of the same kind that cover it, the highest `priority` wins;
/// 3. entries of the same kind and priority that name different playlists
///    must never overlap: `conflicts()` lists the pairs that do, and the
///    configuration rejects them. (Should they arrive anyway, the first one
///    listed wins, so the answer is still defined.)
/// 4. with no entry covering the instant, `otherwise` shows.
public struct Schedule: Hashable, Sendable {
    public var playlists: [SchedulePlaylist]
    public var entries: [ScheduleEntry]
    public var otherwise: ScheduleFallback

    public init(playlists: [SchedulePlaylist], entries: [ScheduleEntry], otherwise: ScheduleFallback) {
        self.playlists = playlists
        self.entries = entries
        self.otherwise = otherwise
    }

    public func playlist(named name: String) -> SchedulePlaylist? { playlists.first { $0.name == name } }

    /// Pairs of entries (by index, the earlier first) that are open at the
    /// same clock time, are of the same kind, have the same priority and name
    /// different playlists: nothing decides between them. Entries naming the
    /// same playlist may overlap; the result is the same either way.
    public func conflicts() -> [ScheduleConflict] {
        var conflicts: [ScheduleConflict] = []
        for (i, a) in entries.enumerated() {
            for (j, b) in entries.enumerated() where j > i && a.priority == b.priority && a.playlist != b.playlist {
                switch (a.period, b.period) {
                case (.weekly(let x), .weekly(let y)):
                    if let overlap = x.overlap(with: y) { conflicts.append(ScheduleConflict(first: i, second: j, overlap: .weekly(overlap))) }
                case (.dates(let x), .dates(let y)):
                    if let overlap = x.overlap(with: y) { conflicts.append(ScheduleConflict(first: i, second: j, overlap: .dates(overlap))) }
                case (.weekly, .dates), (.dates, .weekly):
                    break  // A date range always wins.
                }
            }
        }
        return conflicts
    }
}

/// One named playlist, as far as the schedule is concerned: how many slides it
/// has and when each is valid. (The slides themselves are the configuration's.)
public struct SchedulePlaylist: Hashable, Sendable {
    public var name: String
    /// One entry per slide, in playlist order.
    public var slideValidity: [SlideValidity]

    public init(name: String, slideValidity: [SlideValidity]) {
        self.name = name
        self.slideValidity = slideValidity
    }
}

/// One rule of the schedule: a playlist for a period, or the screen off.
public struct ScheduleEntry: Hashable, Sendable {
    /// The playlist's name, or `ScheduleEntry.off`.
    public var playlist: String
    public var period: SchedulePeriod
    /// Higher wins over lower among entries of the same kind. Default 0.
    public var priority: Int

    public init(playlist: String, period: SchedulePeriod, priority: Int = 0) {
        self.playlist = playlist
        self.period = period
        self.priority = priority
    }

    /// The name an entry gives to switch the screen off while it applies: no
    /// playlist may be called that. It is how an output with a playlist of its
    /// own, whose `otherwise` is that playlist, goes dark at night.
    public static let off = "off"

    /// Whether the entry switches the screen off rather than showing a playlist.
    public var switchesScreenOff: Bool { playlist == Self.off }
}

/// When an entry applies.
public enum SchedulePeriod: Hashable, Sendable {
    /// Every week, on some days, between two clock times.
    case weekly(WeeklyWindow)
    /// Once, between two dates (and times). Beats every weekly window.
    case dates(ScheduleDateRange)
}

/// What shows when no entry applies.
public enum ScheduleFallback: Hashable, Sendable {
    /// The screen is switched off.
    case off
    /// This playlist shows.
    case playlist(String)
}

/// Two entries that nothing decides between, and where they meet.
public struct ScheduleConflict: Hashable, Sendable {
    public enum Overlap: Hashable, Sendable {
        case weekly(WeekOverlap)
        case dates(ScheduleDateRange)
    }
    /// Entry indices, `first` < `second`.
    public var first: Int
    public var second: Int
    public var overlap: Overlap
}
