/// The frames one member of a composite display (a canvas's screen, a
/// mirror) presented and skipped. Each member flips on its own vblank, while
/// the kiosk's frame pacing (`FramePacing`) sees only the frames it draws for
/// the group: these say how many of them each screen showed.
struct MemberFrameCount: Equatable {
    /// The member: its connector's name, or its place and description (`member 2 (headless 1920x1080)`).
    var member: String
    /// Frames presented on it, catch-ups included.
    var presented = 0
    /// Frames of the group it did not take while taking part: its own flip was
    /// still pending (a slower screen) or its buffer not free.
    var skipped = 0
    /// Presents of a frame it had skipped, once its flip was done and no newer
    /// frame came: counted in `presented` too.
    var caughtUp = 0

    /// `HDMI-A-2 presented 301 (2 catching up), skipped 299`
    var summary: String {
        "\(member) presented \(presented)" + (caughtUp == 0 ? "" : " (\(caughtUp) catching up)") + ", skipped \(skipped)"
    }
}
