import Testing
@testable import VitrineCore

@Suite("SlideLayout")
struct LayoutTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var picture: PixelSize
        var output: PixelSize
        var fit: FitMode
        var expected: PixelRect
        var testDescription: String { "\(name) \(fit)" }
    }

    static let hd = PixelSize(width: 1920, height: 1080)
    static let portraitHD = PixelSize(width: 1080, height: 1920)

    static func size(_ w: Int, _ h: Int) -> PixelSize { PixelSize(width: w, height: h) }
    static func rect(_ x: Int, _ y: Int, _ w: Int, _ h: Int) -> PixelRect { PixelRect(x: x, y: y, width: w, height: h) }

    static let cases: [Case] = [
        // Landscape 4:3 on 16:9: pillarbox / crop top and bottom.
        Case(name: "landscape", picture: size(4000, 3000), output: hd, fit: .contain, expected: rect(240, 0, 1440, 1080)),
        Case(name: "landscape", picture: size(4000, 3000), output: hd, fit: .cover, expected: rect(0, -180, 1920, 1440)),
        Case(name: "landscape", picture: size(4000, 3000), output: hd, fit: .stretch, expected: rect(0, 0, 1920, 1080)),
        // Portrait 3:4 on 16:9.
        Case(name: "portrait", picture: size(3000, 4000), output: hd, fit: .contain, expected: rect(555, 0, 810, 1080)),
        Case(name: "portrait", picture: size(3000, 4000), output: hd, fit: .cover, expected: rect(0, -740, 1920, 2560)),
        Case(name: "portrait", picture: size(3000, 4000), output: hd, fit: .stretch, expected: rect(0, 0, 1920, 1080)),
        // Same aspect ratio, down and up: fills exactly.
        Case(name: "same aspect down", picture: size(3840, 2160), output: hd, fit: .contain, expected: rect(0, 0, 1920, 1080)),
        Case(name: "same aspect down", picture: size(3840, 2160), output: hd, fit: .cover, expected: rect(0, 0, 1920, 1080)),
        Case(name: "same aspect up", picture: size(1280, 720), output: hd, fit: .contain, expected: rect(0, 0, 1920, 1080)),
        Case(name: "same aspect up", picture: size(1280, 720), output: hd, fit: .cover, expected: rect(0, 0, 1920, 1080)),
        Case(name: "same aspect odd", picture: size(16, 9), output: hd, fit: .contain, expected: rect(0, 0, 1920, 1080)),
        Case(name: "equal size", picture: hd, output: hd, fit: .contain, expected: rect(0, 0, 1920, 1080)),
        // Tiny pictures.
        Case(name: "1x1", picture: size(1, 1), output: hd, fit: .contain, expected: rect(420, 0, 1080, 1080)),
        Case(name: "1x1", picture: size(1, 1), output: hd, fit: .cover, expected: rect(0, -420, 1920, 1920)),
        Case(name: "1x1", picture: size(1, 1), output: hd, fit: .stretch, expected: rect(0, 0, 1920, 1080)),
        Case(name: "2x1", picture: size(2, 1), output: hd, fit: .contain, expected: rect(0, 60, 1920, 960)),
        Case(name: "2x1", picture: size(2, 1), output: hd, fit: .cover, expected: rect(-120, 0, 2160, 1080)),
        // Huge and extreme pictures: never thinner than one pixel.
        Case(name: "panorama", picture: size(100_000, 10), output: hd, fit: .contain, expected: rect(0, 539, 1920, 1)),
        Case(name: "panorama", picture: size(100_000, 10), output: hd, fit: .cover,
             expected: rect(-5_399_040, 0, 10_800_000, 1080)),
        Case(name: "tower", picture: size(10, 100_000), output: hd, fit: .contain, expected: rect(959, 0, 1, 1080)),
        Case(name: "tower", picture: size(10, 100_000), output: hd, fit: .cover,
             expected: rect(0, -9_599_460, 1920, 19_200_000)),
        Case(name: "huge", picture: size(40_000, 30_000), output: hd, fit: .contain, expected: rect(240, 0, 1440, 1080)),
        // A portrait output.
        Case(name: "landscape on portrait", picture: size(4000, 3000), output: portraitHD, fit: .contain,
             expected: rect(0, 555, 1080, 810)),
        Case(name: "landscape on portrait", picture: size(4000, 3000), output: portraitHD, fit: .cover,
             expected: rect(-740, 0, 2560, 1920)),
        // Odd leftovers: centred with the odd pixel on the far side.
        Case(name: "odd contain", picture: size(3, 2), output: size(10, 10), fit: .contain, expected: rect(0, 1, 10, 7)),
        Case(name: "odd cover", picture: size(3, 2), output: size(10, 10), fit: .cover, expected: rect(-2, 0, 15, 10)),
    ]

    @Test(arguments: cases)
    func placement(_ c: Case) {
        #expect(SlideLayout.placement(of: c.picture, in: c.output, fit: c.fit) == c.expected)
    }

    @Test func emptyPictureOrOutputGivesAnEmptyRect() {
        let zero = PixelRect(x: 0, y: 0, width: 0, height: 0)
        for fit in FitMode.allCases {
            #expect(SlideLayout.placement(of: PixelSize(width: 0, height: 10), in: Self.hd, fit: fit) == zero)
            #expect(SlideLayout.placement(of: PixelSize(width: 10, height: 0), in: Self.hd, fit: fit) == zero)
            #expect(SlideLayout.placement(of: PixelSize(width: 10, height: 10), in: PixelSize(width: 0, height: 0), fit: fit) == zero)
        }
    }

    /// Many picture/output pairs: contain stays inside, cover covers, both are
    /// centred, keep the aspect ratio to within rounding, and touch on one axis.
    @Test func invariantsOverManySizes() {
        var rng = SplitMix64(seed: 99)
        func dimension() -> Int {
            switch rng.next() % 3 {
            case 0: Int(rng.next() % 8) + 1
            case 1: Int(rng.next() % 4000) + 1
            default: Int(rng.next() % 60_000) + 1
            }
        }
        for _ in 0..<3000 {
            let picture = PixelSize(width: dimension(), height: dimension())
            let output = PixelSize(width: Int(rng.next() % 3000) + 1, height: Int(rng.next() % 3000) + 1)
            let scaleX = Double(output.width) / Double(picture.width)
            let scaleY = Double(output.height) / Double(picture.height)

            let contain = SlideLayout.placement(of: picture, in: output, fit: .contain)
            #expect(contain.x >= 0 && contain.y >= 0 && contain.maxX <= output.width && contain.maxY <= output.height,
                    "contain \(picture) in \(output): \(contain)")
            #expect(contain.width == output.width || contain.height == output.height)
            #expect(contain.width >= 1 && contain.height >= 1)
            #expect([0, 1].contains((output.width - contain.maxX) - contain.x), "contain \(picture) in \(output) not centred")
            #expect([0, 1].contains((output.height - contain.maxY) - contain.y), "contain \(picture) in \(output) not centred")
            let containScale = min(scaleX, scaleY)
            #expect(abs(Double(contain.width) - Double(picture.width) * containScale) <= 0.5 || contain.width == 1)
            #expect(abs(Double(contain.height) - Double(picture.height) * containScale) <= 0.5 || contain.height == 1)

            let cover = SlideLayout.placement(of: picture, in: output, fit: .cover)
            #expect(cover.x <= 0 && cover.y <= 0 && cover.maxX >= output.width && cover.maxY >= output.height,
                    "cover \(picture) in \(output): \(cover)")
            #expect(cover.width == output.width || cover.height == output.height)
            #expect(abs((cover.maxX - output.width) - (-cover.x)) <= 1, "cover \(picture) in \(output) not centred")
            #expect(abs((cover.maxY - output.height) - (-cover.y)) <= 1, "cover \(picture) in \(output) not centred")
            let coverScale = max(scaleX, scaleY)
            #expect(abs(Double(cover.width) - Double(picture.width) * coverScale) <= 0.5)
            #expect(abs(Double(cover.height) - Double(picture.height) * coverScale) <= 0.5)

            #expect(SlideLayout.placement(of: picture, in: output, fit: .stretch)
                == PixelRect(x: 0, y: 0, width: output.width, height: output.height))
        }
    }

    @Test func sameAspectRatioFillsWithoutHairline() {
        for (w, h) in [(1920, 1080), (1366, 768), (1024, 600), (800, 480), (7, 3)] {
            let output = PixelSize(width: w, height: h)
            for k in [1, 2, 3, 5, 7] {
                for picture in [PixelSize(width: w * k, height: h * k), PixelSize(width: w * 10 / k, height: h * 10 / k)]
                where picture.width * h == picture.height * w {
                    for fit in [FitMode.contain, .cover] {
                        #expect(SlideLayout.placement(of: picture, in: output, fit: fit)
                            == PixelRect(x: 0, y: 0, width: w, height: h), "\(picture) in \(output) \(fit)")
                    }
                }
            }
        }
    }

    @Test func fitModeRawValues() {
        #expect(FitMode(rawValue: "contain") == .contain)
        #expect(FitMode(rawValue: "cover") == .cover)
        #expect(FitMode(rawValue: "stretch") == .stretch)
        #expect(FitMode(rawValue: "fill") == nil)
    }
}
