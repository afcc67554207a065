/// What the compositor draws for one layer of a scene: a slide's frame shown
/// whole (output-sized, as `SlideFramer` makes it), or the rectangle of a
/// larger frame that a Ken Burns motion shows at the layer's playback.
public struct LayerPicture {
    public var frame: PixelImage
    /// The part of `frame` that fills the output, in fractions of its width and
    /// height; nil: `frame` is output-sized and shown as it is.
    public var region: FrameRect?
    /// The frame's memory is written again in place (a video's ring of
    /// decoded frames): a copy kept by identity, as a plane's scan-out copy
    /// is, would go stale, so such a frame is composed instead.
    public var changesInPlace: Bool

    public init(frame: PixelImage, region: FrameRect? = nil, changesInPlace: Bool = false) {
        self.frame = frame
        self.region = region
        self.changesInPlace = changesInPlace
    }
}
