import VitrineConfig
import VitrineCore

/// What the kiosk shows, as a pure function of the configuration applied, the
/// wall-clock time it is told and the override it was given: the playlist its
/// schedule chooses, an emergency override above that, or the configuration's
/// own `slides` when it has no schedule. Nothing here reads a clock; the
/// display loop (`KioskProgramme`) feeds it, and tests run it on virtual wall
/// time.
///
/// Rules:
/// - A schedule's change of playlist shows from the next slide boundary; an
///   override shows at once and ends at once (`Change.immediate`).
/// - The schedule's `off` asks the screen off, and its first playlist after an
///   `off` asks it on again (`Change.power`). Between those moments an
///   operator's request stands: a screen switched off by hand in the day stays
///   off until it is switched on, or until the schedule next switches it.
/// - While the schedule is off, the slides stay what they were: a touch that
///   wakes the screen shows the last playlist, and nothing is decoded anew.
/// - An override is above both: it shows while the schedule is off, and holds
///   the screen lit (`ScreenPower.heldByOverride`).
/// - An output's own override may come with a fallback, the kiosk's override
///   for every output: when the own one reaches its `until`, the fallback shows
///   at once if it is still active. The loop switches by itself at that wall
///   instant, so no thread outside it has to watch the clock to resend it.
struct Programme {
    /// Which content is on screen.
    enum Selection: Hashable, Sendable, CustomStringConvertible {
        /// The configuration's top-level `slides` (no schedule, or nothing shown by it yet).
        case configuration
        /// A schedule's playlist and the indices of its slides valid now.
        case playlist(String, slides: [Int])
        /// The emergency override with this id.
        case override(String)

        var description: String {
            switch self {
            case .configuration: return "the configuration's slides"
            case .playlist(let name, let slides): return ScheduleShowing.playlist(name, slides: slides).description
            case .override(let id): return "override \(id)"
            }
        }
    }

    /// A configuration to put on screen, and what it is.
    struct Shown: Hashable {
        var configuration: KioskConfiguration
        var selection: Selection
    }

    /// What one update calls for.
    struct Change: Hashable {
        /// What to show now; nil: what shows stands.
        var show: Shown?
        /// Show it at once rather than at the next slide boundary.
        var immediate = false
        /// The screen on or off, at the schedule's moments.
        var power: ScreenPower.Request?
        /// What happened, for the log: one line each.
        var notes: [String] = []
        /// The override that reached its end at this update (not one cleared by a request).
        var endedOverride: String?
    }

    private(set) var configuration: KioskConfiguration
    private(set) var version: String?
    private var tracker: ScheduleTracker?
    /// Whether the wall clock was believed at the last observation: kept for a schedule that comes back.
    private var clockKnown: WallClockTrust = .notSet
    /// While the clock is not set: when to ask again.
    private var clockRecheckAt: WallInstant?
    /// What the schedule last said, nil before its first observation or without one.
    private(set) var scheduled: ScheduleShowing?
    /// The schedule at the last observation, and the change after it.
    private(set) var scheduleStatus: ScheduleStatus?
    private(set) var override: KioskOverride?
    /// What shows when `override` reaches its end, if it is active then.
    private(set) var fallback: KioskOverride?
    /// What is on screen (or waiting for its slide boundary).
    private(set) var selection: Selection = .configuration

    /// A configuration and its schedule in its zone (`timeline`, nil without a schedule).
    init(configuration: KioskConfiguration, version: String?, timeline: ScheduleTimeline?) {
        self.configuration = configuration
        self.version = version
        tracker = timeline.map { ScheduleTracker(timeline: $0) }
    }

    /// The configuration to start with, at `wall`: what the schedule shows
    /// then, and whether to start with the screen off.
    mutating func start(wall: WallInstant, monotonic: MonotonicInstant, clock: WallClockTrust = .set(.unchecked)) -> Change {
        var change = update(wall: wall, monotonic: monotonic, clock: clock, force: true)
        change.immediate = true
        return change
    }

    /// The downloaded copies of URL slides changed: what the schedule or an
    /// override shows from now on is made with them. Nothing changes on screen
    /// here; the display thread updates the slides it shows itself.
    mutating func updateDownloads(_ downloads: [String: String]) {
        configuration.downloads = downloads
    }

    /// A new configuration (pushed, or its downloaded pictures changed), with its schedule.
    mutating func apply(_ configuration: KioskConfiguration, version: String?, timeline: ScheduleTimeline?,
                        wall: WallInstant, monotonic: MonotonicInstant, clock: WallClockTrust = .set(.unchecked)) -> Change {
        self.configuration = configuration
        self.version = version
        if let timeline {
            // Kept, not made anew: a schedule whose answer is unchanged is not applied again.
            if tracker == nil { tracker = ScheduleTracker(timeline: timeline, clock: clockKnown) } else { tracker!.replace(timeline) }
        } else {
            tracker = nil
            scheduleStatus = nil
        }
        var removedScheduleWasOff = false
        if tracker == nil, let previous = scheduled {
            // The schedule is gone: it can no longer hold the screen off, nor choose a playlist.
            removedScheduleWasOff = previous == .off
            scheduled = nil
        }
        var change = update(wall: wall, monotonic: monotonic, clock: clock, force: true)
        if removedScheduleWasOff { change.power = .on }
        return change
    }

