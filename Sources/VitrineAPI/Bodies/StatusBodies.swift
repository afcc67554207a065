import VitrineConfig
import VitrineCore
import VitrineRuntime

/// `GET /api/v1/status`'s answer: `components/schemas/Status` in docs/api/openapi.yaml.
public struct StatusBody: Codable, Hashable, Sendable {
    /// The slide on screen, counting from 0; nil when the playlist is empty.
    @ExplicitNull public var slide: Int?
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
    @ExplicitNull public var schedule: ScheduleStatusBody?
    /// The emergency override on screen; nil when none is.
    @ExplicitNull public var override: OverrideBody?
    /// The signed channel this kiosk follows; nil when it follows none.
    @ExplicitNull public var channel: ChannelStatusBody?
    /// The TV told of screen changes over HDMI-CEC; nil with `power.cec` off.
    @ExplicitNull public var tv: TelevisionStatusBody?
    /// Attract mode; nil when `touch.attract` is off.
    @ExplicitNull public var attract: AttractStatusBody?
    /// The pictures the decoding sandbox refused, newest first (`POST /api/v1/pictures/retry` tries them again).
    public var refusedPictures: [RefusedPictureBody]
    /// The board's power and storage, read every minute; nil before the first reading.
    @ExplicitNull public var board: BoardHealthBody?
    /// The video on screen; nil when the slide on screen is a picture.
    @ExplicitNull public var video: VideoStatusBody?
    /// The update helper's last run; nil before it ran (or where it is not installed).
    @ExplicitNull public var software: SoftwareStatusBody?

    public init(slide: Int?, slideCount: Int, playing: Bool, pausedBecause: [String], output: String, inputDevices: [String],
                configVersion: String, uptimeSeconds: Double, recentErrors: [String], vitrineVersion: String, screen: PowerState,
                schedule: ScheduleStatusBody?, override: OverrideBody?, channel: ChannelStatusBody?, tv: TelevisionStatusBody?,
                attract: AttractStatusBody? = nil, refusedPictures: [RefusedPictureBody] = [], board: BoardHealthBody? = nil,
                video: VideoStatusBody? = nil, software: SoftwareStatusBody? = nil) {
        self.video = video
        self.software = software
        self.refusedPictures = refusedPictures
        self.board = board
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
}

/// `schedule` in the status: `components/schemas/ScheduleStatus`. What the
/// schedule shows now, since and until when (RFC 3339, UTC), and what comes next.
public struct ScheduleStatusBody: Codable, Hashable, Sendable {
    /// What shows now, as `vitrine schedule` writes it (`playlist day (slides 0, 1)`, `screen off`).
    public var showing: String
    /// The playlist showing; nil while the schedule has the screen off.
    @ExplicitNull public var playlist: String?
    /// When that began; nil when it has always been so.
    @ExplicitNull public var since: String?
    /// When it changes next; nil when it never does.
    @ExplicitNull public var until: String?
    /// What shows from `until` on.
    @ExplicitNull public var next: String?
    /// The zone the schedule is in.
    public var timezone: String
    /// Whether the wall clock is set, and by what (`set by a time server`), or
    /// `not set`: then `showing` is what applies at any time of day, and
    /// `until` and `next` are null until the clock is set.
    public var clock: String
    /// Whether the schedule follows the clock: false while the clock is not set.
    public var clockSet: Bool

    public init(showing: String, playlist: String?, since: String?, until: String?, next: String?, timezone: String,
                clock: String = WallClockTrust.set(.unchecked).description, clockSet: Bool = true) {
        self.showing = showing
        self.playlist = playlist
        self.since = since
        self.until = until
        self.next = next
        self.timezone = timezone
        self.clock = clock
        self.clockSet = clockSet
    }

    package init(_ schedule: ScheduleStatus) {
        self.init(showing: schedule.now.showing.description, playlist: schedule.now.showing.playlistName,
                  since: schedule.now.since?.description, until: schedule.now.until?.description,
                  next: schedule.next?.description, timezone: schedule.timezone,
                  clock: schedule.clock.description, clockSet: schedule.clock.isSet)
    }
}

/// `video` in the status: `components/schemas/VideoStatus`. The video on
/// screen: what it is, which decoder plays it, how much has played and how
/// its frames reached the screen, and why it stopped, if it did.
public struct VideoStatusBody: Codable, Hashable, Sendable {
    /// The slide's `path` as the configuration names it.
    public var file: String
    public var codec: String
    /// The picture's size as stored, before `turned`.
    public var width: Int
    public var height: Int
    /// How the stream's display matrix turns its frames upright ("turned 90°
    /// clockwise"); nil when they are shown as stored.
    @ExplicitNull public var turned: String?
    /// Frames a second as the stream says; nil when it does not.
    @ExplicitNull public var frameRate: Double?
    /// `software` or `hardware`.
    public var decoding: String
    /// FFmpeg's decoder (`h264`, `libdav1d`, `h264_v4l2m2m`).
    public var decoder: String
    public var playedMs: Int64
    public var framesShown: Int
    public var framesLate: Int
    public var framesDropped: Int
    public var framesDroppedByDesign: Int
    /// Why it stopped playing (its last frame stays on screen); nil while it plays.
    @ExplicitNull public var stopped: String?

    public init(_ status: VideoStatus) {
        file = status.file
        codec = status.info.codec
        width = status.info.size.width
        height = status.info.size.height
        turned = status.info.orientation.turnDescription
        frameRate = status.info.frameRate.map { ($0 * 1000).rounded() / 1000 }
        decoding = status.info.decodesInHardware ? "hardware" : "software"
        decoder = status.info.decoder
        playedMs = status.played.nanoseconds / 1_000_000
        framesShown = status.pacing.shown
        framesLate = status.pacing.late
        framesDropped = status.pacing.droppedLate
        framesDroppedByDesign = status.pacing.droppedByDesign
        stopped = status.failure
    }
}
