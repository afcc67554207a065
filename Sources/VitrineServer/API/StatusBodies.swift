import VitrineConfig
import VitrineCore
import VitrineRuntime

/// `GET /api/v1/status`'s answer: `components/schemas/Status` in docs/api/openapi.yaml.
public struct StatusBody: Codable, Hashable, Sendable {
    /// The slide on screen, counting from 0; nil when the playlist is empty.
    public var slide: Int?
    public var slideCount: Int
    /// Whether slides are rotating on their own now.
    public var playing: Bool
    /// Why rotation is paused (`remote`, `screenOff`, `touch`, `visitor`), if it is.
    public var pausedBecause: [String]
    /// The display in use, such as `headless 1280x720`.
    public var output: String
    /// The names of the touch devices in use.
    public var inputDevices: [String]
    public var configVersion: String
    public var uptimeSeconds: Double
    /// The latest errors, oldest first.
    public var recentErrors: [String]
    public var vitrineVersion: String
    /// Whether the screen is lit.
    public var screen: PowerState
    /// What the schedule shows now and next; nil without a schedule.
    public var schedule: ScheduleStatusBody?
    /// The emergency override on screen; nil when none is.
    public var override: OverrideBody?
    /// The signed channel this kiosk follows; nil when it follows none.
    public var channel: ChannelStatusBody?
    /// The TV told of screen changes over HDMI-CEC; nil with `power.cec` off.
    public var tv: TelevisionStatusBody?
    /// Attract mode; nil when `touch.attract` is off.
    public var attract: AttractStatusBody?

    public init(slide: Int?, slideCount: Int, playing: Bool, pausedBecause: [String], output: String, inputDevices: [String],
                configVersion: String, uptimeSeconds: Double, recentErrors: [String], vitrineVersion: String, screen: PowerState,
                schedule: ScheduleStatusBody?, override: OverrideBody?, channel: ChannelStatusBody?, tv: TelevisionStatusBody?,
                attract: AttractStatusBody? = nil) {
        self.slide = slide
        self.slideCount = slideCount
        self.playing = playing
        self.pausedBecause = pausedBecause
        self.output = output
        self.inputDevices = inputDevices
        self.configVersion = configVersion
        self.uptimeSeconds = uptimeSeconds
        self.recentErrors = recentErrors
        self.vitrineVersion = vitrineVersion
        self.screen = screen
        self.schedule = schedule
        self.override = override
        self.channel = channel
        self.tv = tv
        self.attract = attract
    }

    private enum CodingKeys: String, CodingKey {
        case slide, slideCount, playing, pausedBecause, output, inputDevices, configVersion, uptimeSeconds, recentErrors
        case vitrineVersion, screen, schedule, override, channel, tv, attract
    }

    /// Every key always, null included: a client reads `schedule: null` as
    /// "no schedule", which is what the status has always said.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(slide, forKey: .slide)
        try container.encode(slideCount, forKey: .slideCount)
        try container.encode(playing, forKey: .playing)
        try container.encode(pausedBecause, forKey: .pausedBecause)
        try container.encode(output, forKey: .output)
        try container.encode(inputDevices, forKey: .inputDevices)
        try container.encode(configVersion, forKey: .configVersion)
        try container.encode(uptimeSeconds, forKey: .uptimeSeconds)
        try container.encode(recentErrors, forKey: .recentErrors)
        try container.encode(vitrineVersion, forKey: .vitrineVersion)
        try container.encode(screen, forKey: .screen)
        try container.encode(schedule, forKey: .schedule)
        try container.encode(override, forKey: .override)
        try container.encode(channel, forKey: .channel)
        try container.encode(tv, forKey: .tv)
        try container.encode(attract, forKey: .attract)
    }
}

/// `schedule` in the status: `components/schemas/ScheduleStatus`. What the
/// schedule shows now, since and until when (RFC 3339, UTC), and what comes next.
public struct ScheduleStatusBody: Codable, Hashable, Sendable {
    /// What shows now, as `vitrine schedule` writes it (`playlist day (slides 0, 1)`, `screen off`).
    public var showing: String
    /// The playlist showing; nil while the schedule has the screen off.
    public var playlist: String?
    /// When that began; nil when it has always been so.
    public var since: String?
    /// When it changes next; nil when it never does.
    public var until: String?
    /// What shows from `until` on.
    public var next: String?
    /// The zone the schedule is in.
    public var timezone: String

    public init(showing: String, playlist: String?, since: String?, until: String?, next: String?, timezone: String) {
        self.showing = showing
        self.playlist = playlist
        self.since = since
        self.until = until
        self.next = next
        self.timezone = timezone
    }

    init(_ schedule: ScheduleStatus) {
        self.init(showing: schedule.now.showing.description, playlist: schedule.now.showing.playlistName,
                  since: schedule.now.since?.description, until: schedule.now.until?.description,
                  next: schedule.next?.description, timezone: schedule.timezone)
    }

    private enum CodingKeys: String, CodingKey { case showing, playlist, since, until, next, timezone }

    /// Every key always, as the schema requires: null where there is nothing.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(showing, forKey: .showing)
        try container.encode(playlist, forKey: .playlist)
        try container.encode(since, forKey: .since)
        try container.encode(until, forKey: .until)
        try container.encode(next, forKey: .next)
        try container.encode(timezone, forKey: .timezone)
    }
}