    /// An override to show at once, or nil to end the one showing; `fallback`
    /// shows when `override` reaches its end, if it is active then. The same
    /// override again (same id) shows on undisturbed, whatever its fallback.
    mutating func setOverride(_ override: KioskOverride?, fallback: KioskOverride? = nil,
                              wall: WallInstant, monotonic: MonotonicInstant, clock: WallClockTrust = .set(.unchecked)) -> Change {
        let previous = self.override
        // A fallback alone is the override itself.
        self.override = override ?? fallback
        self.fallback = override == nil ? nil : fallback
        var change = update(wall: wall, monotonic: monotonic, clock: clock, force: false)
        if override == nil, let previous { change.notes.insert("override \(previous.id) cleared", at: 0) }
        if let override, !override.isActive(at: wall) {
            change.notes.insert("override \(override.id) not shown: it ended at \(override.until)", at: 0)
        }
        return change
    }

    /// The wall clock read `wall`: its timer came, or it was stepped.
    /// `clock` is whether the system says the clock is set.
    mutating func observe(wall: WallInstant, monotonic: MonotonicInstant, clock: WallClockTrust = .set(.unchecked)) -> Change {
        update(wall: wall, monotonic: monotonic, clock: clock, force: false)
    }

    /// When to observe next: the schedule's next change or the override's end.
    /// With a schedule that never changes again, a far instant, so that the
    /// timer stays armed and a step of the clock is still noticed. While the
    /// clock is not set, `clockRecheck` after the last observation too: a time
    /// server that slews a nearly right clock, rather than stepping it, wakes
    /// no timer.
    var nextWallDeadline: WallInstant? {
        let candidates = [scheduleStatus.map { $0.now.until ?? Self.farFuture }, override?.until, clockRecheckAt].compactMap { $0 }
        return candidates.min()
    }

    /// Whether a reading of the system's clock would change anything: there is
    /// a schedule (or `configuration` brings one) and the clock is not yet known
    /// to be set. Once set, it stays set (`ScheduleTracker`), and without a
    /// schedule nothing follows the wall clock.
    func needsClockReading(scheduled: Bool? = nil) -> Bool {
        (scheduled ?? (tracker != nil)) && !clockKnown.isSet
    }

    /// How often a clock that is not set is asked again.
    static let clockRecheck: Int64 = 5

    static let farFuture = WallInstant(secondsSinceEpoch: 253_402_300_799)  // 9999-12-31T23:59:59Z

    // MARK: The decision

    private mutating func update(wall: WallInstant, monotonic: MonotonicInstant, clock: WallClockTrust, force: Bool) -> Change {
        var change = Change()
        if let current = override, !current.isActive(at: wall) {
            override = nil
            change.notes.append("override \(current.id) ended at \(current.until)")
            change.endedOverride = current.id
            if let next = fallback, next.isActive(at: wall) {
                override = next
                change.notes.append("override \(next.id) shows again until \(next.until)")
            }
            fallback = nil
        }
        if var tracker {
            let update = tracker.observe(wall: wall, monotonic: monotonic, clock: clock)
            self.tracker = tracker
            clockKnown = update.clock
            switch update.clockStep {
            case .forward(let by): change.notes.append("the wall clock was stepped forward by \(Self.seconds(by))")
            case .backward(let by): change.notes.append("the wall clock was stepped back by \(Self.seconds(by))")
            case .first, .none: break
            }
            if update.clockChanged {
                switch (update.clock, update.clockStep) {
                case (.notSet, _):
                    change.notes.append("the wall clock is not set (no time server reached yet, no battery-backed clock): until it is, "
                                        + "the schedule shows what applies at any time of day, \(update.state.showing)")
                case (.set, .first):
                    break  // The usual start: nothing to say.
                case (.set, _):
                    change.notes.append("the wall clock was \(update.clock): the schedule applies")
                }
            }
            clockRecheckAt = update.clock.isSet ? nil : wall + Self.clockRecheck
            var following: ScheduleTransition?
            if update.clock.isSet {
                var next = tracker.timeline.transitions(after: wall)
                following = next.next()
            }
            scheduleStatus = ScheduleStatus(now: update.state, next: following?.showing,
                                            timezone: tracker.timeline.zone.identifier, clock: update.clock)
            if let showing = update.apply {
                switch showing {
                case .off:
                    change.power = .off
                case .playlist:
                    if scheduled == .off || scheduled == nil { change.power = .on }
                }
                change.notes.append("schedule: \(showing)\(update.state.until.map { " until \($0)" } ?? "")")
                scheduled = showing
            }
        }
        let previous = selection
        let wanted = wantedSelection()
        if force || wanted != previous {
            selection = wanted
            change.show = Shown(configuration: shownConfiguration(for: wanted), selection: wanted)
            // An override's start and end show at once; a schedule's change waits for the slide boundary.
            if case .override = wanted { change.immediate = true }
            if case .override = previous { change.immediate = true }
        }
        return change
    }

    /// The override, else the schedule's playlist, else (schedule off) what
    /// showed before, else the configuration's slides.
    private func wantedSelection() -> Selection {
        if let override { return .override(override.id) }
        switch scheduled {
        case .playlist(let name, let slides)?:
            return .playlist(name, slides: slides)
        case .off?:
            // The screen is off: keep the slides there were, unless they were an override's.
            if case .override = selection { return .configuration }
            if case .playlist(let name, _) = selection, configuration.schedule?.playlist(named: name) == nil { return .configuration }
            return selection
        case nil:
            return .configuration
        }
    }

    private func shownConfiguration(for selection: Selection) -> KioskConfiguration {
        switch selection {
        case .configuration: return configuration
        case .playlist(let name, let slides): return configuration.showingPlaylist(name, slides: slides)
        case .override: return override.map(configuration.overridden(by:)) ?? configuration
        }
    }

    private static func seconds(_ duration: Duration) -> String {
        "\(duration.components.seconds) s"
    }
}
