/// A few lines of text the kiosk shows over its slides, in a box of its own:
/// today the address a new kiosk is set up at (`AddressNotice`). A value, so
/// that the display loop can tell a changed notice from the one on screen.
public struct ScreenNotice: Hashable, Sendable {
    /// Top to bottom; each is drawn on one line, as it is (no wrapping).
    public var lines: [String]

    public init(lines: [String]) {
        self.lines = lines
    }
}
