import Foundation
import Testing
import VitrineCore
import VitrineJPEG
@testable import VitrineRuntime
import VitrineSystem

/// An upright JPEG is framed strip by strip as it decodes; the frame must be
/// the one the whole-picture path makes (decode, then `SlideFramer.frame`), for
/// every fit, including `cover` crops that skip strips above and below.
@Suite("Slide decoding in strips")
struct SlideDecodingTests {
    static let shared = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("shared/fixtures/jpeg").path

    /// rgb_no_ycc_adobe0.jpg (145 KiB) and progressive_big_icc.jpg (500 KiB,
    /// 67 KiB of headers) take several reads of the 128 KiB buffer.
    static let pictures = ["progressive444.jpg", "ijg_testorig_baseline420.jpg", "gray_1000x1.jpg", "cmyk_plain_2_subsampled.jpg",
                           "rgb_no_ycc_adobe0.jpg", "mjpeg_frame_no_dht.jpg", "progressive_big_icc.jpg"]

    @Test("the same frame as decoding whole", arguments: pictures)
    func stripsMakeTheWholePathsFrame(name: String) throws {
        let path = Self.shared + "/" + name
        let bytes = try FileIO.read(path)
        for output in [PixelSize(width: 320, height: 180), PixelSize(width: 90, height: 160), PixelSize(width: 1000, height: 700)] {
            for fit in FitMode.allCases {
                let request = SlideRequest(file: name, resolvedPath: path, fit: fit, background: RGBAColor(red: 10, green: 20, blue: 30),
                                           output: output, maxPixels: 100_000_000)
                let streamed = try SlideDecoding.frame(for: request, workspace: SlideDecodingWorkspace())
                let whole = try bytes.withUnsafeBytes { raw in
                    let info = try JPEGMarkerScanner.scan(raw)
                    let target = SlideFramer.decodeTarget(picture: info.uprightSize, orientation: info.orientation, output: output, fit: fit)
                    return try JPEGDecoder().decode(raw, covering: target, maxPixels: 100_000_000)
                }
                let expected = PixelImage(size: output)
                SlideFramer.frame(decoded: whole.image, orientation: whole.info.orientation, fit: fit, background: request.background,
                                  into: expected.canvas)
                let differing = (0..<output.pixelCount).filter { streamed.pixels[$0] != expected.pixels[$0] }.count
                #expect(differing == 0, "\(name) \(fit) at \(output)")
            }
        }
    }

    @Test func headersLongerThanTheFirstReadAreReadWhole() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-headers-\(getpid())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // Four 60 KB comment segments after SOI put the frame header 240 KB in.
        let original = try FileIO.read(Self.shared + "/progressive444.jpg")
        var padded = Array(original.prefix(2))
        for _ in 0..<4 {
            let length = 60_000
            padded += [0xFF, 0xFE, UInt8(length >> 8), UInt8(length & 0xFF)] + [UInt8](repeating: 0x41, count: length - 2)
        }
        padded += original.dropFirst(2)
        let path = directory + "/padded.jpg"
        try FileIO.writeAtomically(padded, to: path, durable: false)
        let request = { (path: String) in
            SlideRequest(file: "p.jpg", resolvedPath: path, fit: .contain, background: .black, output: PixelSize(width: 320, height: 180),
                         maxPixels: 100_000_000)
        }
        let framed = try SlideDecoding.frame(for: request(path), workspace: SlideDecodingWorkspace())
        let reference = try SlideDecoding.frame(for: request(Self.shared + "/progressive444.jpg"), workspace: SlideDecodingWorkspace())
        #expect((0..<framed.size.pixelCount).allSatisfy { framed.pixels[$0] == reference.pixels[$0] })
    }

    @Test func aDirectoryIsAFileErrorNamingIt() throws {
        let request = SlideRequest(file: "pictures", resolvedPath: FileManager.default.temporaryDirectory.path, fit: .contain,
                                   background: .black, output: PixelSize(width: 32, height: 18), maxPixels: 100_000_000)
        #expect {
            _ = try SlideDecoding.frame(for: request, workspace: SlideDecodingWorkspace())
        } throws: { error in
            guard let error = error as? SlideError, case .file(let system) = error.reason else { return false }
            return system.errno == .isDirectory && "\(error)".contains("pictures")
        }
    }

    @Test func aDamagedPictureFailsNamingTheFile() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-strips-\(getpid())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // The first half of a baseline picture: the decode runs out of data mid-scan.
        let bytes = try FileIO.read(Self.shared + "/progressive444.jpg")
        let path = directory + "/half.jpg"
        try FileIO.writeAtomically(Array(bytes.prefix(bytes.count / 2)), to: path, durable: false)
        let request = SlideRequest(file: "half.jpg", resolvedPath: path, fit: .cover, background: .black,
                                   output: PixelSize(width: 64, height: 36), maxPixels: 100_000_000)
        #expect {
            _ = try SlideDecoding.frame(for: request, workspace: SlideDecodingWorkspace())
        } throws: { error in
            guard let error = error as? SlideError, case .decode = error.reason else { return false }
            return error.file == "half.jpg" && "\(error)".contains("half.jpg")
        }
    }
}
