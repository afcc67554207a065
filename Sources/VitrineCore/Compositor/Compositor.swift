internal import CPixelRows

/// Draws a `Scene` into an output frame.
///
/// Every slide arrives as a frame of exactly the output's size (see
/// `SlideFramer`), so a resting slide is one copy of a frame, and a sliding
/// transition is two copies of row segments: the cost of a frame stays close
/// to one `memcpy` of it. A crossfade reads two frames and writes one. A Ken
/// Burns slide's frame is larger than the output, and the rectangle of it on
/// screen is resampled row by row in place of the copy (`FrameRegionSampler`).
public struct Compositor: Sendable {
    public var background: RGBAColor
    public var indicator: IndicatorStyle

    public init(background: RGBAColor = .black, indicator: IndicatorStyle = IndicatorStyle()) {
        self.background = background
        self.indicator = indicator
    }

    /// Draws `scene` into `canvas`. `frame` gives the prepared output-sized frame
    /// for a layer (its content at its playback); nil (not decoded, or of another
    /// size) draws the background in its place.
    public func compose(_ scene: Scene, into canvas: PixelCanvas, frame: (Scene.Layer) -> PixelImage?) {
        compose(scene, into: canvas, picture: { layer in frame(layer).map { LayerPicture(frame: $0) } })
    }

    /// Draws `scene` into `canvas`. `picture` gives what each layer shows: a
    /// whole output-sized frame, or a Ken Burns rectangle of a larger one, which
    /// is resampled into the output as it is drawn (`FrameRegionSampler`); nil,
    /// or a whole frame of another size, draws the background in its place.
    /// A layer's offset and opacity apply alike to both, so pan and zoom go on
    /// through slide and crossfade transitions.
    public func compose(_ scene: Scene, into canvas: PixelCanvas, picture: (Scene.Layer) -> LayerPicture?) {
        let width = canvas.size.width, height = canvas.size.height
        let layers: [(source: LayerSource?, dx: Int, alpha: UInt32)] = scene.layers.map { layer in
            let source = picture(layer).flatMap { LayerSource($0, output: canvas.size) }
            // floor(x + 0.5) rather than round-half-away: shifting both layers of a
            // slide transition by the same amount keeps them exactly adjacent.
            let dx = Int((layer.offset * Double(width) + 0.5).rounded(.down))
            let alpha = UInt32((min(max(layer.opacity, 0), 1) * 256).rounded())
            return (source, dx, alpha)
        }
        .filter { $0.alpha > 0 && $0.dx < width && $0.dx > -width }
        // A resampled layer that is read back (blended) rather than written
        // straight into the canvas is drawn a row at a time into a row of its own.
        var scratch: [UnsafeMutablePointer<UInt32>] = []
        defer { for row in scratch { row.deallocate() } }
        func scratchRow(for source: LayerSource) -> UnsafeMutablePointer<UInt32>? {
            guard source.isResampled else { return nil }
            scratch.append(.allocate(capacity: width))
            return scratch.last
        }

        if layers.count == 2, layers[0].dx == 0, layers[1].dx == 0, layers[0].alpha == 256,
           let bottom = layers[0].source, let top = layers[1].source {
            // Crossfade: one pass reading both frames, written with streaming stores.
            let bottomRow = scratchRow(for: bottom), topRow = scratchRow(for: top)
            for y in 0..<height {
                vitrine_rows_blend(canvas.row(y), top.row(y, columns: 0..<width, scratch: topRow),
                                   bottom.row(y, columns: 0..<width, scratch: bottomRow), width, layers[1].alpha)
            }
            vitrine_rows_finish()
        } else {
            // Fill the background only if opaque, present layers leave columns uncovered.
            var covered = 0
            for layer in layers where layer.alpha == 256 && layer.source != nil {
                covered += min(width, layer.dx + width) - max(0, layer.dx)
            }
            let opaqueCopies = layers.allSatisfy { $0.alpha == 256 && $0.source != nil }
            if opaqueCopies {
                if covered < width { canvas.fill(with: background) }
                // A slide transition, or a slide at rest: row by row, each row's
                // segments in turn, so the output is written strictly in order (the
                // fast way into the write-combined memory of a scanout buffer) and
                // each source row is read while the previous one's lines are still
                // being fetched. A resampled layer's segment is resampled straight
                // into the canvas.
                let segments = layers.compactMap { layer -> (source: LayerSource, first: Int, columns: Range<Int>)? in
                    let first = max(0, layer.dx), count = min(width, layer.dx + width) - first
                    guard count > 0, let source = layer.source else { return nil }
                    return (source, first, (first - layer.dx)..<(first - layer.dx + count))
                }
                // The segments are written with streaming stores (CPixelRows): with
                // ordinary stores each output line is read before it is written, and
                // a transition frame costs twice the traffic of a whole-frame memcpy.
                // `layers` keeps every frame alive to the last row: a frame made for
                // this compose alone (`vitrine render`'s of an animation) has no other owner.
                withExtendedLifetime(layers) {
                    for y in 0..<height {
                        let row = canvas.row(y)
                        for segment in segments {
                            segment.source.stream(y, columns: segment.columns, into: row + segment.first)
                        }
                    }
                }
                // Before the indicator and the notice read back the lines they draw over.
                vitrine_rows_finish()
                drawOverlays(scene, into: canvas)
                return
            }
            // Any other arrangement (a translucent layer beside or over a moving
            // one): each row is composed layer by layer in a row of ordinary memory,
            // then streamed into the canvas once, so that blending never reads the
            // canvas back (scan-out memory, write-combined on most boards, reads at
            // a fraction of the speed it is written).
            let placed = layers.compactMap { layer -> (source: LayerSource?, first: Int, columns: Range<Int>, alpha: UInt32,
                                                         scratch: UnsafeMutablePointer<UInt32>?)? in
                let first = max(0, layer.dx), last = min(width, layer.dx + width)
                guard last > first else { return nil }
                return (layer.source, first, (first - layer.dx)..<(last - layer.dx), layer.alpha, layer.source.flatMap(scratchRow))
            }
            let composed = UnsafeMutablePointer<UInt32>.allocate(capacity: max(width, 1))
            defer { composed.deallocate() }
            let backgroundValue = background.xrgb
            withExtendedLifetime(layers) {
                for y in 0..<height {
                    if covered < width { composed.update(repeating: backgroundValue, count: width) }
                    for layer in placed {
                        let target = composed + layer.first, count = layer.columns.count
                        guard let source = layer.source else {
                            if layer.alpha == 256 {
                                target.update(repeating: backgroundValue, count: count)
                            } else {
                                // A translucent layer with no frame shows the background at its opacity.
                                for x in 0..<count { target[x] = PixelBlend.blend(backgroundValue, over: target[x], alpha256: layer.alpha) }
                            }
                            continue
                        }
                        if layer.alpha == 256 {
                            source.store(y, columns: layer.columns, into: target)
                        } else {
                            PixelBlend.blendRow(top: source.row(y, columns: layer.columns, scratch: layer.scratch), bottom: target,
                                                output: target, count: count, alpha256: layer.alpha)
                        }
                    }
                    vitrine_rows_copy(canvas.row(y), composed, width)
                }
            }
            vitrine_rows_finish()
        }
        drawOverlays(scene, into: canvas)
    }

