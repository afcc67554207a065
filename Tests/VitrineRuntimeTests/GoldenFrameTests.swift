import Foundation
import Testing
import VitrineConfig
import VitrineCore
import VitrinePNG
@testable import VitrineRuntime
import VitrineSystem

/// `vitrine render` frames of the demo playlist at chosen instants, compared
/// with reviewed golden PNGs, plus checks of the geometry that do not depend on
/// the goldens. Set VITRINE_UPDATE_GOLDEN=1 to rewrite the goldens after a
/// deliberate change, then look at them before committing.
@Suite("Golden frames")
struct GoldenFrameTests {
    static let output = PixelSize(width: 640, height: 360)
    static let background = RGBAColor(hex: "#101418")!
    // Dwells 5,5,5,5,3,5 s: page changes start at 5, 10, 15, 20, 23, 28 s and take 400 ms.
    static let instants: [(name: String, seconds: Double)] = [
        ("demo-00.0-welcome", 0),
        ("demo-05.2-slide-transition", 5.2),
        ("demo-12.0-exif-upright", 12),
        ("demo-17.0-cover-panorama", 17),
        ("demo-21.0-square", 21),
        ("demo-28.1-wrap-to-first", 28.1),
    ]

    func render(_ configuration: KioskConfiguration, at seconds: Double) -> PixelImage {
        let (frame, failures) = FrameRenderer(configuration: configuration, output: Self.output).render(at: seconds)
        #expect(failures.isEmpty, "\(failures)")
        return frame
    }

    @Test("frame matches its golden", arguments: instants.map(\.name))
    func golden(name: String) throws {
        let seconds = Self.instants.first { $0.name == name }!.seconds
        let frame = render(try ConfigLoader.load(file: demoConfigPath), at: seconds)
        try compareWithGolden(frame, name: name)
    }

    @Test func crossfadeGolden() throws {
        var configuration = try ConfigLoader.load(file: demoConfigPath)
        configuration.transition.kind = .crossfade
        configuration.transition.easing = .linear
        let frame = render(configuration, at: 5.2)
        try compareWithGolden(frame, name: "demo-05.2-crossfade-half")
        // Halfway through a linear crossfade every pixel is the mean of both slides.
        let from = render(configuration, at: 4.9), to = render(configuration, at: 5.5)
        for (x, y) in [(10, 10), (320, 180), (100, 300), (600, 20)] {
            let a = channels(from[x, y]), b = channels(to[x, y]), mid = channels(frame[x, y])
            #expect(abs(mid.r - (a.r + b.r) / 2) <= 2 && abs(mid.g - (a.g + b.g) / 2) <= 2 && abs(mid.b - (a.b + b.b) / 2) <= 2)
        }
    }

    @Test func slideTransitionGeometry() throws {
        // At 5.2 s the ease-out position is 0.875: slide 0 is shifted left by 560 px,
        // slide 1 starts at column 80. Slide 1 is a 3:4 portrait, contained, so its
        // frame starts with 185 columns of background.
        let frame = render(try ConfigLoader.load(file: demoConfigPath), at: 5.2)
        #expect(!isClose(frame[79, 100], to: Self.background, tolerance: 10))
        #expect(isClose(frame[80, 100], to: Self.background, tolerance: 0))
        #expect(isClose(frame[264, 100], to: Self.background, tolerance: 0))
        #expect(!isClose(frame[266, 100], to: Self.background, tolerance: 10))
    }

    @Test func renderIsDeterministic() throws {
        let configuration = try ConfigLoader.load(file: demoConfigPath)
        #expect(difference(render(configuration, at: 15.15), render(configuration, at: 15.15)).max == 0)
    }

    @Test func exifPictureIsUpright() throws {
        // Slide 2 is stored turned a quarter to the left; upright, its sun is top right.
        let frame = render(try ConfigLoader.load(file: demoConfigPath), at: 12)
        let sun = channels(frame[Self.output.width * 3 / 4, Self.output.height / 5])
        #expect(sun.r > 200 && sun.g > 180 && sun.b < 80, "expected yellow sun top right, found \(sun)")
    }

    func compareWithGolden(_ frame: PixelImage, name: String) throws {
        let path = repositoryRoot + "/Tests/VitrineRuntimeTests/Golden/\(name).png"
        if ProcessInfo.processInfo.environment["VITRINE_UPDATE_GOLDEN"] == "1" {
            try FileIO.writeAtomically(try PNGCodec.encode(frame), to: path, durable: false)
            return
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            Issue.record("golden \(path) is missing; run with VITRINE_UPDATE_GOLDEN=1 and review it")
            return
        }
        let golden = try PNGCodec.decode([UInt8](data))
        try #require(golden.size == frame.size)
        let (worst, mean) = difference(frame, golden)
        // libjpeg-turbo's SIMD paths are bit-exact with its C code; the slack only
        // absorbs a different libjpeg-turbo build.
        #expect(worst <= 4 && mean < 0.25, "\(name): max channel difference \(worst), mean \(mean)")
    }
}
