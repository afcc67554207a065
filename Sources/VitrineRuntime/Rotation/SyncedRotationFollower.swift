import Logging
import VitrineConfig
import VitrineCore

/// Rotation in step with the other kiosks of a group (`sync` in the
/// configuration; docs/fleet.md): the carousel's automatic page changes put on
/// the wall-clock instants the pure `SyncedRotationTimeline` computes, so that screens
/// side by side change together.
///
/// It works on the engine's own rotation deadline rather than beside it: while
/// in step it only moves that deadline (the engine still starts the transition
/// at it, exactly), so pausing, waiting for a picture and touch all behave as
/// they do alone. Out of step (a finger paged, the kiosk just started or
/// rebooted, a picture was skipped) it waits until the engine's own rotation
/// would move on (a touch's resume delay plus a dwell), moves that to the next
/// instant of the group, and there goes to the group's slide.
final class SyncedRotationFollower {
    private var inStep: SyncedRotationTimeline?
    private let logger: Logger
    /// Logged once per stretch out of step, not at every turn.
    private var outOfStep = false

    init(logger: Logger) {
        self.logger = logger
    }

    /// The configuration on screen changed (at start, a push, the schedule, an override).
    func update(for configuration: KioskConfiguration) {
        guard let sync = configuration.sync else {
            inStep = nil
            return
        }
        inStep = SyncedRotationTimeline(epoch: sync.effectiveEpoch, dwells: configuration.carouselSettings.slideDwells)
        if let inStep {
            logger.info("rotating in step: slide 0 began at \(WallInstant(nanosecondsSinceEpoch: inStep.epochNanoseconds)), \(configuration.slides.count) slides")
        }
    }

    /// The slide the group shows at `wallNanoseconds` for `configuration`, which
    /// a change of playlist starts at (`SlideContinuity.joiningGroup`); nil
    /// without `sync` or without slides.
    static func groupSlide(for configuration: KioskConfiguration, atWallNanoseconds wallNanoseconds: Int64) -> Int? {
        guard let sync = configuration.sync,
              let timeline = SyncedRotationTimeline(epoch: sync.effectiveEpoch, dwells: configuration.carouselSettings.slideDwells)
        else { return nil }
        return timeline.position(atWallNanoseconds: wallNanoseconds).slide
    }

    /// Puts the engine's next automatic change on the group's instant. Called at
    /// each turn before `engine.advance`, with the turn's reading of both clocks.
    func keep(_ engine: inout CarouselEngine, at now: KioskInstant) {
        guard let inStep, engine.isPlaying, case .resting = engine.phase, let deadline = engine.scheduler.deadline,
              let current = engine.currentSlide, engine.pageCount >= 2 else { return }
        // Read together, the two clocks map a wall-clock instant onto the
        // monotonic clock the engine runs on. Both are read at every turn, so a
        // wall clock slewed by NTP is followed; a step is followed at the next turn.
        let monotonicNow = now.monotonic, wallNow = now.wallNanoseconds
        func monotonic(_ wall: Int64) -> MonotonicInstant { now.monotonic(atWallNanoseconds: wall) }
        let position = inStep.position(atWallNanoseconds: wallNow)
        if monotonicNow >= deadline {
            // The change is due. In step, the engine's own change (to the next
            // slide in order, at the deadline to the nanosecond) is the group's.
            let nextInOrder = (current + 1) % engine.settings.slideCount
            if position.slide == nextInOrder { return }
            if position.slide == current {
                // The group is at this very slide: stay until its next change.
                // (A wall clock read a hair before the instant names the slide
                // ending too; its next change then maps onto this deadline, and
                // nothing moves.)
                Self.align(&engine, deadline, to: monotonic(position.nextBegins))
                return
            }
            logger.info("rejoining the group: slide \(current) -> \(position.slide)")
            engine.perform(.goTo(position.slide), at: monotonicNow, cause: .automatic)
            return
        }
        if current == position.slide {
            if outOfStep { logger.info("in step again at slide \(current)") }
            outOfStep = false
            Self.align(&engine, deadline, to: monotonic(position.nextBegins))
            return
        }
        if !outOfStep { logger.info("out of step: slide \(current) shows, the group is at slide \(position.slide); rejoining at its next change") }
        outOfStep = true
        // The first instant of the group at or after the engine's own deadline.
        let deadlineWall = wallNow + (deadline - monotonicNow).nanoseconds
        let boundary = inStep.position(atWallNanoseconds: deadlineWall - 1).nextBegins
        Self.align(&engine, deadline, to: monotonic(boundary))
    }

    /// Moves the deadline only when it is off by more than a millisecond: the
    /// two clock readings differ by microseconds from turn to turn.
    private static func align(_ engine: inout CarouselEngine, _ deadline: MonotonicInstant, to target: MonotonicInstant) {
        if abs((target - deadline).nanoseconds) > 1_000_000 { engine.alignRotation(to: target) }
    }
}
