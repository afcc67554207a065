/// What the compositor draws for one layer of a scene: a slide's frame shown
/// whole (output-sized, as `SlideFramer` makes it), or the rectangle of a
/// larger frame that a Ken Burns motion shows at the layer's playback.
public struct LayerPicture {
    public var frame: PixelImage
    /// The part of `frame` that fills the output, in fractions of its width and
    /// height; nil: `frame` is output-sized and shown as it is.
    public var region: FrameRect?

    public init(frame: PixelImage, region: FrameRect? = nil) {
        self.frame = frame
        self.region = region
    }
}
