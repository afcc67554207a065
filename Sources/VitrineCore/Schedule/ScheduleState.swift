/// What the schedule puts on screen.
public enum ScheduleShowing: Hashable, Sendable, CustomStringConvertible {
    /// A playlist, with the indices of the slides valid now, in order. A slide
    /// whose validity has not begun or has ended is left out; the list may be
    /// empty.
    case playlist(String, slides: [Int])
    /// Nothing: the screen is switched off.
    case off

    /// The playlist's name, or nil for `.off`.
    public var playlistName: String? {
        switch self {
        case .playlist(let name, _): return name
        case .off: return nil
        }
    }

    /// `playlist day (slides 0, 1, 2)` or `screen off`, for logs and test failures.
    public var description: String {
        switch self {
        case .playlist(let name, let slides): return "playlist \(name) (slides \(slides.map(String.init).joined(separator: ", ")))"
        case .off: return "screen off"
        }
    }
}

/// The schedule at an instant: what shows, since when and until when.
public struct ScheduleState: Hashable, Sendable {
    public var showing: ScheduleShowing
    /// The last change at or before the instant; nil when nothing changes for
    /// as far back as the schedule reaches.
    public var since: WallInstant?
    /// The next change after the instant; nil when nothing ever changes again.
    public var until: WallInstant?

    public init(showing: ScheduleShowing, since: WallInstant?, until: WallInstant?) {
        self.showing = showing
        self.since = since
        self.until = until
    }
}

/// A change of what the schedule shows: from `instant` on, `showing`.
public struct ScheduleTransition: Hashable, Sendable, CustomStringConvertible {
    public var instant: WallInstant
    public var showing: ScheduleShowing

    public init(_ instant: WallInstant, _ showing: ScheduleShowing) {
        self.instant = instant
        self.showing = showing
    }

    public var description: String { "\(instant): \(showing)" }
}
