import VitrineConfig
import VitrineCore

/// A configuration with its schedule's time zone already read: what the
/// display thread is handed (`KioskCommand.apply`), so that it never reads a
/// TZif file itself. `init` reads it, on the sender's thread: the API's, the
/// channel's, or a test's.
public struct ScheduledConfiguration: Hashable, Sendable {
    public let configuration: KioskConfiguration
    /// The schedule in its zone; nil without a schedule, or when its zone's
    /// file cannot be read (`zoneProblem` says so).
    public let timeline: ScheduleTimeline?
    /// Why the schedule is not followed: the loader refuses a zone tzdata does
    /// not know, so this means the zone's file went missing since.
    public let zoneProblem: String?

    public init(_ configuration: KioskConfiguration) {
        self.configuration = configuration
        guard let schedule = configuration.schedule else {
            (timeline, zoneProblem) = (nil, nil)
            return
        }
        timeline = schedule.timeline()
        zoneProblem = timeline == nil
            ? "schedule.timezone: no time zone \(schedule.timezone ?? "") in tzdata; the schedule is not followed" : nil
    }

    /// Equal configurations read the same zone file: the timeline follows from them.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.configuration == rhs.configuration && lhs.zoneProblem == rhs.zoneProblem
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(configuration)
        hasher.combine(zoneProblem)
    }
}
