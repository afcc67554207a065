/// Rotation in step: which slide shows at a wall-clock instant, and when the
/// next one begins, as a pure function of the instant, an epoch and the
/// slides' durations. Slide 0 begins at the epoch, slide k after the durations
/// of the slides before it, and the playlist repeats without end: every kiosk
/// with the same playlist and a clock that agrees computes the same instants,
/// whenever it started (a reboot rejoins by computing, not by remembering).
///
/// A slide "begins" where the engine's rotation deadline is: the start of its
/// transition in (`RotationScheduler.slideBegan`), so each slide's duration
/// holds its transition, as it does when a kiosk rotates alone.
public struct SyncedRotationTimeline: Hashable, Sendable {
    /// Where the rotation is at an instant.
    public struct Position: Hashable, Sendable {
        /// The playlist slide that should be showing (or transitioning in).
        public var slide: Int
        /// When the next slide begins, in nanoseconds since 1970 (wall clock).
        public var nextBegins: Int64
        /// The slide that begins then.
        public var nextSlide: Int
    }

    /// In nanoseconds since 1970: the instant slide 0 first began.
    public let epochNanoseconds: Int64
    /// Each slide's start within one round of the playlist, and the round's length.
    private let offsets: [Int64]
    private let cycle: Int64

    /// nil without slides, or when they add up to no time at all.
    public init?(epoch: WallInstant, dwells: [Duration]) {
        var offsets: [Int64] = []
        var total: Int64 = 0
        for dwell in dwells {
            offsets.append(total)
            total += max(0, dwell.nanoseconds)
        }
        guard total > 0 else { return nil }
        self.epochNanoseconds = epoch.secondsSinceEpoch * 1_000_000_000
        self.offsets = offsets
        self.cycle = total
    }

    /// The position at `wallNanoseconds` (since 1970). Before the epoch the
    /// rounds are counted backwards, so a clock behind it (a board that booted
    /// in 1970 and has not learnt the time) still gets a consistent answer.
    public func position(atWallNanoseconds wallNanoseconds: Int64) -> Position {
        let elapsed = wallNanoseconds &- epochNanoseconds
        // Floor division: the round and the place in it, also before the epoch.
        var round = elapsed / cycle
        var within = elapsed % cycle
        if within < 0 {
            within += cycle
            round -= 1
        }
        // The last slide whose start is at or before `within` (offsets[0] is 0).
        var low = 0, high = offsets.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if offsets[middle] <= within { low = middle } else { high = middle - 1 }
        }
        let slide = low
        let roundStart = epochNanoseconds &+ round &* cycle
        let nextSlide = (slide + 1) % offsets.count
        let nextOffset = slide + 1 < offsets.count ? offsets[slide + 1] : cycle
        return Position(slide: slide, nextBegins: roundStart &+ nextOffset, nextSlide: nextSlide)
    }
}
