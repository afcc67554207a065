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
/// clock was stepped and by how much; it does not change the decision.
public struct ScheduleTracker: Sendable {
    public private(set) var timeline: ScheduleTimeline
    /// What was last reported to apply; nil before the first observation.
    public private(set) var applied: ScheduleShowing?
    private var previous: (wall: WallInstant, monotonic: MonotonicInstant)?

    /// A wall clock that disagrees with the monotonic clock by more than this
    /// between two observations has been stepped.
    public static let stepTolerance: Duration = .seconds(2)

    public init(timeline: ScheduleTimeline) {
        self.timeline = timeline
    }

    /// The wall clock read `wall` when the monotonic clock read `monotonic`.
    public mutating func observe(wall: WallInstant, monotonic: MonotonicInstant) -> ScheduleTrackerUpdate {
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
        let state = timeline.state(at: wall)
        let change: ScheduleShowing? = state.showing == applied ? nil : state.showing
        if let change { applied = change }
        return ScheduleTrackerUpdate(apply: change, state: state, clockStep: step)
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
