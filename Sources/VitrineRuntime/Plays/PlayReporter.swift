import Glibc
import VitrineConfig
import VitrineCore
import VitrineSystem

/// The display loop's part of proof of play: noticing, as frames are
/// presented, when one first shows a new slide at rest, and when that frame
/// reached the screen. `Kiosk` emits what it returns as `KioskEvent.slideShown`;
/// the log (`PlayLog`) lives elsewhere, on its own thread. Pure but for
/// reading the clocks when a frame is presented.
struct PlayReporter {
    /// What a resting frame shows: a slide of a playlist, from a file.
    struct Showing: Hashable {
        var slide: Int
        var path: String
        var file: String?
    }

    /// The slide last reported, so that a redraw of it (a hotplug, a
    /// screenshot, the indicator) is not a new play.
    private var onScreen: Showing?
    /// Presented, but its page flip has not completed yet.
    private var awaitingScanout: Showing?

    /// The slide a scene shows at rest: one opaque layer in place. During a
    /// transition or under a finger there are two layers, or an offset.
    static func resting(_ scene: Scene) -> Int? {
        guard scene.layers.count == 1, let layer = scene.layers.first, layer.offset == 0, layer.opacity >= 1,
              case .slide(let slide) = layer.content else { return nil }
        return slide
    }

    /// A frame showing `scene` was just presented. Returns the play to report
    /// when the frame is on screen already (a blocking modeset, headless);
    /// with a flip pending, `scanoutCompleted` reports it.
    /// - Parameters:
    ///   - decoded: whether the slide's picture is what was drawn (not
    ///     the background while it decodes, nor the placeholder for a failure).
    ///   - now: the turn's reading: when a frame shown without a flip reached the screen.
    mutating func presented(_ scene: Scene, configuration: KioskConfiguration, decoded: (Int) -> Bool,
                            flipPending: Bool, at now: MonotonicInstant) -> SlideShown? {
        guard let slide = Self.resting(scene), configuration.slides.indices.contains(slide), decoded(slide) else { return nil }
        let path = configuration.slides[slide].path
        let showing = Showing(slide: slide, path: path, file: configuration.resolve(path))
        guard showing != onScreen else {
            awaitingScanout = nil
            return nil
        }
        if flipPending {
            awaitingScanout = showing
            return nil
        }
        onScreen = showing
        return Self.event(showing, at: now)
    }

    /// A page flip completed at `scanout` (the vblank it reached the screen at),
    /// read at `now`, which stands in when the driver gave no vblank time.
    mutating func scanoutCompleted(at scanout: MonotonicInstant?, now: MonotonicInstant) -> SlideShown? {
        guard let showing = awaitingScanout else { return nil }
        awaitingScanout = nil
        onScreen = showing
        return Self.event(showing, at: scanout ?? now)
    }

    /// The screen went dark: the slide it shows again when lit is a new play.
    mutating func screenWentDark() {
        onScreen = nil
        awaitingScanout = nil
    }

    private static func event(_ showing: Showing, at instant: MonotonicInstant) -> SlideShown {
        SlideShown(slide: showing.slide, path: showing.path, file: showing.file, sha256: sha256(named: showing),
                   presented: instant, wallNanoseconds: wallNanoseconds(at: instant))
    }

    /// The hash a picture's name already says: an `asset:` slide, or a URL's
    /// copy in the asset store (named by its SHA-256). Other files are hashed
    /// by the log, off this thread.
    static func sha256(named showing: Showing) -> String? {
        if case .asset(let id) = SlideSource(showing.path) { return id }
        guard case .url = SlideSource(showing.path), let file = showing.file,
              let name = file.split(separator: "/").last.map(String.init), SlideSource.isAssetID(name) else { return nil }
        return name
    }

    /// `instant` (CLOCK_MONOTONIC, which flip timestamps use) on the wall
    /// clock. There is no clock_gettime for "CLOCK_REALTIME at a past
    /// monotonic instant", so read both clocks once, back to back, and carry
    /// the offset between them over: the error is the few hundred nanoseconds
    /// between the two reads, plus any wall-clock step between `instant` and
    /// now (a few milliseconds after a flip: NTP slews rather than steps).
    static func wallNanoseconds(at instant: MonotonicInstant) -> Int64 {
        var wall = timespec(), monotonic = timespec()
        clock_gettime(CLOCK_REALTIME, &wall)
        clock_gettime(CLOCK_MONOTONIC, &monotonic)
        let wallNow = Int64(wall.tv_sec) * 1_000_000_000 + Int64(wall.tv_nsec)
        let monotonicNow = Int64(monotonic.tv_sec) * 1_000_000_000 + Int64(monotonic.tv_nsec)
        return wallNow - (monotonicNow - instant.nanoseconds)
    }
}
