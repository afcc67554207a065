import Testing
@testable import VitrineCore

/// A Ken Burns layer drawn by the compositor: the rectangle of a larger stored
/// frame resampled into the output (`FrameRegionSampler` over CPixelRows'
/// bilinear rows), alone and inside slide and crossfade transitions.
@Suite("Ken Burns compositing")
struct KenBurnsCompositorTests {
    typealias Layer = Scene.Layer

    /// Varied pixels (the X byte set), from a seeded generator.
    static func noise(_ width: Int, _ height: Int, seed: UInt64) -> PixelImage {
        var random = SplitMix64(seed: seed)
        return makeImage(width: width, height: height) { _, _ in UInt32(truncatingIfNeeded: random.next()) | 0xFF00_0000 }
    }

    /// Bilinear sampling worked out in floating point, channel by channel: the
    /// frame's pixel centres at whole coordinates, edges clamped.
    static func reference(_ frame: PixelImage, region: FrameRect, output: PixelSize) -> PixelImage {
        let scaleX = region.width * Double(frame.width) / Double(output.width)
        let scaleY = region.height * Double(frame.height) / Double(output.height)
        return makeImage(width: output.width, height: output.height) { u, v in
            let x = min(max(region.x * Double(frame.width) + (Double(u) + 0.5) * scaleX - 0.5, 0), Double(frame.width - 1))
            let y = min(max(region.y * Double(frame.height) + (Double(v) + 0.5) * scaleY - 0.5, 0), Double(frame.height - 1))
            let x0 = Int(x), y0 = Int(y), x1 = min(x0 + 1, frame.width - 1), y1 = min(y0 + 1, frame.height - 1)
            let fx = x - Double(x0), fy = y - Double(y0)
            var result: UInt32 = 0xFF00_0000
            for shift in [0, 8, 16] {
                func channel(_ px: Int, _ py: Int) -> Double { Double((frame[px, py] >> UInt32(shift)) & 0xFF) }
                let upper = channel(x0, y0) * (1 - fx) + channel(x1, y0) * fx
                let lower = channel(x0, y1) * (1 - fx) + channel(x1, y1) * fx
                result |= UInt32((upper * (1 - fy) + lower * fy).rounded()) << UInt32(shift)
            }
            return result
        }
    }

    static func sampled(_ frame: PixelImage, region: FrameRect, output: PixelSize) -> PixelImage {
        let image = PixelImage(size: output)
        let sampler = FrameRegionSampler(frame: frame, region: region, output: output)
        for y in 0..<output.height { sampler.draw(row: y, columns: 0..<output.width, into: image.canvas.row(y)) }
        PixelRowKernels.finish()
        return image
    }

    /// The largest difference of any channel of any pixel.
    static func difference(_ a: PixelImage, _ b: PixelImage) -> Int {
        zip(a.pixels, b.pixels).map { p, q in [0, 8, 16].map { abs(Int((p >> $0) & 0xFF) - Int((q >> $0) & 0xFF)) }.max()! }.max() ?? 0
    }

    @Test func theWholeFrameAtTheOutputsSizeIsACopy() {
        let frame = Self.noise(37, 11, seed: 1)
        let copy = Self.sampled(frame, region: .whole, output: frame.size)
        #expect(Array(copy.pixels) == Array(frame.pixels))
    }

    /// Zooming out of a larger frame (1.25x, 2x), in past its resolution, and
    /// rectangles against every edge: within one level of floating point
    /// (the fixed-point columns and 8-bit weights round), on 80 random cases.
    @Test(arguments: [
        (PixelSize(width: 50, height: 30), PixelSize(width: 40, height: 24)),
        (PixelSize(width: 64, height: 36), PixelSize(width: 32, height: 18)),
        (PixelSize(width: 33, height: 21), PixelSize(width: 67, height: 43)),
        (PixelSize(width: 120, height: 68), PixelSize(width: 96, height: 54)),
    ])
    func rectanglesSampleAsBilinearInFloatingPoint(frameSize: PixelSize, output: PixelSize) {
        let frame = Self.noise(frameSize.width, frameSize.height, seed: UInt64(frameSize.pixelCount))
        var random = SplitMix64(seed: 11)
        var regions: [FrameRect] = [.whole, FrameRect(x: 0, y: 0, width: 0.5, height: 0.5), FrameRect(x: 0.5, y: 0.5, width: 0.5, height: 0.5)]
        for _ in 0..<17 {
            let side = 0.5 + 0.5 * random.unit()
            regions.append(FrameRect(x: (1 - side) * random.unit(), y: (1 - side) * random.unit(), width: side, height: side))
        }
        for region in regions {
            let got = Self.sampled(frame, region: region, output: output)
            let want = Self.reference(frame, region: region, output: output)
            #expect(Self.difference(got, want) <= 1, "\(frameSize) → \(output) at \(region)")
        }
    }