    /// The page dots, then the notice over them.
    private func drawOverlays(_ scene: Scene, into canvas: PixelCanvas) {
        if let state = scene.indicator {
            PageIndicator.draw(state, style: indicator, into: canvas)
        }
        scene.notice?.draw(into: canvas)
    }
}

/// Where one layer's output-space rows come from: an output-sized frame's own
/// rows, or rows resampled from a Ken Burns rectangle of a larger frame.
private enum LayerSource {
    case frame(PixelImage)
    case resampled(FrameRegionSampler)

    /// nil for a whole frame that is not output-sized (a frame decoded for another output).
    init?(_ picture: LayerPicture, output: PixelSize) {
        if let region = picture.region {
            guard !picture.frame.size.isEmpty else { return nil }
            self = .resampled(FrameRegionSampler(frame: picture.frame, region: region, output: output))
        } else {
            guard picture.frame.size == output else { return nil }
            self = .frame(picture.frame)
        }
    }

    var isResampled: Bool {
        if case .resampled = self { return true }
        return false
    }

    /// Columns `columns` of row `y` (in the layer's own coordinates) written to
    /// `target` with streaming stores (`vitrine_rows_finish` before reading them).
    func stream(_ y: Int, columns: Range<Int>, into target: UnsafeMutablePointer<UInt32>) {
        switch self {
        case .frame(let image):
            vitrine_rows_copy(target, image.pixels.baseAddress! + y * image.width + columns.lowerBound, columns.count)
        case .resampled(let sampler):
            sampler.draw(row: y, columns: columns, into: target)
        }
    }

    /// The same, ready to be read back at once (a layer blends over it).
    func store(_ y: Int, columns: Range<Int>, into target: UnsafeMutablePointer<UInt32>) {
        switch self {
        case .frame(let image):
            target.update(from: image.pixels.baseAddress! + y * image.width + columns.lowerBound, count: columns.count)
        case .resampled(let sampler):
            sampler.draw(row: y, columns: columns, into: target)
            vitrine_rows_finish()
        }
    }

    /// Columns `columns` of row `y` to read: the frame's own pixels, or the row
    /// resampled into `scratch` (`columns.count` pixels; given for a resampled layer).
    func row(_ y: Int, columns: Range<Int>, scratch: UnsafeMutablePointer<UInt32>?) -> UnsafePointer<UInt32> {
        switch self {
        case .frame(let image):
            return UnsafePointer(image.pixels.baseAddress! + y * image.width + columns.lowerBound)
        case .resampled(let sampler):
            sampler.draw(row: y, columns: columns, into: scratch!)
            // Its streaming stores are ordered before the row is read back.
            vitrine_rows_finish()
            return UnsafePointer(scratch!)
        }
    }
}
