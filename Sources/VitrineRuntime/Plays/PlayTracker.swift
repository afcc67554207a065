import VitrineCore

/// A slide reaching the screen at rest: what `KioskEvent.slideShown` carries.
public struct SlideShown: Hashable, Sendable {
    public var slide: Int
    /// The slide's `path` as the configuration names it.
    public var path: String
    /// The local file the picture was decoded from.
    public var file: String?
    /// The picture's SHA-256 when its name says it (an asset, a downloaded
    /// URL); otherwise nil, and the play log hashes `file` on its own thread.
    public var sha256: String?
    /// When its first frame reached the screen (the flip's completion on DRM).
    public var presented: MonotonicInstant
    /// The same instant on the wall clock, in nanoseconds since the Unix epoch.
    public var wallNanoseconds: Int64

    public init(slide: Int, path: String, file: String?, sha256: String?, presented: MonotonicInstant, wallNanoseconds: Int64) {
        self.slide = slide
        self.path = path
        self.file = file
        self.sha256 = sha256
        self.presented = presented
        self.wallNanoseconds = wallNanoseconds
    }
}

/// The play on one output group's screen, and the record it becomes when it
/// ends: when the next slide shows there, its screen goes dark, or the kiosk
/// stops. Pure, on the instants it is given. A play still on screen is in no
/// record yet, so a crash loses at most the play in progress.
///
/// One slide is on a group's screen at a time, so there is one tracker per
/// output group (`PlayLog` keeps them by `output`): another group's next slide
/// must not end this one's play.
public struct PlayTracker: Sendable {
    /// The output group whose screen this is, as its records name it; nil: the kiosk's only one, unnamed.
    public let output: String?
    public private(set) var current: SlideShown?
    /// Its picture's hash, once known.
    private var currentHash: String?
    /// How much of its video played, when it is a video slide the carousel paged away from.
    private var currentVideoPlayed: Duration?

    public init(output: String? = nil) {
        self.output = output
    }

    /// `shown` is on screen from now on; returns the play it ended, if any.
    /// - Parameter sha256: the picture's hash (from the event, or computed).
    public mutating func shown(_ shown: SlideShown, sha256: String?, sequence: UInt64) -> PlayRecord? {
        let ended = end(at: shown.presented, sequence: sequence)
        current = shown
        currentHash = sha256
        currentVideoPlayed = nil
        return ended
    }

    /// The video slide on screen showed `played` of its video. The carousel
    /// reports it as it pages away, before the next slide comes to rest; a
    /// report for another slide than the one on screen (it never came to rest) is dropped.
    public mutating func videoPlayed(slide: Int, played: Duration) {
        guard current?.slide == slide else { return }
        currentVideoPlayed = played
    }

    /// Nothing shows any more from `instant` (the screen went dark, the kiosk
    /// stopped); returns the play it ended, if one was on screen.
    public mutating func end(at instant: MonotonicInstant, sequence: UInt64) -> PlayRecord? {
        guard let play = current else { return nil }
        current = nil
        defer { currentVideoPlayed = nil }
        return PlayRecord(sequence: sequence, slide: play.slide, path: play.path, sha256: currentHash,
                          startNanoseconds: play.wallNanoseconds, duration: max(.zero, instant - play.presented), output: output,
                          videoPlayed: currentVideoPlayed)
    }
}
