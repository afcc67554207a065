/// Composes on the CPU what the display shows for a plan: the primary
/// plane's picture (a layer's buffer, or what `Compositor` drew into the
/// composition buffer), then each overlay's layer over it, blended as a
/// display blends planes (a plane's 16-bit `alpha`, premultiplied `argb8888`).
///
/// A screenshot, proof of play and `vitrine render` need the picture on the
/// screen; with overlays carrying layers, the primary plane's buffer alone
/// lacks them. Scaled layers are resampled with Vitrine's own filter
/// (`FrameRegionSampler`): a display's scaler filters differently, which is
/// the tolerance a capture on a board is compared with.
public struct PlaneStateCompositor: Sendable {
    public var background: RGBAColor
    public var indicator: IndicatorStyle

    public init(background: RGBAColor = .black, indicator: IndicatorStyle = IndicatorStyle()) {
        self.background = background
        self.indicator = indicator
    }

    /// Draws `stack` as `plan` puts it on the planes into `canvas` (the
    /// output's size). `picture` gives each slide layer's frame, as for `Compositor`.
    public func compose(_ plan: PlanePlan, of stack: LayerStack, into canvas: PixelCanvas,
                        picture: (Scene.Layer) -> LayerPicture?) {
        precondition(canvas.size == stack.output, "canvas \(canvas.size) for output \(stack.output)")
        switch plan.primary {
        case .layer(let index):
            canvas.fill(with: background)
            draw(stack.layers[index], output: stack.output, into: canvas, picture: picture)
        case .composition(let composed):
            // The primary plane's buffer holds what the compositor drew for those layers.
            Compositor(background: background, indicator: indicator)
                .compose(stack.scene(composing: composed), into: canvas, picture: picture)
        }
        for placement in plan.overlays { draw(stack.layers[placement.layer], output: stack.output, into: canvas, picture: picture) }
    }

    private func draw(_ layer: DisplayLayer, output: PixelSize, into canvas: PixelCanvas,
                      picture: (Scene.Layer) -> LayerPicture?) {
        let destination = layer.destination
        let alpha = UInt32(layer.planeAlpha)
        switch layer.content {
        case .fill:
            for y in destination.y..<(destination.y + destination.height) {
                let row = canvas.row(y) + destination.x
                for x in 0..<destination.width {
                    row[x] = PixelBlend.blend(background.xrgb, over: row[x], alpha16: alpha)
                }
            }
        case .indicator(let state):
            let buffer = PixelImage(size: layer.bufferSize)
            IndicatorLayer(count: state.count, style: indicator, output: output, bounds: destination).draw(state, into: buffer.canvas)
            for y in 0..<destination.height {
                let row = canvas.row(destination.y + y) + destination.x
                for x in 0..<destination.width {
                    row[x] = PixelBlend.premultipliedOver(buffer[x, y], destination: row[x])
                }
            }
        case .notice(let notice):
            notice.draw(into: canvas)
        case .slide(let sceneLayer):
            guard let picture = picture(sceneLayer), picture.frame.size == layer.bufferSize else { return }
            let frame = picture.frame
            // A Ken Burns layer is sampled as the compositor samples it: its whole rectangle across
            // the output, the layer's columns taken from it (so a clipped layer's columns fall
            // where the compositor's do, to the 16.16 step).
            let dx = Int((sceneLayer.offset * Double(output.width) + 0.5).rounded(.down))
            let sampler = picture.region.map { FrameRegionSampler(frame: frame, region: $0, output: output) }
            let firstColumn = destination.x - dx
            let scratch = UnsafeMutablePointer<UInt32>.allocate(capacity: destination.width)
            defer { scratch.deallocate() }
            for y in 0..<destination.height {
                let source: UnsafePointer<UInt32>
                if let sampler {
                    sampler.draw(row: destination.y + y, columns: firstColumn..<(firstColumn + destination.width), into: scratch)
                    PixelRowKernels.finish()
                    source = UnsafePointer(scratch)
                } else {
                    source = UnsafePointer(frame.pixels.baseAddress! + (Int(layer.source.y) + y) * frame.width + Int(layer.source.x))
                }
                let row = canvas.row(destination.y + y) + destination.x
                if alpha == 0xFFFF {
                    row.update(from: source, count: destination.width)
                } else {
                    for x in 0..<destination.width { row[x] = PixelBlend.blend(source[x], over: row[x], alpha16: alpha) }
                }
            }
        }
    }
}
