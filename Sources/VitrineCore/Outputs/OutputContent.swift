/// Which pictures an output shows.
public enum OutputContent: Hashable, Sendable, CustomStringConvertible {
    /// What the kiosk shows when nothing says otherwise: its `slides`, or the
    /// playlist its schedule chooses by the time of day.
    case programme
    /// One of the schedule's playlists, by name, all the time.
    case playlist(String)

    public var description: String {
        switch self {
        case .programme: return "the programme"
        case .playlist(let name): return "playlist \(name)"
        }
    }
}
