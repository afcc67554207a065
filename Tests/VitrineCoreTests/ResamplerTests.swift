import Testing
@testable import VitrineCore

@Suite("AreaResampler")
struct ResamplerTests {
    static func row(_ values: [Int]) -> PixelImage {
        makeImage(rows: [values.map { xrgb($0, $0, $0) }])
    }
    static func reds(_ image: PixelImage) -> [[Int]] { grid(image).map { $0.map(red) } }

    @Test(arguments: [(40, 30, 13, 7), (100, 80, 37, 23), (5, 3, 17, 11), (7, 7, 7, 3), (3, 9, 8, 2), (1, 1, 64, 48), (64, 48, 1, 1)])
    func uniformColourStaysExactly(w: Int, h: Int, tw: Int, th: Int) {
        let colour = RGBAColor(red: 200, green: 17, blue: 99)
        let source = PixelImage(size: PixelSize(width: w, height: h), fill: colour)
        let result = AreaResampler.resample(source, to: PixelSize(width: tw, height: th))
        #expect(result.size == PixelSize(width: tw, height: th))
        #expect((0..<result.size.pixelCount).allSatisfy { result.pixels[$0] == colour.xrgb })
    }

    @Test func extremesStayExact() {
        for value in [0, 255] {
            let source = PixelImage(size: PixelSize(width: 97, height: 61), fill: RGBAColor(red: UInt8(value), green: UInt8(value), blue: UInt8(value)))
            for target in [PixelSize(width: 60, height: 40), PixelSize(width: 150, height: 90)] {
                let result = AreaResampler.resample(source, to: target)
                #expect((0..<target.pixelCount).allSatisfy { result.pixels[$0] == xrgb(value, value, value) })
            }
        }
    }

    @Test func halvingAveragesPairsExactly() {
        let source = makeImage(rows: [[xrgb(10, 20, 30), xrgb(50, 60, 70), xrgb(0, 255, 100), xrgb(200, 255, 0)]])
        let result = AreaResampler.resample(source, to: PixelSize(width: 2, height: 1))
        #expect(grid(result) == [[xrgb(30, 40, 50), xrgb(100, 255, 50)]])

        let column = makeImage(rows: [[xrgb(10, 20, 30)], [xrgb(50, 60, 70)]])
        #expect(grid(AreaResampler.resample(column, to: PixelSize(width: 1, height: 1))) == [[xrgb(30, 40, 50)]])

        // A half-level average rounds up.
        #expect(grid(AreaResampler.resample(Self.row([0, 255]), to: PixelSize(width: 1, height: 1))) == [[xrgb(128, 128, 128)]])
    }

    @Test func halvingInBothAxesAveragesBlocks() {
        // 4x4 of 2x2 blocks; each block's four values sum to a multiple of four.
        let values = [
            [0, 4, 100, 104],
            [8, 12, 108, 112],
            [200, 204, 40, 80],
            [208, 212, 120, 160],
        ]
        let source = makeImage(rows: values.map { $0.map { xrgb($0, 255 - $0, $0 / 2) } })
        let result = AreaResampler.resample(source, to: PixelSize(width: 2, height: 2))
        let means = [[6, 106], [206, 100]]
        #expect(grid(result) == means.map { $0.map { m in xrgb(m, 255 - m, m / 2) } })
    }

    @Test func nonIntegerRatioWeighsFractionalCoverage() {
        // 3 -> 2: each output pixel covers 1.5 source pixels.
        #expect(Self.reds(AreaResampler.resample(Self.row([0, 90, 180]), to: PixelSize(width: 2, height: 1))) == [[30, 150]])
        // 5 -> 2: 2.5 source pixels each.
        #expect(Self.reds(AreaResampler.resample(Self.row([10, 20, 30, 40, 50]), to: PixelSize(width: 2, height: 1))) == [[18, 42]])
    }

    @Test(arguments: [(97, 61, 60, 40), (1920, 1080, 1366, 768), (33, 17, 32, 16), (255, 3, 100, 2)])
    func nonIntegerDownscaleKeepsMeanBrightness(w: Int, h: Int, tw: Int, th: Int) {
        var rng = SplitMix64(seed: UInt64(w * 1000 + h))
        let source = makeImage(width: w, height: h) { _, _ in
            let v = rng.next()
            return 0xFF00_0000 | UInt32(truncatingIfNeeded: v & 0x00FF_FFFF)
        }
        let result = AreaResampler.resample(source, to: PixelSize(width: tw, height: th))
        #expect(result.size == PixelSize(width: tw, height: th))
        func mean(_ image: PixelImage, _ channel: (UInt32) -> Int) -> Double {
            var total = 0
            for i in 0..<image.size.pixelCount { total += channel(image.pixels[i]) }
            return Double(total) / Double(image.size.pixelCount)
        }
        for channel in [red, green, blue] {
            let before = mean(source, channel), after = mean(result, channel)
            #expect(abs(before - after) <= 1, "mean \(before) became \(after)")
        }
    }

