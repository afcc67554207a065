import VitrineCore
import VitrineDRM

/// The page dots' two ARGB scan-out buffers for an overlay plane: the dots
/// are drawn into the one no plane shows, so the one on screen is never
/// written while it is scanned out. Drawn only when the dots change (a page
/// change moves them; a slide at rest does not), and made anew only when
/// their bounds change size (another count, style or output).
struct DotsBuffers {
    private var buffers: [DRMLayerBuffer] = []
    private var painter: IndicatorLayer?
    /// What `buffers[drawn]` holds.
    private var drawn: (index: Int, state: IndicatorState)?
    private var onScreen: Int?
    private var pending: Int?

    /// Makes the buffers for `layer` (the stack's dots) if they are not made
    /// yet for its size: at least the card's smallest framebuffer, showing
    /// their top-left corner (the layer's source). Returns one of them, for a
    /// plan's test commit: both are the same size.
    mutating func prepare(for layer: DisplayLayer, card: DRMCard) throws(DRMError) -> DRMLayerBuffer {
        let minimum = try card.minimumFramebufferSize()
        let size = PixelSize(width: max(layer.bufferSize.width, minimum.width), height: max(layer.bufferSize.height, minimum.height))
        if buffers.first?.size != size {
            // The old pair, if shown, is held by the presenter until a flip takes it off the screen.
            buffers = [try DRMLayerBuffer(card: card, size: size, format: .argb8888),
                       try DRMLayerBuffer(card: card, size: size, format: .argb8888)]
            drawn = nil
            onScreen = nil
            pending = nil
        }
        return buffers[drawn?.index ?? 0]
    }

    /// The buffer that shows `state` as `layer` places it, drawn now into the
    /// one not on screen unless it holds those dots already. Call `prepare` first.
    mutating func draw(_ state: IndicatorState, layer: DisplayLayer, style: IndicatorStyle, output: PixelSize) -> DRMLayerBuffer {
        let bounds = layer.destination
        if painter?.bounds != bounds || painter?.count != state.count || painter?.style != style {
            painter = IndicatorLayer(count: state.count, style: style, output: output, bounds: bounds)
            drawn = nil
        }
        if let drawn, drawn.state == state { return buffers[drawn.index] }
        let target = onScreen == 0 ? 1 : 0
        painter!.draw(state, into: buffers[target].canvas.cropped(to: PixelRect(x: 0, y: 0, width: bounds.width, height: bounds.height)))
        drawn = (target, state)
        return buffers[target]
    }

    /// A frame was queued: with `showing` the dots' buffer it shows, if an overlay shows them.
    mutating func queued(showing buffer: DRMLayerBuffer?) {
        pending = buffer.flatMap { shown in buffers.firstIndex { $0 === shown } }
    }

    /// The queued frame is on screen.
    mutating func flipped() {
        onScreen = pending
        pending = nil
    }
}
