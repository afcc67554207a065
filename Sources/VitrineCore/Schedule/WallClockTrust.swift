/// Whether the wall clock tells the real time, as far as a schedule can know.
///
/// A board without a battery-backed clock (every Raspberry Pi before the 5,
/// and a 5 without its battery) boots believing it is 1970, or the moment it
/// last shut down (Raspberry Pi OS's fake-hwclock, systemd-timesyncd's saved
/// clock), until it reaches a time server. A schedule read on that clock shows
/// the wrong daypart or a dark screen. So until the clock is set, the schedule
/// shows only what applies at any time of day
/// (`ScheduleTimeline.stateWithoutClock()`), and the status says why.
public enum WallClockTrust: Hashable, Sendable, CustomStringConvertible {
    /// Something set the clock, and the schedule applies.
    case set(WallClockSource)
    /// Nothing has set the clock since the board started.
    case notSet

    public var isSet: Bool {
        switch self {
        case .set: return true
        case .notSet: return false
        }
    }

    /// `set by a time server`, `not set`: for the log and the status.
    public var description: String {
        switch self {
        case .set(let source): return source.rawValue
        case .notSet: return "not set"
        }
    }
}

/// What set the wall clock, or why it is believed; the raw value is how the
/// log and the status say it.
public enum WallClockSource: String, Hashable, Sendable {
    /// A time server, through NTP: systemd-timesyncd's mark that it synchronised.
    case timeServer = "set by a time server"
    /// A battery-backed clock the kernel read at boot (`hctosys`).
    case realTimeClock = "set from the real-time clock at boot"
    /// Someone or something stepped it while the kiosk ran (`date -s`, another NTP daemon).
    case stepped = "set while the kiosk ran"
    /// No systemd-timesyncd to wait for: the system keeps its time some other way, or not at all.
    case unwatched = "taken as set (no systemd-timesyncd to wait for)"
    /// Not checked: the caller vouches for the time (tests, `vitrine render --wall`).
    case unchecked = "taken as set"
}