    @Test func downscaleOfAGradientStaysMonotonic() {
        let source = Self.row(Array(0..<256))
        let result = AreaResampler.resample(source, to: PixelSize(width: 100, height: 1))
        let values = Self.reds(result)[0]
        #expect(zip(values, values.dropFirst()).allSatisfy { $0 < $1 })
        #expect(values.first! <= 2 && values.last! >= 253)
    }

    @Test func bilinearUpscaleKeepsEdges() {
        // The outermost pixels keep the source values; the step is spread over
        // only the pixels between the two source centres.
        #expect(Self.reds(AreaResampler.resample(Self.row([0, 255]), to: PixelSize(width: 4, height: 1))) == [[0, 64, 191, 255]])
        #expect(Self.reds(AreaResampler.resample(Self.row([0, 0, 255, 255]), to: PixelSize(width: 8, height: 1)))
            == [[0, 0, 0, 64, 191, 255, 255, 255]])
        // Vertically too.
        let column = makeImage(rows: [[xrgb(0, 0, 0)], [xrgb(255, 255, 255)]])
        #expect(Self.reds(AreaResampler.resample(column, to: PixelSize(width: 1, height: 4))) == [[0], [64], [191], [255]])
    }

    @Test func sameSizeIsACopy() {
        let source = makeImage(width: 5, height: 4) { x, y in xrgb(x * 40, y * 60, 7) }
        let result = AreaResampler.resample(source, to: source.size)
        #expect(grid(result) == grid(source))
        #expect(result.pixels.baseAddress != source.pixels.baseAddress)
    }

    @Test func sourceIsNotModified() {
        let source = makeImage(width: 9, height: 7) { x, y in xrgb(x * 25, y * 30, x ^ y) }
        let before = grid(source)
        _ = AreaResampler.resample(source, to: PixelSize(width: 4, height: 3))
        _ = AreaResampler.resample(source, to: PixelSize(width: 20, height: 13))
        _ = AreaResampler.resample(source, to: PixelSize(width: 9, height: 3))
        #expect(grid(source) == before)
    }

    @Test(arguments: [(4, 2, 2, 4), (10, 10, 3, 17), (1, 5, 7, 1), (6, 6, 6, 2), (6, 6, 2, 6)])
    func resultHasTheTargetSize(w: Int, h: Int, tw: Int, th: Int) {
        let source = makeImage(width: w, height: h) { x, y in xrgb(x * 20, y * 20, 0) }
        let result = AreaResampler.resample(source, to: PixelSize(width: tw, height: th))
        #expect(result.size == PixelSize(width: tw, height: th))
        #expect(result.width == tw && result.height == th)
        #expect(result.byteCount == tw * th * 4)
    }

    @Test func oneAxisUnchangedFiltersOnlyTheOther() {
        let source = makeImage(rows: [[xrgb(10, 0, 0), xrgb(30, 0, 0)], [xrgb(50, 0, 0), xrgb(70, 0, 0)]])
        #expect(Self.reds(AreaResampler.resample(source, to: PixelSize(width: 1, height: 2))) == [[20], [60]])
        #expect(Self.reds(AreaResampler.resample(source, to: PixelSize(width: 2, height: 1))) == [[30, 50]])
    }

    @Test func regionSelectsPartOfTheSource() {
        let source = Self.row([0, 100, 200, 50])
        // A whole-pixel crop at scale 1 is a copy of those pixels.
        let crop = AreaResampler.resample(source, region: .init(x: 2, y: 0, width: 2, height: 1), to: PixelSize(width: 2, height: 1))
        #expect(Self.reds(crop) == [[200, 50]])
        // A half-pixel offset averages neighbours.
        let shifted = AreaResampler.resample(source, region: .init(x: 0.5, y: 0, width: 2, height: 1), to: PixelSize(width: 2, height: 1))
        #expect(Self.reds(shifted) == [[50, 150]])
        // The whole region is the plain resample.
        let whole = AreaResampler.resample(source, region: .init(x: 0, y: 0, width: 4, height: 1), to: PixelSize(width: 2, height: 1))
        #expect(grid(whole) == grid(AreaResampler.resample(source, to: PixelSize(width: 2, height: 1))))
    }

    @Test func outputIsOpaqueXRGB() {
        // The X byte of the source is ignored; every result pixel has it set.
        let source = makeImage(width: 4, height: 4) { x, _ in UInt32(x * 50) << 16 }
        let result = AreaResampler.resample(source, to: PixelSize(width: 2, height: 2))
        #expect((0..<4).allSatisfy { result.pixels[$0] >> 24 == 0xFF })
    }
}
