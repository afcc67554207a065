import Foundation
import Testing
import VitrineCore
@testable import VitrineRuntime
import VitrineSystem

/// What the slide tests of each picture format beyond JPEG and PNG (WebP, GIF,
/// HEIF) share: a request on a background of their own, and the check that a
/// picture is known by its bytes, not its name.
enum PictureFormatSlides {
    static func request(_ file: String, path: String, output: PixelSize, fit: FitMode = .contain) -> SlideRequest {
        SlideRequest(file: file, resolvedPath: path, fit: fit, background: RGBAColor(red: 10, green: 20, blue: 30), output: output,
                     maxPixels: 100_000_000)
    }

    /// `fixture` written under `name`, then framed for every fit: each frame
    /// must be `expected`'s for the same request, pixel for pixel.
    static func expectSniffedNotNamed(fixture: String, name: String, output: PixelSize,
                                      expected: ([UInt8], SlideRequest) throws -> PixelImage) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-format-\(getpid())-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let bytes = try FileIO.read(fixture)
        let path = directory + "/" + name
        try FileIO.writeAtomically(bytes, to: path, durable: false)
        for fit in FitMode.allCases {
            let request = request(name, path: path, output: output, fit: fit)
            let framed = try SlideDecoding.frame(for: request, workspace: SlideDecodingWorkspace())
            let wanted = try expected(bytes, request)
            #expect((0..<framed.size.pixelCount).allSatisfy { framed.pixels[$0] == wanted.pixels[$0] }, "\(name) \(fit)")
        }
    }
}
