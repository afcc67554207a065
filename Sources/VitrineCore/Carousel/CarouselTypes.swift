/// What a layer of the scene shows.
public enum SlideContent: Hashable, Sendable {
    /// The picture of slide `index` in the playlist.
    case slide(Int)
    /// The placeholder: shown when the playlist is empty.
    case placeholder
}

/// Why the page changed.
public enum PageChangeCause: String, Hashable, Sendable, Codable {
    /// Auto-rotation reached the slide's deadline.
    case automatic
    /// A command: next, previous or go-to, from the API or a tap action.
    case command
    /// A finger swiped.
    case swipe
}

/// A navigation request.
public enum CarouselCommand: Hashable, Sendable {
    case next
    case previous
    /// Go to the slide with this index in the playlist.
    case goTo(Int)
}

/// What the engine reports as it runs.
public enum CarouselEvent: Hashable, Sendable {
    /// A page change finished: slide `to` is now the current slide.
    case pageChanged(from: Int, to: Int, cause: PageChangeCause)
}

/// When the engine next needs the display thread.
public enum CarouselWakeup: Hashable, Sendable {
    /// An animation runs: present a new frame every refresh.
    case everyFrame
    /// Nothing moves until this instant (the next rotation deadline).
    case at(MonotonicInstant)
    /// Nothing is scheduled; only input, commands or a decoded picture can change the screen.
    case idle
}

/// The settings the engine runs with.
public struct CarouselSettings: Hashable, Sendable {
    /// How long each slide stays on screen, one entry per playlist slide.
    public var slideDwells: [Duration]
    /// Whether paging wraps around at the ends.
    public var loop: Bool
    public var rotation: RotationPolicy
    public var transition: TransitionStyle

    public init(slideDwells: [Duration], loop: Bool = true, rotation: RotationPolicy = RotationPolicy(),
                transition: TransitionStyle = TransitionStyle()) {
        self.slideDwells = slideDwells
        self.loop = loop
        self.rotation = rotation
        self.transition = transition
    }

    /// Settings for `count` slides that all use the rotation interval.
    public static func uniform(count: Int, loop: Bool = true, rotation: RotationPolicy = RotationPolicy(),
                               transition: TransitionStyle = TransitionStyle()) -> CarouselSettings {
        CarouselSettings(slideDwells: Array(repeating: rotation.interval, count: count), loop: loop,
                         rotation: rotation, transition: transition)
    }

    public var slideCount: Int { slideDwells.count }
}
