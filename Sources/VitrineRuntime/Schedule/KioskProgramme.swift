import Logging
import VitrineConfig
import VitrineCore

/// The schedule and the emergency override for the display loop: the pure
/// `Programme` fed with the turn's wall clock when its timer comes or the clock
/// is stepped (`EventLoop.setWallTimer`), each change logged once.
///
/// The loop asks it what to show at start, on a push, on an override, and at
/// its turns, passing its reading of the clocks (it reads none itself); a
/// kiosk without a schedule or an override never wakes for one. Whether the
/// wall clock has been set at all is asked of `clockTrust` (`SystemWallClock`:
/// a few files in /run and /sys) at those moments, and only while a schedule
/// waits for the answer (`clockReading`).
final class KioskProgramme {
    private var programme: Programme
    private let logger: Logger
    private let clockTrust: () -> WallClockTrust
    /// Rotation in step with a group, by the wall clock (`sync`).
    let inStep: SyncedRotationFollower
    /// The wall timer came or the clock was stepped: observe at the next turn.
    private var due = false

    /// At start, before the loop runs: the zone file is read here, once.
    init(configuration: KioskConfiguration, version: String?, logger: Logger,
         clockTrust: @escaping () -> WallClockTrust = SystemWallClock().trust) {
        self.logger = logger
        self.clockTrust = clockTrust
        inStep = SyncedRotationFollower(logger: logger)
        let scheduled = ScheduledConfiguration(configuration)
        if let problem = scheduled.zoneProblem { logger.error("\(problem)") }
        programme = Programme(configuration: configuration, version: version, timeline: scheduled.timeline)
    }

    /// What to show first.
    func start(at now: KioskInstant) -> Programme.Change {
        logged(programme.start(wall: now.wall, monotonic: now.monotonic, clock: clockReading()))
    }

    /// A configuration was pushed (or its downloads changed), its zone already
    /// read by whoever sent it: nothing here touches the file system.
    func apply(_ scheduled: ScheduledConfiguration, version: String, at now: KioskInstant) -> Programme.Change {
        if let problem = scheduled.zoneProblem { logger.error("\(problem)") }
        return logged(programme.apply(scheduled.configuration, version: version, timeline: scheduled.timeline,
                                      wall: now.wall, monotonic: now.monotonic,
                                      clock: clockReading(scheduled: scheduled.timeline != nil)))
    }

    /// The downloaded copies of URL slides changed (`Programme.updateDownloads`).
    func updateDownloads(_ downloads: [String: String]) {
        programme.updateDownloads(downloads)
    }

    func setOverride(_ override: KioskOverride?, fallback: KioskOverride? = nil, at now: KioskInstant) -> Programme.Change {
        if let override { logger.notice("override \(override.id) received: \(override.slides.count) slides until \(override.until)") }
        return logged(programme.setOverride(override, fallback: fallback, wall: now.wall, monotonic: now.monotonic,
                                                   clock: clockReading()))
    }

    /// The wall-clock timer fired, or the wall clock was set.
    func wallClockChanged(stepped: Bool) {
        due = true
        if stepped { logger.info("the wall clock was set: checking the schedule") }
    }

    /// What the wall clock calls for, when its timer came since the last turn.
    func takeDueChange(at now: KioskInstant) -> Programme.Change? {
        guard due else { return nil }
        due = false
        return logged(programme.observe(wall: now.wall, monotonic: now.monotonic, clock: clockReading()))
    }

    var nextWallDeadline: WallInstant? { programme.nextWallDeadline }
    var override: KioskOverride? { programme.override }
    var scheduleStatus: ScheduleStatus? { programme.scheduleStatus }

    /// The system's answer while a schedule waits for it; otherwise no file is
    /// read, and what is passed is never looked at (no schedule, or a clock
    /// already known to be set).
    private func clockReading(scheduled: Bool? = nil) -> WallClockTrust {
        programme.needsClockReading(scheduled: scheduled) ? clockTrust() : .set(.unchecked)
    }

    private func logged(_ change: Programme.Change) -> Programme.Change {
        for note in change.notes { logger.notice("\(note)") }
        return change
    }
}
