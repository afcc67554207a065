import Crypto
import Foundation
import VitrineCore
import VitrineRuntime
@testable import VitrineSandbox
import VitrineSandboxHelper

/// Where the tests find pictures and the `vitrine` binary the helpers are started from.
enum SandboxFixtures {
    static let testsRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    static let repository = testsRoot.deletingLastPathComponent()

    /// The `vitrine` built beside this test runner (`swift build --build-tests` builds both).
    static var vitrine: String {
        let runner = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        return runner.deletingLastPathComponent().appendingPathComponent("vitrine").path
    }

    static func path(_ relative: String) -> String { repository.appendingPathComponent(relative).path }

    /// Every kind of picture the kiosk shows: baseline, progressive, EXIF-turned
    /// and CMYK JPEG, 8/16-bit, palette and interlaced PNG, animated GIF and
    /// WebP, HEIC tiled and with alpha, AVIF.
    static let pictures = [
        "deploy/demo/images/01-welcome.jpg", "deploy/demo/images/03-exif-rotated.jpg",
        "Tests/VitrineRuntimeTests/PNGFixtures/rgb-16bit.png", "Tests/VitrineRuntimeTests/PNGFixtures/palette-4bit-trns.png",
        "Tests/VitrineRuntimeTests/PNGFixtures/rgb-8bit-interlaced.png",
        "Tests/VitrineRuntimeTests/AnimationFixtures/disposal.gif", "Tests/VitrineRuntimeTests/AnimationFixtures/disposal.webp",
        "Tests/VitrineHEIFTests/Fixtures/grid-2x2.heic", "Tests/VitrineHEIFTests/Fixtures/alpha.heic",
        "Tests/VitrineHEIFTests/Fixtures/irot-imir.heic", "Tests/VitrineHEIFTests/Fixtures/plain.avif",
    ]

    static func request(_ relative: String, output: PixelSize = PixelSize(width: 320, height: 180), frameScale: Double? = nil) -> SlideRequest {
        var request = SlideRequest(file: relative, resolvedPath: path(relative), fit: .contain,
                                   background: RGBAColor(red: 10, green: 20, blue: 30), output: output, maxPixels: 100_000_000)
        if let frameScale {
            request = SlideRequest(file: relative, fit: .contain, background: request.background, output: output,
                                   maxPixels: request.maxPixels, frameScale: frameScale)
            request.resolvedPath = path(relative)
        }
        return request
    }

    static func pool(_ limits: HelperLimits = HelperLimits()) -> DecodePool {
        DecodePool(executable: vitrine, size: 2, limits: limits)
    }

    /// `bytes` staged in a file as a download is (`AssetUpload`), with their SHA-256 in hex.
    static func stagedDownload(_ bytes: [UInt8]) throws -> (path: String, sha256: String) {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("partial-\(UUID().uuidString)").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return (path, SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined())
    }

    /// Inspects `bytes` as a download named `name` (`inspect(download:)`), staged for the call.
    static func inspectDownload(_ bytes: [UInt8], named name: String, maxPixels: Int,
                                with inspector: SandboxedPictureInspector) throws -> InspectedImage {
        let staged = try stagedDownload(bytes)
        defer { try? FileManager.default.removeItem(atPath: staged.path) }
        return try inspector.inspect(download: staged.path, sha256: staged.sha256, named: name, maxPixels: maxPixels)
    }
}
