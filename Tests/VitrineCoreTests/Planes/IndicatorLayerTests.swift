import Testing
@testable import VitrineCore

/// The dots in a buffer of their own, blended over a frame as a plane is,
/// against the compositor's dots drawn onto the frame.
@Suite("Indicator layer")
struct IndicatorLayerTests {
    @Test(arguments: [
        (PixelSize(width: 1920, height: 1080), IndicatorStyle()),
        (PixelSize(width: 3840, height: 2160), IndicatorStyle()),
        (PixelSize(width: 64, height: 36), IndicatorStyle(diameter: 6, spacing: 0, margin: 4)),
    ])
    func theDotsBufferOverAFrameIsTheCompositorsDots(output: PixelSize, style: IndicatorStyle) throws {
        let frame = PixelImage(size: output, fill: RGBAColor(red: 30, green: 90, blue: 160))
        for position in [0.0, 0.3, 1.5, 4.7] {
            let state = IndicatorState(count: 5, position: position)
            let bounds = try #require(LayerStack.indicatorBounds(state, style: style, output: output))
            // A buffer larger than the bounds, as a card's smallest framebuffer makes it: the dots in its corner.
            let buffer = PixelImage(size: PixelSize(width: bounds.width + 3, height: bounds.height + 5), fill: .white)
            IndicatorLayer(count: 5, style: style, output: output, bounds: bounds)
                .draw(state, into: buffer.canvas.cropped(to: PixelRect(x: 0, y: 0, width: bounds.width, height: bounds.height)))
            let composed = PixelImage(size: output)
            composed.canvas.copyPixels(from: frame.canvas)
            for y in 0..<bounds.height {
                for x in 0..<bounds.width {
                    composed.canvas.row(bounds.y + y)[bounds.x + x] =
                        PixelBlend.premultipliedOver(buffer[x, y], destination: composed[bounds.x + x, bounds.y + y])
                }
            }
            let reference = PixelImage(size: output)
            reference.canvas.copyPixels(from: frame.canvas)
            PageIndicator.draw(state, style: style, into: reference.canvas)
            // Only the dots' bounds can differ; the rest of both is the frame.
            func worst(_ a: PixelImage, _ b: PixelImage) -> Int {
                var worst = 0
                for y in bounds.y..<(bounds.y + bounds.height) {
                    for x in bounds.x..<(bounds.x + bounds.width) {
                        for shift in [UInt32(0), 8, 16] {
                            worst = max(worst, abs(Int((a[x, y] >> shift) & 0xFF) - Int((b[x, y] >> shift) & 0xFF)))
                        }
                    }
                }
                return worst
            }
            withExtendedLifetime((composed, reference, frame)) {
                #expect(worst(composed, reference) <= 2, "\(output) at \(position)")
                #expect(worst(reference, frame) > 50, "the dots show at all")
            }
        }
    }
}
