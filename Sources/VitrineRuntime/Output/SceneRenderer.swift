import VitrineConfig
import VitrineCore

/// Draws the engine's scene into the display's buffers, and remembers what it
/// drew, so that an unchanged picture is not drawn again.
///
/// With `output.rotation`, frames are composed upright into a frame of its own,
/// then turned onto the panel.
final class SceneRenderer {
    var compositor: Compositor
    private let rotation: ExifOrientation
    private var uprightFrame: PixelImage?
    /// The scene and frame-store version in the frame presented last.
    private(set) var lastDrawn: (scene: Scene, version: Int)?

    init(compositor: Compositor, rotation: ExifOrientation) {
        self.compositor = compositor
        self.rotation = rotation
    }

    /// Whether the frame on screen already shows this scene with these pictures.
    func shows(_ scene: Scene, version: Int) -> Bool {
        guard let lastDrawn else { return false }
        return lastDrawn.scene == scene && lastDrawn.version == version
    }

    /// Forgets what is on screen: the next frame is drawn whatever it shows.
    func invalidate() { lastDrawn = nil }

    /// Composes `scene` at `size` (upright) into `canvas` (the panel's buffer).
    func render(_ scene: Scene, size: PixelSize, into canvas: PixelCanvas, pictures: (Scene.Layer) -> LayerPicture?) {
        if rotation == .up {
            compositor.compose(scene, into: canvas, picture: pictures)
        } else {
            if uprightFrame?.size != size { uprightFrame = PixelImage(size: size) }
            let upright = uprightFrame!
            compositor.compose(scene, into: upright.canvas, picture: pictures)
            rotation.draw(upright, into: canvas)
        }
    }

    /// The frame just rendered is on its way to the screen.
    func presented(_ scene: Scene, version: Int) { lastDrawn = (scene, version) }

    /// The scene on screen (or `fallback` before the first frame), composed
    /// again upright into memory of its own: reading back a scanout buffer is
    /// slow (write-combined on most boards), and it may be turned.
    func screenshot(size: PixelSize, fallback: Scene, pictures: (Scene.Layer) -> LayerPicture?) -> PixelImage {
        let image = PixelImage(size: size)
        compositor.compose(lastDrawn?.scene ?? fallback, into: image.canvas, picture: pictures)
        return image
    }
}
