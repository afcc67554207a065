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

/// Which way a swipe pages.
public enum SwipeDirection: String, Hashable, Sendable, Codable, CaseIterable {
    /// The finger moved left: the following slide comes in from the right.
    case next
    /// The finger moved right: the preceding slide comes in from the left.
    case previous
}

/// What the engine reports as it runs.
public enum CarouselEvent: Hashable, Sendable {
    /// A page change finished: slide `to` is now the current slide.
    case pageChanged(from: Int, to: Int, cause: PageChangeCause)
    /// A finger lifted far or fast enough to page away from slide `from` (the
    /// slide of the page the drag started on); the page change (`.swipe`) follows
    /// as `pageChanged` when its animation completes.
    case swiped(from: Int, direction: SwipeDirection)
    /// A finger began to drag the slides; `slide` is the slide it took hold of.
    case dragBegan(slide: Int)
    /// A drag is over; `slide` is the slide the picture now settles on, and
    /// `paged` whether that is a swipe to a neighbour rather than a snap back.
    /// Also reported when a command or a removed slide takes the picture from the finger.
    case dragEnded(slide: Int, paged: Bool)
    /// A tap at (`x`, `y`) output pixels while `slide` was current. The engine does
    /// not navigate on a tap; tap actions belong to the runtime.
    case tapped(slide: Int, x: Double, y: Double)
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
