import Testing
import VitrineCore
@testable import VitrineJPEG

/// Every file in shared/fixtures/jpeg either decodes to the same picture as
/// libjpeg-turbo's `djpeg`, or fails with a clear, typed error.
@Suite("JPEG fixtures")
struct FixtureDecodeTests {
    static let decodable: [(name: String, size: PixelSize, components: Int)] = [
        ("ijg_testorig_baseline420.jpg", PixelSize(width: 227, height: 149), 3),
        ("ijg_testimgari_arithmetic.jpg", PixelSize(width: 227, height: 149), 3),
        ("progressive444.jpg", PixelSize(width: 650, height: 470), 3),
        ("progressive_big_icc.jpg", PixelSize(width: 425, height: 250), 3),
        ("mozilla_progressive_32.jpg", PixelSize(width: 32, height: 32), 3),
        ("gray_hopper.jpg", PixelSize(width: 128, height: 128), 1),
        ("gray_1000x1.jpg", PixelSize(width: 1000, height: 1), 1),
        ("cmyk_ycck_pil.jpg", PixelSize(width: 100, height: 100), 4),
        ("cmyk_plain_1.jpg", PixelSize(width: 32, height: 32), 4),
        ("cmyk_plain_2_subsampled.jpg", PixelSize(width: 256, height: 256), 4),
        ("rgb_no_ycc_adobe0.jpg", PixelSize(width: 500, height: 333), 3),
        ("restarts_33x33.jpg", PixelSize(width: 33, height: 33), 3),
        ("mjpeg_frame_no_dht.jpg", PixelSize(width: 960, height: 720), 3),
    ]

    @Test("decodes exactly as djpeg does", arguments: decodable.map(\.name))
    func decodesLikeDjpeg(name: String) throws {
        let expected = Self.decodable.first { $0.name == name }!
        let bytes = try fixture(name)
        let decoded = try bytes.withUnsafeBytes { try JPEGDecoder().decode($0, covering: nil, maxPixels: 100_000_000) }
        #expect(decoded.image.size == expected.size)
        #expect(decoded.info.componentCount == expected.components)
        #expect(decoded.scale == .one)
        let reference = try djpegReference(name)
        #expect(reference.size == expected.size)
        #expect(maxChannelDifference(decoded.image, reference) == 0)
    }

    @Test("DCT-scaled decode matches djpeg -scale", arguments: ["progressive444.jpg", "ijg_testorig_baseline420.jpg", "cmyk_ycck_pil.jpg", "mjpeg_frame_no_dht.jpg"])
    func scaledDecode(name: String) throws {
        let bytes = try fixture(name)
        let full = try bytes.withUnsafeBytes { try JPEGMarkerScanner.scan($0) }.size
        let target = PixelSize(width: full.width / 2, height: full.height / 2)
        let decoded = try bytes.withUnsafeBytes { try JPEGDecoder().decode($0, covering: target, maxPixels: 100_000_000) }
        #expect(decoded.scale == JPEGScalingFactor(numerator: 1, denominator: 2))
        let reference = try djpegReference(name, scale: "1/2")
        #expect(decoded.image.size == reference.size)
        #expect(maxChannelDifference(decoded.image, reference) == 0)
    }

    @Test func twelveBitIsRefusedClearly() throws {
        let bytes = try fixture("ljt_monkey12_12bit.jpg")
        #expect(throws: JPEGError.unsupported("12-bit samples; only 8-bit JPEG is supported")) {
            _ = try bytes.withUnsafeBytes { try JPEGDecoder().decode($0, covering: nil, maxPixels: 100_000_000) }
        }
        let error = JPEGError.unsupported("12-bit samples; only 8-bit JPEG is supported")
        #expect(error.description == "unsupported JPEG: 12-bit samples; only 8-bit JPEG is supported")
    }

    @Test func markerScanReadsTheFixturesHeaders() throws {
        let progressive = try fixture("progressive444.jpg").withUnsafeBytes { try JPEGMarkerScanner.scan($0) }
        #expect(progressive.process == "progressive")
        let arithmetic = try fixture("ijg_testimgari_arithmetic.jpg").withUnsafeBytes { try JPEGMarkerScanner.scan($0) }
        #expect(arithmetic.process == "arithmetic sequential")
        let ycck = try fixture("cmyk_ycck_pil.jpg").withUnsafeBytes { try JPEGMarkerScanner.scan($0) }
        #expect(ycck.adobeTransform == 2)
        let plain = try fixture("cmyk_plain_1.jpg").withUnsafeBytes { try JPEGMarkerScanner.scan($0) }
        #expect(plain.adobeTransform == 0)
        let icc = try fixture("progressive_big_icc.jpg").withUnsafeBytes { try JPEGMarkerScanner.scan($0) }
        #expect(icc.size == PixelSize(width: 425, height: 250))
    }
}
