/// When one slide of a playlist may be shown: from a wall-clock date and time
/// (included) until another (excluded); either end may be open.
///
/// Outside its validity a slide is left out of its playlist, as if it were
/// not listed; the playlist itself stays on (with no valid slide, it shows
/// what an empty playlist shows: the placeholder or the background).
public struct SlideValidity: Hashable, Sendable {
    public var from: LocalDateTime?
    /// The first reading at which the slide is no longer valid.
    public var until: LocalDateTime?

    public init(from: LocalDateTime? = nil, until: LocalDateTime? = nil) {
        self.from = from
        self.until = until
    }

    /// Valid whenever its playlist shows.
    public static let always = SlideValidity()

    public var isAlways: Bool { from == nil && until == nil }
}
