internal import CPixelRows

/// Draws a `Scene` into an output frame.
///
/// Every slide arrives as a frame of exactly the output's size (see
/// `SlideFramer`), so a resting slide is one copy of a frame, and a sliding
/// transition is two copies of row segments: the cost of a frame stays close
/// to one `memcpy` of it. A crossfade reads two frames and writes one.
public struct Compositor: Sendable {
    public var background: RGBAColor
    public var indicator: IndicatorStyle

    public init(background: RGBAColor = .black, indicator: IndicatorStyle = IndicatorStyle()) {
        self.background = background
        self.indicator = indicator
    }

    /// Draws `scene` into `canvas`. `frame` gives the prepared output-sized frame
    /// for a layer (its content at its playback); nil (not decoded, or of another size) draws the
    /// background in its place.
    public func compose(_ scene: Scene, into canvas: PixelCanvas, frame: (Scene.Layer) -> PixelImage?) {
        let width = canvas.size.width, height = canvas.size.height
        let layers: [(frame: PixelImage?, dx: Int, alpha: UInt32)] = scene.layers.map { layer in
            let image = frame(layer).flatMap { $0.size == canvas.size ? $0 : nil }
            // floor(x + 0.5) rather than round-half-away: shifting both layers of a
            // slide transition by the same amount keeps them exactly adjacent.
            let dx = Int((layer.offset * Double(width) + 0.5).rounded(.down))
            let alpha = UInt32((min(max(layer.opacity, 0), 1) * 256).rounded())
            return (image, dx, alpha)
        }
        .filter { $0.alpha > 0 && $0.dx < width && $0.dx > -width }

        if layers.count == 2, layers[0].dx == 0, layers[1].dx == 0, layers[0].alpha == 256,
           let bottom = layers[0].frame, let top = layers[1].frame {
            // Crossfade: one pass reading both frames, written with streaming stores.
            for y in 0..<height {
                vitrine_rows_blend(canvas.row(y), top.pixels.baseAddress! + y * width, bottom.pixels.baseAddress! + y * width,
                                   width, layers[1].alpha)
            }
            vitrine_rows_finish()
        } else {
            // Fill the background only if opaque, present layers leave columns uncovered.
            var covered = 0
            for layer in layers where layer.alpha == 256 && layer.frame != nil {
                covered += min(width, layer.dx + width) - max(0, layer.dx)
            }
            if covered < width { canvas.fill(with: background) }
            let opaqueCopies = layers.allSatisfy { $0.alpha == 256 && $0.frame != nil }
            if opaqueCopies {
                // A slide transition: row by row, each row's segments in turn, so the
                // output is written strictly in order (the fast way into the
                // write-combined memory of a scanout buffer) and each source row is
                // read while the previous one's lines are still being fetched.
                let segments = layers.compactMap { layer -> (source: UnsafeMutablePointer<UInt32>, first: Int, count: Int)? in
                    let first = max(0, layer.dx), count = min(width, layer.dx + width) - first
                    guard count > 0, let image = layer.frame else { return nil }
                    return (image.pixels.baseAddress! + (first - layer.dx), first, count)
                }
                // The segments are written with streaming stores (CPixelRows): with
                // ordinary stores each output line is read before it is written, and
                // a transition frame costs twice the traffic of a whole-frame memcpy.
                // The segments are raw pointers into the frames: `layers` keeps the
                // frames alive until the last row is copied (a frame made for this
                // compose alone, as `vitrine render` makes an animation's, has no other owner).
                withExtendedLifetime(layers) {
                    for y in 0..<height {
                        let row = canvas.row(y)
                        for segment in segments {
                            vitrine_rows_copy(row + segment.first, segment.source + y * width, segment.count)
                        }
                    }
                }
                // Before the indicator reads back the lines it draws over.
                vitrine_rows_finish()
                drawIndicator(scene, into: canvas)
                return
            }
            for layer in layers {
                let first = max(0, layer.dx), last = min(width, layer.dx + width)
                let count = last - first
                guard count > 0 else { continue }
                guard let image = layer.frame else {
                    if layer.alpha == 256 {
                        canvas.fill(PixelRect(x: first, y: 0, width: count, height: height), with: background)
                    } else {
                        // A translucent layer with no frame shows the background at its opacity.
                        let value = background.xrgb
                        for y in 0..<height {
                            let target = canvas.row(y) + first
                            for x in 0..<count { target[x] = PixelBlend.blend(value, over: target[x], alpha256: layer.alpha) }
                        }
                    }
                    continue
                }
                let sourceX = first - layer.dx
                for y in 0..<height {
                    let source = image.pixels.baseAddress! + y * width + sourceX
                    let target = canvas.row(y) + first
                    if layer.alpha == 256 {
                        target.update(from: source, count: count)
                    } else {
                        PixelBlend.blendRow(top: source, bottom: target, output: target, count: count, alpha256: layer.alpha)
                    }
                }
            }
        }
        drawIndicator(scene, into: canvas)
    }

    private func drawIndicator(_ scene: Scene, into canvas: PixelCanvas) {
        if let state = scene.indicator {
            PageIndicator.draw(state, style: indicator, into: canvas)
        }
    }
}
