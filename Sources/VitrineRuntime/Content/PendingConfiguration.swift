import VitrineConfig
import VitrineCore

/// A configuration waiting for its slide boundary, its first pictures decoding
/// into a store of its own, so that the switch never shows a black frame.
struct PendingConfiguration {
    /// Its downloads follow the ones the display thread gets while it waits.
    var configuration: KioskConfiguration
    /// The version and the schedule's or override's choice it shows.
    let identity: ShownIdentity
    var store: SlideFrameStore
    /// What the switch does with the slide on screen (the diff of the playlists).
    let continuity: SlideContinuity
    /// The same version and playlist sent again (a push of the same configuration,
    /// which the version, a digest of its content, names alike): only its pictures
    /// are decoded anew; the carousel goes on. Downloads take `updateDownloads` instead.
    let sameShow: Bool
    /// An override starting or ending: shown as soon as its first picture is
    /// ready, without waiting for the slide boundary.
    let immediate: Bool

    /// Whether the pictures the switch shows first are decoded, or have failed
    /// (the placeholder is final too).
    func isReady(currentSlide: Int?) -> Bool {
        if configuration.slides.isEmpty {
            guard configuration.placeholder != nil else { return true }
            if store.placeholderFrame != nil { return true }
            if case .failed = store.placeholder { return true }
            return false
        }
        return store.isSettled(continuity.firstSlide(current: currentSlide))
    }

    /// Whether the carousel is at a slide boundary: resting with its rotation
    /// deadline come, resting with no rotation at all, or waiting for a picture.
    /// Never mid-transition or under a finger.
    static func isAtSlideBoundary(_ engine: CarouselEngine, at now: MonotonicInstant) -> Bool {
        switch engine.phase {
        case .animating, .dragging:
            return false
        case .awaitingNext:
            return true
        case .resting:
            if case .at(let deadline) = engine.nextWakeup(), deadline > now { return false }
            return true
        }
    }
}

/// What is on screen: the configuration's version, and what of it shows.
struct ShownIdentity: Hashable {
    var version: String?
    var selection: Programme.Selection
}
