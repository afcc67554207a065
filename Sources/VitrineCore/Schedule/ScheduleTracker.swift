/// Follows the wall clock for a kiosk and says when to change what it shows,
/// so that no transition is missed or applied twice, whatever the clock does.
///
/// The kiosk calls `observe(wall:monotonic:)` whenever it wakes for the
/// schedule: at the instant of the next transition (a `CLOCK_REALTIME` timer),
/// and whenever the wall clock is stepped (`TFD_TIMER_CANCEL_ON_SET`). The rule
/// is deliberately simple, and needs no memory of the clock's past:
///
/// - **After any observation, what shows is recomputed for the observed wall
///   time alone**, and a change is reported only when it differs from the
///   one last reported (the state applied). Reporting the same state twice
///   is impossible; so is skipping the state that is due now.
/// - **A jump forward over several transitions** (an NTP step after a night
///   switched off, an RTC-less board that booted believing it is 1970 and
///   then learnt the date) reports **one** change, to the state due at the
///   new time, not each state it jumped over: the kiosk never flickers
///   through playlists nobody would see.
/// - **A jump backwards** (a clock set back) recomputes the same way: if the
///   earlier time falls in another period, its state is reported, once; if
///   it falls in the same period, nothing is.
/// - The first observation always reports the state due, since nothing has
///   been applied yet.
///
/// `clockStep` compares the wall time that passed with the monotonic time
/// that passed since the previous observation, to say in the log that the
/// clock was stepped and by how much.
///
/// **A clock that is not set** (`WallClockTrust.notSet`: no time server yet, no
/// battery-backed clock) is not believed: the state is what applies at any
/// time of day (`ScheduleTimeline.stateWithoutClock()`), reported once like
/// any other. The clock counts as set from the first observation whose
/// reading says so, or the first that sees it stepped (someone set it), and
/// from then on it stays set: a time server that goes away leaves a clock
/// that was right, and the kiosk keeps following it.
public struct ScheduleTracker: Sendable {
    public private(set) var timeline: ScheduleTimeline
    /// What was last reported to apply; nil before the first observation.
    public private(set) var applied: ScheduleShowing?
    /// Whether the wall clock is believed, as of the last observation.
    public private(set) var clock: WallClockTrust
    private var previous: (wall: WallInstant, monotonic: MonotonicInstant)?

    /// A wall clock that disagrees with the monotonic clock by more than this
    /// between two observations has been stepped.
    public static let stepTolerance: Duration = .seconds(2)

    /// `clock` is what an earlier tracker knew (a schedule that came back), `.notSet` for a first one.
    public init(timeline: ScheduleTimeline, clock: WallClockTrust = .notSet) {
        self.timeline = timeline
        self.clock = clock
    }

    /// The wall clock read `wall` when the monotonic clock read `monotonic`;
    /// `reading` is whether the system says it is set (`.set(.unchecked)`: the
    /// caller vouches for it).
    public mutating func observe(wall: WallInstant, monotonic: MonotonicInstant,
                                 clock reading: WallClockTrust = .set(.unchecked)) -> ScheduleTrackerUpdate {
        var step: ClockStep = .first
        if let previous {
            let wallNanoseconds = (wall - previous.wall) * 1_000_000_000
            let drift = wallNanoseconds - (monotonic - previous.monotonic).nanoseconds
            // Whole-second wall readings: up to a second of the difference is rounding.
            if drift > Self.stepTolerance.nanoseconds {
                step = .forward(.nanoseconds(drift))
            } else if drift < -Self.stepTolerance.nanoseconds {
                step = .backward(.nanoseconds(-drift))
            } else {
                step = .none
            }
        }
        previous = (wall, monotonic)
        let wasSet = clock
        switch (clock, reading, step) {
        case (.set, _, _):
            break  // Once set, it stays set.
        case (.notSet, .set, _):
            clock = reading
        case (.notSet, .notSet, .forward), (.notSet, .notSet, .backward):
            clock = .set(.stepped)
        case (.notSet, .notSet, .first), (.notSet, .notSet, .none):
            break
        }
        let state = clock.isSet ? timeline.state(at: wall) : timeline.stateWithoutClock()
        let change: ScheduleShowing? = state.showing == applied ? nil : state.showing
        if let change { applied = change }
        return ScheduleTrackerUpdate(apply: change, state: state, clockStep: step, clock: clock,
                                     clockChanged: step == .first || wasSet != clock)
    }

    /// A new schedule (a new configuration) takes effect at the next
    /// observation; what was applied stays applied, so an unchanged answer is
    /// not reported again.
    public mutating func replace(_ timeline: ScheduleTimeline) {
        self.timeline = timeline
    }
}

/// What one observation of the wall clock calls for.
public struct ScheduleTrackerUpdate: Hashable, Sendable {
    /// What to put on screen now, or nil when what was applied stands.
    public var apply: ScheduleShowing?
    /// The schedule at the observed time. `state.until` is when to observe
    /// next (the kiosk's realtime timer), unless the clock is stepped first.
    public var state: ScheduleState
    /// How the wall clock moved since the previous observation.
    public var clockStep: ClockStep
    /// Whether the wall clock is believed now.
    public var clock: WallClockTrust = .set(.unchecked)
    /// The first observation, or the clock's trust changed at this one: worth a line in the log.
    public var clockChanged = false
}

/// How the wall clock moved between two observations, against the monotonic clock.
public enum ClockStep: Hashable, Sendable {
    /// The first observation: nothing to compare with.
    case first
    /// The two clocks agree.
    case none
    /// The wall clock jumped ahead by this much (NTP, the first time sync of a board without an RTC).
    case forward(Duration)
    /// The wall clock was set back by this much.
    case backward(Duration)
}
