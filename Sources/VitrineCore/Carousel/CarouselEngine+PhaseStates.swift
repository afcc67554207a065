// The states a page change and a held picture carry (`CarouselEngine.Phase`).

extension CarouselEngine {
    /// A finger holding the picture.
    public struct DragState: Hashable, Sendable {
        /// Where the picture was when the finger took hold of it (or when the drag
        /// began): a drag moves the position from here by offset / width.
        public var startPosition: Double
        /// The page nearest `startPosition`: a swipe pages to its neighbour, a snap back returns to it.
        public var startPage: Int
        /// The position now.
        public var position: Double
        /// Whether a horizontal drag has begun; false while the finger only holds a
        /// caught animation still.
        public var hasMoved: Bool
        /// How the picture is drawn: as the caught animation was while the finger
        /// holds it still (a crossfade stays a crossfade), `.slide` once it drags.
        public var kind: TransitionKind
        /// The slide last settled on, which a page change is reported from.
        public var fromSlide: Int
        /// The cause of the animation the finger caught, if any: a settle that is
        /// not a swipe keeps it.
        public var caughtCause: PageChangeCause?
        /// With loop off, the positions the finger moves without resistance: the
        /// first to the last page, widened to hold the start. Nil when looping.
        public var limits: ClosedRange<Double>?
        /// With loop off, the pages that exist (the others draw as background): the
        /// playlist's, and any other the picture showed when the finger took hold.
        /// Nil when looping.
        public var visiblePages: ClosedRange<Int>?
        /// A page that shows another slide than its own, kept from a caught go-to.
        public var substitute: (page: Int, slide: Int)?

        public static func == (lhs: Self, rhs: Self) -> Bool {
            lhs.startPosition == rhs.startPosition && lhs.startPage == rhs.startPage && lhs.position == rhs.position
                && lhs.hasMoved == rhs.hasMoved && lhs.kind == rhs.kind && lhs.fromSlide == rhs.fromSlide
                && lhs.caughtCause == rhs.caughtCause
                && lhs.limits == rhs.limits && lhs.visiblePages == rhs.visiblePages
                && lhs.substitute?.page == rhs.substitute?.page && lhs.substitute?.slide == rhs.substitute?.slide
        }

        public func hash(into hasher: inout Hasher) {
            hasher.combine(startPosition)
            hasher.combine(startPage)
            hasher.combine(position)
        }
    }

    /// One animated page change.
    public struct PageAnimation: Hashable, Sendable {
        public var fromPosition: Double
        public var toPage: Int
        public var start: MonotonicInstant
        public var style: TransitionStyle
        public var cause: PageChangeCause
        /// The slide that was current before the change, for the page-changed event.
        public var fromSlide: Int
        /// A go-to across several pages animates as if the target were adjacent:
        /// this page shows that slide for the duration of the animation. It is the
        /// target page, except after a drag that caught a go-to (then it may be the
        /// page beside the target, showing the slide the go-to came from).
        public var substitute: (page: Int, slide: Int)?
        /// The pages that exist; the others draw as background. Set after a drag
        /// on a non-looping playlist, whose rubber band may have pulled the picture
        /// past the end; nil when every page exists.
        public var visiblePages: ClosedRange<Int>? = nil

        public var end: MonotonicInstant { start + style.effectiveDuration }

        public func position(at now: MonotonicInstant) -> Double {
            let total = style.effectiveDuration.nanoseconds
            guard total > 0, now < end else { return Double(toPage) }
            let linear = Double((now - start).nanoseconds) / Double(total)
            return fromPosition + (Double(toPage) - fromPosition) * style.easing(max(0, linear))
        }

        public static func == (lhs: Self, rhs: Self) -> Bool {
            lhs.fromPosition == rhs.fromPosition && lhs.toPage == rhs.toPage && lhs.start == rhs.start
                && lhs.style == rhs.style && lhs.cause == rhs.cause && lhs.fromSlide == rhs.fromSlide
                && lhs.substitute?.page == rhs.substitute?.page && lhs.substitute?.slide == rhs.substitute?.slide
                && lhs.visiblePages == rhs.visiblePages
        }

        public func hash(into hasher: inout Hasher) {
            hasher.combine(fromPosition)
            hasher.combine(toPage)
            hasher.combine(start)
        }
    }
}