    @Test func aFlatColourStaysExactlyThatColourAtAnyRectangle() {
        let frame = PixelImage(size: PixelSize(width: 75, height: 42), fill: RGBAColor(red: 13, green: 200, blue: 97))
        for region in [FrameRect.whole, FrameRect(x: 0.31, y: 0.07, width: 0.6, height: 0.6), FrameRect(x: 0.5, y: 0.5, width: 0.5, height: 0.5)] {
            let output = Self.sampled(frame, region: region, output: PixelSize(width: 61, height: 34))
            #expect(Set(output.pixels) == [frame.pixels[0] | 0xFF00_0000])
        }
    }

    @Test func aRestingKenBurnsSlideIsTheRectangleResampled() {
        let frame = Self.noise(100, 60, seed: 3), output = PixelSize(width: 80, height: 48)
        let region = FrameRect(x: 0.1, y: 0.05, width: 0.85, height: 0.85)
        let canvas = PixelImage(size: output)
        Compositor().compose(Scene(layers: [Layer(content: .slide(0))], indicator: nil), into: canvas.canvas) { _ in
            LayerPicture(frame: frame, region: region)
        }
        let resampled = Self.sampled(frame, region: region, output: output)
        #expect(Array(canvas.pixels) == Array(resampled.pixels))
    }

    /// The outgoing Ken Burns slide slides out beside an ordinary incoming one:
    /// each column is the resampled layer's or the frame's, exactly.
    @Test func aKenBurnsSlideTakesPartInASlideTransition() {
        let output = PixelSize(width: 67, height: 9)
        let stored = Self.noise(84, 11, seed: 4), incoming = Self.noise(67, 9, seed: 5)
        let region = FrameRect(x: 0.2, y: 0.1, width: 0.8, height: 0.8)
        let resampled = Self.sampled(stored, region: region, output: output)
        for shift in [1, 13, 33, 66] {
            let offset = -Double(shift) / Double(output.width)
            let canvas = PixelImage(size: output)
            Compositor().compose(Scene(layers: [Layer(content: .slide(0), offset: offset), Layer(content: .slide(1), offset: 1 + offset)],
                                       indicator: nil), into: canvas.canvas) { layer in
                layer.content == .slide(0) ? LayerPicture(frame: stored, region: region) : LayerPicture(frame: incoming)
            }
            for y in 0..<output.height {
                for x in 0..<output.width {
                    let want = x + shift < output.width ? resampled[x + shift, y] : incoming[x + shift - output.width, y]
                    #expect(canvas[x, y] == want, "(\(x), \(y)) shifted by \(shift)")
                }
            }
        }
    }

    @Test func kenBurnsSlidesCrossfade() {
        let output = PixelSize(width: 45, height: 7)
        let first = Self.noise(60, 9, seed: 6), second = Self.noise(52, 8, seed: 7)
        let a = FrameRect(x: 0, y: 0, width: 0.9, height: 0.9), b = FrameRect(x: 0.3, y: 0.2, width: 0.7, height: 0.7)
        let lower = Self.sampled(first, region: a, output: output), upper = Self.sampled(second, region: b, output: output)
        for opacity in [0.25, 0.5, 0.9] {
            let canvas = PixelImage(size: output)
            Compositor().compose(Scene(layers: [Layer(content: .slide(0)), Layer(content: .slide(1), opacity: opacity)], indicator: nil),
                                 into: canvas.canvas) { layer in
                layer.content == .slide(0) ? LayerPicture(frame: first, region: a) : LayerPicture(frame: second, region: b)
            }
            let alpha = UInt32((opacity * 256).rounded())
            #expect(Array(canvas.pixels) == zip(upper.pixels, lower.pixels).map { PixelBlend.blend($0, over: $1, alpha256: alpha) })
        }
    }

    /// A translucent Ken Burns layer over the background (the compositor's
    /// general path): the resampled row blended onto it.
    @Test func aTranslucentKenBurnsLayerBlendsOverTheBackground() {
        let output = PixelSize(width: 30, height: 5), stored = Self.noise(40, 7, seed: 8)
        let region = FrameRect(x: 0.1, y: 0.1, width: 0.75, height: 0.75), background = RGBAColor(red: 10, green: 20, blue: 30)
        let canvas = PixelImage(size: output)
        Compositor(background: background).compose(Scene(layers: [Layer(content: .slide(0), offset: 0.2, opacity: 0.5)], indicator: nil),
                                                   into: canvas.canvas) { _ in LayerPicture(frame: stored, region: region) }
        let resampled = Self.sampled(stored, region: region, output: output)
        for y in 0..<output.height {
            for x in 0..<output.width {
                let want = x < 6 ? background.xrgb : PixelBlend.blend(resampled[x - 6, y], over: background.xrgb, alpha256: 128)
                #expect(canvas[x, y] == want, "(\(x), \(y))")
            }
        }
    }

    @Test func aWholeFrameOfAnotherSizeStillCountsAsMissing() {
        let canvas = PixelImage(size: PixelSize(width: 8, height: 4))
        Compositor(background: .black).compose(Scene(layers: [Layer(content: .slide(0))], indicator: nil), into: canvas.canvas) { _ in
            LayerPicture(frame: PixelImage(size: PixelSize(width: 16, height: 8), fill: .white))
        }
        #expect(Set(canvas.pixels) == [RGBAColor.black.xrgb])
    }
}
