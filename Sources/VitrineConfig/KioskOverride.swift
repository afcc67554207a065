import VitrineCore

/// An emergency override: slides shown at once (not at the next slide
/// boundary), above whatever a schedule says and even while the screen is
/// switched off, until `until` on the wall clock, or until it is cleared.
///
/// The remote API makes one (`POST /api/v1/override`) and keeps it in the
/// state directory so that it survives a restart until it expires; the
/// display thread shows it (`KioskCommand.setOverride`). Its slides are
/// configuration slides, read with the same rules and key paths as the
/// configuration's `slides`.
public struct KioskOverride: Hashable, Sendable {
    /// Names this override in the status, the log and `DELETE` requests.
    public var id: String
    public var slides: [SlideConfiguration]
    /// How long each slide stays, for slides without their own duration; nil:
    /// the configuration's `interval`.
    public var interval: Duration?
    /// When it was set, on the wall clock.
    public var since: WallInstant
    /// When it ends by itself, on the wall clock.
    public var until: WallInstant

    public init(id: String, slides: [SlideConfiguration], interval: Duration? = nil, since: WallInstant, until: WallInstant) {
        self.id = id
        self.slides = slides
        self.interval = interval
        self.since = since
        self.until = until
    }

    /// Whether it still shows at `instant`: until its end. A clock behind
    /// `since` (a board without a battery-backed clock, before its time sync,
    /// or a clock set back) does not hide an emergency message; only its end does.
    public func isActive(at instant: WallInstant) -> Bool { instant < until }
}
