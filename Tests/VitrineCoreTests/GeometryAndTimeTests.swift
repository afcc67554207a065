import Testing
@testable import VitrineCore

@Suite("PixelSize, PixelRect, PixelImage and MonotonicInstant")
struct GeometryAndTimeTests {
    @Test func sizeParsing() {
        #expect(PixelSize(parsing: "1920x1080") == PixelSize(width: 1920, height: 1080))
        #expect(PixelSize(parsing: "800X480") == PixelSize(width: 800, height: 480))
        for bad in ["", "x", "1920", "1920x", "x1080", "0x10", "10x0", "-1x5", "1x2x3", "axb", "1920 x 1080"] {
            #expect(PixelSize(parsing: bad) == nil, "\(bad)")
        }
        #expect(PixelSize(width: 3, height: 2).transposed == PixelSize(width: 2, height: 3))
        #expect(PixelSize(width: 3, height: 2).pixelCount == 6)
        #expect(PixelSize(width: 0, height: 2).isEmpty)
        #expect(PixelSize(width: 3, height: 2).description == "3x2")
    }

    @Test func rectIntersection() {
        let output = PixelRect(x: 0, y: 0, width: 10, height: 10)
        #expect(PixelRect(x: -2, y: 3, width: 5, height: 20).intersection(output) == PixelRect(x: 0, y: 3, width: 3, height: 7))
        #expect(PixelRect(x: 10, y: 0, width: 5, height: 5).intersection(output) == nil)  // touching is not overlapping
        #expect(PixelRect(x: -5, y: -5, width: 30, height: 30).intersection(output) == output)
        #expect(PixelRect(x: 2, y: 2, width: 3, height: 4).maxX == 5)
        #expect(PixelRect(x: 2, y: 2, width: 3, height: 4).maxY == 6)
    }

    @Test func imageAndCanvas() {
        let image = PixelImage(size: PixelSize(width: 4, height: 3), fill: RGBAColor(red: 1, green: 2, blue: 3))
        #expect(image[3, 2] == 0xFF01_0203)
        image[1, 2] = 0xFF00_0000
        #expect(image.pixels[2 * 4 + 1] == 0xFF00_0000)
        #expect(image.byteCount == 48)
        image.canvas.fill(PixelRect(x: -1, y: 1, width: 3, height: 5), with: .white)
        #expect(grid(image) == [
            [0xFF01_0203, 0xFF01_0203, 0xFF01_0203, 0xFF01_0203],
            [0xFFFF_FFFF, 0xFFFF_FFFF, 0xFF01_0203, 0xFF01_0203],
            [0xFFFF_FFFF, 0xFFFF_FFFF, 0xFF01_0203, 0xFF01_0203],
        ])
        #expect(image.canvas.stride == 4)
        _ = PixelImage(size: PixelSize(width: 0, height: 0), fill: .black)  // an empty image is allowed
    }

    @Test func instantArithmeticIsExact() {
        let t = MonotonicInstant(nanoseconds: 1_000_000_001)
        #expect(t + .nanoseconds(1) == MonotonicInstant(nanoseconds: 1_000_000_002))
        #expect(t - .seconds(1) == MonotonicInstant(nanoseconds: 1))
        #expect(t - MonotonicInstant(nanoseconds: 1) == .seconds(1))
        #expect(MonotonicInstant.seconds(1.5) == MonotonicInstant(nanoseconds: 1_500_000_000))
        #expect(MonotonicInstant.seconds(0.1) == MonotonicInstant(nanoseconds: 100_000_000))
        #expect(MonotonicInstant.zero < t)
        #expect(t.seconds == 1.000000001)
        #expect(MonotonicInstant.seconds(2.5).description == "t=2.5s")
    }

    @Test func durationNanoseconds() {
        #expect(Duration.seconds(3).nanoseconds == 3_000_000_000)
        #expect(Duration.milliseconds(1500).nanoseconds == 1_500_000_000)
        #expect(Duration.nanoseconds(7).nanoseconds == 7)
        #expect(Duration.milliseconds(-1500).nanoseconds == -1_500_000_000)
        #expect(Duration.nanoseconds(-1).nanoseconds == -1)
        #expect((Duration.seconds(1) - .nanoseconds(1)).nanoseconds == 999_999_999)
        #expect(Duration.milliseconds(250).secondsValue == 0.25)
        // Many small steps add up exactly on the instant axis.
        var t = MonotonicInstant.zero
        for _ in 0..<10_000 { t = t + .nanoseconds(1_000_000_007) }
        #expect(t == MonotonicInstant(nanoseconds: 10_000_000_070_000))
    }

    /// A crafted length (a video's container claiming centuries) must not trap the display thread.
    @Test func arithmeticSaturatesInsteadOfTrapping() {
        let late = MonotonicInstant(nanoseconds: .max - 5)
        #expect(late + .seconds(1) == MonotonicInstant(nanoseconds: .max))
        #expect(MonotonicInstant(nanoseconds: .min + 5) - .seconds(1) == MonotonicInstant(nanoseconds: .min))
        #expect(late - .seconds(-1) == MonotonicInstant(nanoseconds: .max))
        #expect(late - MonotonicInstant(nanoseconds: .min) == .nanoseconds(Int64.max))
        #expect(MonotonicInstant(nanoseconds: .min) - late == .nanoseconds(Int64.min))
        #expect(Duration.seconds(Int64.max).nanoseconds == .max)
        #expect(Duration.seconds(Int64.min).nanoseconds == .min)
        #expect((Duration.seconds(9_223_372_036) + .nanoseconds(999_999_999)).nanoseconds == .max)
        #expect(MonotonicInstant.seconds(1e300) == MonotonicInstant(nanoseconds: .max))
        #expect(MonotonicInstant.seconds(-.infinity) == MonotonicInstant(nanoseconds: .min))
        #expect(MonotonicInstant.seconds(.nan) == .zero)
        // Ordinary values are exact still.
        #expect(MonotonicInstant(nanoseconds: 7) + .nanoseconds(-9) == MonotonicInstant(nanoseconds: -2))
    }
}
