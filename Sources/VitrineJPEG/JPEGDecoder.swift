import CLibJPEG
import VitrineCore

/// A decoded picture in stored orientation, at the DCT-scaled size.
public struct DecodedJPEG: Sendable {
    public let image: PixelImage
    public let info: JPEGInfo
    public let scale: JPEGScalingFactor
}

/// Decodes JPEG data into XRGB8888 with libjpeg's decompressor (libjpeg-turbo).
///
/// One decoder owns one libjpeg decompress object (`jpeg_create_decompress`,
/// freed with `jpeg_destroy_decompress`), reused for every picture; an object
/// must not be used by two threads at once, so each decoding thread keeps its
/// own decoder.
///
/// libjpeg's API rather than TurboJPEG's `tjDecompress2` (which wraps the same
/// code), because TurboJPEG keeps only the first warning's text and cannot say
/// whether a fatal error followed a warning: a harmless first warning then hid
/// the damage after it, and the kiosk showed a half-grey picture.
public final class JPEGDecoder {
    private let session: UnsafeMutablePointer<vitrine_jpeg_session>

    /// - Throws: `JPEGError.decoderUnavailable` when `jpeg_create_decompress` fails.
    public init() throws(JPEGError) {
        var message = [CChar](repeating: 0, count: Int(JMSG_LENGTH_MAX))
        guard let session = vitrine_jpeg_create(&message) else {
            throw .decoderUnavailable(String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        self.session = session
    }

    deinit { vitrine_jpeg_destroy(session) }

    /// Decodes `bytes` at the smallest DCT scaling factor that still covers
    /// `target` (a size in the stored orientation; nil decodes at full size),
    /// with `jpeg_read_header`, `jpeg_start_decompress`, `jpeg_read_scanlines`
    /// and `jpeg_finish_decompress`.
    ///
    /// The markers after the last scan are read up to EOI, and every warning
    /// libjpeg emits is classified (`LibJPEGReport`): damaged or missing data is
    /// an error, never a picture padded with grey.
    ///
    /// - Throws: `JPEGError.tooManyPixels` before allocating anything when the
    ///   stored size exceeds `maxPixels`; the other cases for bad data.
    ///
    /// With `storage`, the picture is decoded into that memory (grown if needed)
    /// instead of a fresh allocation; see `PixelStorage`.
    public func decode(_ bytes: UnsafeRawBufferPointer, covering target: PixelSize?, maxPixels: Int,
                       into storage: PixelStorage? = nil) throws(JPEGError) -> DecodedJPEG {
        let info = try JPEGMarkerScanner.scan(bytes)
        guard info.size.pixelCount <= maxPixels else { throw .tooManyPixels(size: info.size, limit: maxPixels) }
        let scale = target.map { JPEGScalingFactor.smallest(decoding: info.size, covering: $0) } ?? .one
        let size = scale.scaled(info.size)
        let image = storage.map { PixelImage(size: size, storage: $0) } ?? PixelImage(size: size)
        if info.componentCount == 4 {
            // libjpeg-turbo has no CMYK-to-RGB conversion: decode to CMYK and convert here.
            var cmyk = [UInt8](repeating: 0, count: size.pixelCount * 4)
            try cmyk.withUnsafeMutableBufferPointer { (buffer) throws(JPEGError) in
                try decompress(bytes, into: buffer.baseAddress!, size: size, scale: scale, cmyk: true)
            }
            CMYKConversion.convert(cmyk, adobeInverted: info.adobeTransform != nil, into: image)
        } else {
            try decompress(bytes, into: UnsafeMutableRawPointer(image.pixels.baseAddress!).assumingMemoryBound(to: UInt8.self),
                           size: size, scale: scale, cmyk: false)
        }
        return DecodedJPEG(image: image, info: info, scale: scale)
    }

    /// `vitrine_jpeg_decompress` into `buffer` (4 bytes a pixel, rows packed) at `size`:
    /// JCS_CMYK with `cmyk`, else JCS_EXT_BGRX.
    private func decompress(_ bytes: UnsafeRawBufferPointer, into buffer: UnsafeMutablePointer<UInt8>, size: PixelSize,
                            scale: JPEGScalingFactor, cmyk: Bool) throws(JPEGError) {
        // The report is about 7 KB: keep it off the stack of the decode thread's caller.
        let report = UnsafeMutablePointer<vitrine_jpeg_report>.allocate(capacity: 1)
        defer { report.deallocate() }
        let status = vitrine_jpeg_decompress(
            session, bytes.baseAddress!.assumingMemoryBound(to: UInt8.self), UInt(bytes.count),
            UInt32(scale.numerator), UInt32(scale.denominator), cmyk ? 1 : 0,
            buffer, size.width * 4, UInt32(size.width), UInt32(size.height), report)
        if let error = LibJPEGReport(report.pointee, completed: status == 0, expected: size).error { throw error }
    }
}

/// CMYK to RGB for the JPEGs that store CMYK or YCCK.
enum CMYKConversion {
    /// Photoshop, which writes nearly every CMYK JPEG along with an Adobe APP14
    /// marker, stores the inks inverted (0 is full ink); without the marker the
    /// values are taken as written.
    static func convert(_ cmyk: [UInt8], adobeInverted: Bool, into image: PixelImage) {
        cmyk.withUnsafeBufferPointer { source in
            for i in 0..<image.size.pixelCount {
                var c = UInt32(source[i * 4]), m = UInt32(source[i * 4 + 1])
                var y = UInt32(source[i * 4 + 2]), k = UInt32(source[i * 4 + 3])
                if !adobeInverted { c = 255 - c; m = 255 - m; y = 255 - y; k = 255 - k }
                // With inverted inks: channel = (1 - ink)(1 - black) = c·k/255.
                let r = (c * k + 127) / 255, g = (m * k + 127) / 255, b = (y * k + 127) / 255
                image.pixels[i] = 0xFF00_0000 | r << 16 | g << 8 | b
            }
        }
    }
}
