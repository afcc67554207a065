import Testing
import VitrineCore
@testable import VitrineJPEG

@Suite("Scaling factors and EXIF")
struct ScalingAndExifTests {
    @Test func smallestCoveringFactor() {
        let photo = PixelSize(width: 4000, height: 3000)
        // Fitted into 1920x1080 with contain: 1440x1080, so 3/8 (1500x1125) is the smallest that covers.
        #expect(JPEGScalingFactor.smallest(decoding: photo, covering: PixelSize(width: 1440, height: 1080))
            == JPEGScalingFactor(numerator: 3, denominator: 8))
        #expect(JPEGScalingFactor.smallest(decoding: photo, covering: PixelSize(width: 500, height: 375))
            == JPEGScalingFactor(numerator: 1, denominator: 8))
        #expect(JPEGScalingFactor.smallest(decoding: photo, covering: PixelSize(width: 4000, height: 3000)) == .one)
        // Upscaling is the resampler's job, not the DCT's.
        #expect(JPEGScalingFactor.smallest(decoding: PixelSize(width: 100, height: 100), covering: PixelSize(width: 1920, height: 1080)) == .one)
        #expect(JPEGScalingFactor(numerator: 3, denominator: 8).scaled(PixelSize(width: 4000, height: 3000)) == PixelSize(width: 1500, height: 1125))
        #expect(JPEGScalingFactor.shrinking.allSatisfy { $0.numerator <= $0.denominator })
    }

    @Test("EXIF orientation is read back from an encoded file", arguments: ExifOrientation.allCases)
    func exifRoundTrip(orientation: ExifOrientation) throws {
        let image = PixelImage(size: PixelSize(width: 64, height: 32), fill: RGBAColor(red: 200, green: 30, blue: 30))
        let jpeg = try JPEGEncoder().encode(image, quality: 90, orientation: orientation)
        let info = try jpeg.withUnsafeBytes { try JPEGMarkerScanner.scan($0) }
        #expect(info.orientation == orientation)
        #expect(info.uprightSize == (orientation.swapsAxes ? PixelSize(width: 32, height: 64) : PixelSize(width: 64, height: 32)))
        let decoded = try jpeg.withUnsafeBytes { try JPEGDecoder().decode($0, covering: nil, maxPixels: 1_000_000) }
        #expect(decoded.image.size == PixelSize(width: 64, height: 32))
    }

    @Test func malformedExifMeansUpright() throws {
        let image = PixelImage(size: PixelSize(width: 16, height: 16), fill: .white)
        var jpeg = try JPEGEncoder().encode(image, orientation: .right)
        // Break the TIFF byte-order mark: the Exif is unreadable, the picture is fine.
        let marker = Array("Exif".utf8)
        let found = (0..<(jpeg.count - 4)).first { Array(jpeg[$0..<($0 + 4)]) == marker }
        let exif = try #require(found)
        jpeg[exif + 6] = 0x00
        let info = try jpeg.withUnsafeBytes { try JPEGMarkerScanner.scan($0) }
        #expect(info.orientation == .up)
    }

    @Test func encodeDecodeRoundTripIsClose() throws {
        let image = PixelImage(size: PixelSize(width: 96, height: 64))
        for y in 0..<64 { for x in 0..<96 { image[x, y] = 0xFF00_0000 | UInt32(x * 2) << 16 | UInt32(y * 3) << 8 | 0x80 } }
        let jpeg = try JPEGEncoder().encode(image, quality: 95)
        let decoded = try jpeg.withUnsafeBytes { try JPEGDecoder().decode($0, covering: nil, maxPixels: 1_000_000) }
        #expect(maxChannelDifference(decoded.image, image) <= 12)
    }
}
