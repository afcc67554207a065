import VitrineCore

/// What a change of configuration means for the slide on screen: the pure
/// part of applying a change, which diffs the old playlist against the new.
public enum SlideContinuity: Hashable, Sendable {
    /// The same pictures in the same order, with the same carousel settings
    /// (dwells, loop, rotation, transition): the carousel goes on as it is, on
    /// the same slide with the same deadline. Dots, colours or the API changed.
    case unchanged
    /// The picture on screen is in the new playlist, at `slide`: the carousel
    /// carries on from there, with the deadline it had.
    case keeps(slide: Int)
    /// The picture on screen is not in the new playlist (or nothing was on
    /// screen): the new playlist starts at its first slide.
    case restarts
    /// The new playlist rotates in step with a group (`sync`): it starts at
    /// `slide`, the one the group shows at the switch, with that slide's
    /// dwell, and is in step from its first frame rather than after an
    /// out-of-step dwell.
    case joinsGroup(slide: Int)

    /// The slide the carousel shows first after the change: the one on screen
    /// (`current`), its new index, the first, or the group's.
    public func firstSlide(current: Int?) -> Int {
        switch self {
        case .unchanged: current ?? 0
        case .keeps(let slide): slide
        case .restarts: 0
        case .joinsGroup(let slide): slide
        }
    }

    /// This change for a playlist that rotates in step, whose group shows
    /// `groupSlide` at the switch (nil: no `sync`, which leaves it as it is).
    /// Anything but `.unchanged` starts at the group's slide: the switch comes
    /// at a slide boundary, where a new picture shows anyway, and a picture
    /// kept out of step would hold the screen apart from its neighbours for a
    /// whole dwell. (When the group is at the kept picture, they agree.)
    public func joiningGroup(at groupSlide: Int?) -> SlideContinuity {
        guard let groupSlide else { return self }
        switch self {
        case .unchanged: return self
        case .keeps, .restarts, .joinsGroup: return .joinsGroup(slide: groupSlide)
        }
    }
}

extension KioskConfiguration {
    /// How `self` follows `previous` while `previous` shows slide `current`.
    ///
    /// A picture is a local file by its absolute path (so the same name
    /// relative to another directory is another picture), an asset by its
    /// digest, and a URL by the URL, whether or not its download has changed.
    /// When the picture appears more than once in the new playlist, the same
    /// index is kept if it is one of them, and otherwise the first.
    public func continuity(from previous: KioskConfiguration, showing current: Int?) -> SlideContinuity {
        let old = previous.slides.map { previous.pictureIdentity(of: $0.path) }
        let new = slides.map { pictureIdentity(of: $0.path) }
        if old == new, carouselSettings == previous.carouselSettings {
            return .unchanged
        }
        guard let current, old.indices.contains(current) else { return .restarts }
        let picture = old[current]
        if new.indices.contains(current), new[current] == picture { return .keeps(slide: current) }
        if let index = new.firstIndex(of: picture) { return .keeps(slide: index) }
        return .restarts
    }
}

extension KioskConfiguration {
    /// What makes two slides show the same picture, for `continuity`.
    func pictureIdentity(of path: String) -> String {
        switch SlideSource(path) {
        case .file(let file): "file:" + absolute(file)
        case .asset, .url: path
        }
    }
}
