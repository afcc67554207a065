/// Everything the compositor needs to draw one frame; a pure value, so two
/// equal scenes are the same picture.
public struct Scene: Hashable, Sendable {
    public struct Layer: Hashable, Sendable {
        public var content: SlideContent
        /// Horizontal offset as a fraction of the output width: 0 is in place,
        /// -1 fully off to the left, 1 fully off to the right.
        public var offset: Double
        /// 0 transparent ... 1 opaque.
        public var opacity: Double
        /// How far the slide's own motion (animated picture, Ken Burns) has run.
        public var playback: LayerPlayback

        public init(content: SlideContent, offset: Double = 0, opacity: Double = 1, playback: LayerPlayback = .start) {
            self.content = content
            self.offset = offset
            self.opacity = opacity
            self.playback = playback
        }
    }

    /// Bottom to top.
    public var layers: [Layer]
    /// The page indicator, or nil when there is nothing to indicate (fewer than two pages).
    public var indicator: IndicatorState?
    /// A notice over everything (`AddressNotice`), drawn for this output; nil: none.
    public var notice: NoticeImage?

    public init(layers: [Layer], indicator: IndicatorState?, notice: NoticeImage? = nil) {
        self.layers = layers
        self.indicator = indicator
        self.notice = notice
    }
}

/// The indicator's state: how many dots, and where between them "current" is.
public struct IndicatorState: Hashable, Sendable {
    public var count: Int
    /// The current page as a continuous position in `0..<count`; during a
    /// transition it lies between two dots, and it may wrap from the last dot
    /// towards the first.
    public var position: Double

    public init(count: Int, position: Double) {
        self.count = count
        self.position = position
    }

    /// How strongly dot `index` shows the "current" colour, 0...1.
    public func emphasis(ofDot index: Int) -> Double {
        guard count > 0 else { return 0 }
        let base = Int(position.rounded(.down))
        let fraction = position - Double(base)
        let lower = ((base % count) + count) % count
        let upper = (lower + 1) % count
        var weight = 0.0
        if index == lower { weight += 1 - fraction }
        if index == upper { weight += fraction }
        return min(weight, 1)
    }
}
