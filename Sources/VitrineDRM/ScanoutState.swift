/// What a `DRMScanout` is doing, as one value in place of five flags
/// (flip pending, mode set, powered, connected, given back), so that the
/// combinations that cannot happen cannot be written either: a flip is only
/// ever pending on a connected, lit panel whose mode is set, and nothing at all
/// happens once the CRTC has been given back.
enum ScanoutState: Equatable, Sendable {
    /// The buffers exist and no mode is set yet: the first `present()` sets it.
    case awaitingFirstFrame(Panel)
    /// The mode is set and the front buffer is scanned out; the back buffer is free to draw into.
    case scanningOut(Panel)
    /// The back buffer is queued for the next vblank: both buffers are the
    /// kernel's until its flip-complete event. The panel is connected and lit.
    case flipPending
    /// `restore()` gave the CRTC back to what was there before: the end.
    case givenBack

    /// The panel as the kiosk has left it: plugged in or not, switched on or off.
    struct Panel: Equatable, Sendable {
        enum Connection: Equatable, Sendable { case connected, unplugged }
        enum Power: Equatable, Sendable { case on, off }

        var connection: Connection
        var power: Power

        static let lit = Panel(connection: .connected, power: .on)

        /// Connected and switched on: a frame drawn now would be seen.
        var isLit: Bool { self == .lit }
    }

    /// The panel's condition; nil once given back.
    var panel: Panel? {
        switch self {
        case .awaitingFirstFrame(let panel), .scanningOut(let panel): panel
        case .flipPending: .lit
        case .givenBack: nil
        }
    }

    /// The same phase with the panel changed; a pending flip or the end stay as they are
    /// (the caller refuses the change in those phases).
    func with(_ panel: Panel) -> ScanoutState {
        switch self {
        case .awaitingFirstFrame: .awaitingFirstFrame(panel)
        case .scanningOut: .scanningOut(panel)
        case .flipPending, .givenBack: self
        }
    }
}
