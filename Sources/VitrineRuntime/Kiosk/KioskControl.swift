import VitrineConfig
import VitrineCore

/// What the kiosk reports as it runs: the carousel's own events, and the
/// kiosk's. The remote API streams these.
public enum KioskEvent: Hashable, Sendable {
    case carousel(CarouselEvent)
    /// A new configuration is on screen.
    case configurationApplied(version: String)
    /// An emergency override reached its end by itself (one deleted through the API is reported there).
    case overrideEnded(id: String)
    /// Something went wrong that an operator should see (a picture that cannot be shown).
    case error(String)
    /// The display came on or went dark (also its state at start), at the
    /// turn's reading `at`: a TV on HDMI-CEC follows it (`CECTelevision`), and
    /// proof of play ends the play on screen then.
    case screenChanged(lit: Bool, at: MonotonicInstant)
    /// A presented frame first showed a new slide at rest (proof of play: `PlayLog`).
    case slideShown(SlideShown)
    /// The carousel paged away from a video slide, which had shown `played`
    /// of its video in this playback (proof of play records it with the play).
    case videoPlayed(slide: Int, played: Duration)
    /// A visitor took over, or the kiosk went back home after they left (`touch.attract`).
    case attract(AttractEvent)
}

/// A request from outside the display thread.
public enum KioskCommand: Hashable, Sendable {
    case navigate(CarouselCommand)
    /// Pause rotation for an operator (`PauseReason.remote`).
    case pause
    case resume
    /// Show this configuration from the next slide boundary on. Its schedule's
    /// zone is read when the `ScheduledConfiguration` is made, before it is sent.
    case apply(ScheduledConfiguration, version: String)
    /// Switch the screen on or off (an operator, through the API).
    case setScreenPower(ScreenPower.Request)
    /// Show an emergency override at once, or end the one showing (nil).
    /// `fallback` (an output's own override comes with the kiosk's override
    /// for every output) shows when the first reaches its `until`, if it is
    /// still active then. The same override again leaves it showing undisturbed.
    case setOverride(KioskOverride?, fallback: KioskOverride? = nil)
    /// The downloaded copies of URL slides, URL to local file, after one arrived
    /// or changed: only the slides that show those URLs are decoded again.
    case updateDownloads([String: String])
    /// Decode the slides whose pictures were refused again (an operator asked,
    /// after `SlideDecoder.retry` forgot the refusals that held them back).
    case retryFailedPictures
    /// Where this kiosk can be set up (`AddressNotice`), read again every few
    /// seconds; it shows while the configuration on screen has `showAddress`.
    case addressNotice(ScreenNotice)
}

/// A question for the display thread, answered at its next turn.
enum KioskQuery {
    case frame(@Sendable (PixelImage) -> Void)
    case ping(@Sendable () -> Void)
}

/// What the kiosk is doing, as last published by the display thread.
public struct KioskStatus: Hashable, Sendable {
    public var currentSlide: Int?
    public var slideCount: Int
    public var playing: Bool
    /// Why rotation is paused, if it is: `touch`, `remote`, `screenOff`, `visitor`.
    public var pausedBecause: [String]
    public var output: String
    public var inputDevices: [String]
    public var configurationVersion: String?
    public var startedAt: MonotonicInstant
    /// The latest errors, oldest first, at most `KioskStatus.errorLimit`.
    public var recentErrors: [String]
    /// Whether the screen is lit, and why.
    public var screen: ScreenPower.State = .on
    /// What was last asked of the screen.
    public var screenRequested: ScreenPower.Request = .on
    /// The emergency override showing, if one is.
    public var override: KioskOverride?
    /// What the schedule shows now, since when, until when and what comes
    /// next; nil without a schedule.
    public var schedule: ScheduleStatus?
    /// Attract mode, when `touch.attract` is set.
    public var attract: AttractStatus?
    /// The video on screen, when the slide is a video whose helper has it open.
    public var video: VideoStatus?

    public static let errorLimit = 20
}

/// The thread-safe way in and out of a running kiosk: commands go in and wake
/// the display thread through its eventfd; the status comes out as a snapshot
/// the display thread publishes after every turn. Nothing here waits for the
/// display thread, and the display thread never waits on a caller.
public final class KioskControl: Sendable {
    private let mutex = Mutex()
    private let wakeup: WakeupSignal
    nonisolated(unsafe) private var inbox: [KioskCommand] = []
    nonisolated(unsafe) private var queries: [KioskQuery] = []
    nonisolated(unsafe) private var published: KioskStatus

    init(wakeup: WakeupSignal, initial: KioskStatus) {
        self.wakeup = wakeup
        self.published = initial
    }

    public func send(_ command: KioskCommand) {
        mutex.withLock { inbox.append(command) }
        wakeup.signal()
    }

    public var status: KioskStatus { mutex.withLock { published } }

    /// Asks the display thread for a copy of the frame on screen, composed
    /// upright at the logical output size; `reply` runs on the display thread
    /// at its next turn and must hand the work on rather than do it there.
    public func requestFrame(reply: @escaping @Sendable (PixelImage) -> Void) {
        mutex.withLock { queries.append(.frame(reply)) }
        wakeup.signal()
    }

    /// `reply` runs on the display thread at its next turn: proof the loop is alive.
    public func ping(reply: @escaping @Sendable () -> Void) {
        mutex.withLock { queries.append(.ping(reply)) }
        wakeup.signal()
    }

    func takeQueries() -> [KioskQuery] {
        mutex.withLock {
            defer { queries.removeAll() }
            return queries
        }
    }

    func takeCommands() -> [KioskCommand] {
        mutex.withLock {
            defer { inbox.removeAll() }
            return inbox
        }
    }

    func publish(_ status: KioskStatus) {
        mutex.withLock { published = status }
    }
}

/// The schedule's part of the status: what it shows now and what comes next.
public struct ScheduleStatus: Hashable, Sendable {
    public var now: ScheduleState
    /// The change at `now.until`, if there is one.
    public var next: ScheduleShowing?
    /// The schedule's zone (`Europe/Berlin`).
    public var timezone: String
    /// Whether the wall clock is believed: while it is not set, `now` is what
    /// applies at any time of day, and nothing changes until it is.
    public var clock: WallClockTrust

    public init(now: ScheduleState, next: ScheduleShowing?, timezone: String, clock: WallClockTrust = .set(.unchecked)) {
        self.now = now
        self.next = next
        self.timezone = timezone
        self.clock = clock
    }
}
