import VitrineCore

/// A video slide on its way to the screen: frames decoded ahead, in a process
/// of their own (VitrineSandbox's `SandboxedVideo`), and handed to the display
/// thread as their time comes.
///
/// Times are slide time: how long the slide has played since it came to rest
/// (`LayerPlayback.elapsed`), across loops. A time earlier than the one asked
/// before by more than a moment is a new playback (the slide shown again),
/// which starts the video again from its first frame.
public protocol SlideVideo: AnyObject, Sendable {
    var info: VideoInfo { get }
    /// The first frame, framed for the output: what shows before the slide
    /// plays, while a finger holds it, and in transitions into it.
    var poster: PixelImage { get }
    /// How long the slide plays, once known: the video's length, the loop's,
    /// or the cut's (`VideoLength.slideDuration`).
    var length: Duration? { get }
    /// The frame to show at `time`, chosen by the refresh it falls to
    /// (`VideoFramePacer`); never waits: a frame not decoded yet leaves the
    /// one before it on screen, and the loop is woken when it lands.
    func frame(at time: Duration) -> PixelImage
    /// The frame `frame(at:)` last chose, or the poster before it chose one:
    /// what a frame drawn after that choice shows (the compositor, a plane, a
    /// screenshot), without choosing again.
    var currentFrame: PixelImage { get }
    /// The frame at `time`, waiting for the decoder if it must: for
    /// `vitrine render` and tests, never the display thread.
    func frameNow(at time: Duration) -> PixelImage
    /// The slide time of the frame `frame(at:)` last chose; nil before the first.
    var shownTime: Duration? { get }
    /// How much video this playback has shown: from its start to the end of
    /// the frame on screen, across loops. Less than the slide's stay when the
    /// video stopped early (a failure) or ended before the slide did.
    var played: Duration { get }
    /// When the picture changes next after `time`: the next decoded frame's time.
    func nextChange(after time: Duration) -> Duration?
    /// Paces frames to a screen that refreshes every `refreshInterval`.
    func paceTo(refreshInterval: Duration)
    /// Who to wake when a frame the display waited for lands (the frame store).
    func whenFrameLands(_ wake: @escaping @Sendable () -> Void)
    /// How the frames have reached the screen so far in this playback.
    var pacing: VideoPacingSummary { get }
    /// Why the video stopped playing, once it has; its last frame stays.
    var failure: String? { get }
}

/// Opens video slides: the seam between the frame store's decoders and the
/// sandboxed video helper, which the composition root hands in.
public protocol SlideVideoOpener: Sendable {
    /// Opens `request`'s video, on the file open at `descriptor` (which stays
    /// the caller's), and decodes its first frame into `posterStorage` (or
    /// memory of its own). Blocks while it does: called on a decode queue.
    func open(_ request: SlideRequest, descriptor: Int32, posterStorage: PixelStorage?) throws(SlideError) -> any SlideVideo
}
