import CTurboJPEG
import VitrineCore

/// A decoded picture in stored orientation, at the DCT-scaled size.
public struct DecodedJPEG: Sendable {
    public let image: PixelImage
    public let info: JPEGInfo
    public let scale: JPEGScalingFactor
}

/// Decodes JPEG data into XRGB8888 with the TurboJPEG API of libjpeg-turbo.
///
/// One decoder owns one TurboJPEG handle (`tjInitDecompress`, freed with
/// `tjDestroy`); a handle must not be used by two threads at once, so each
/// decoding thread keeps its own decoder.
public final class JPEGDecoder {
    private let handle: tjhandle

    public init() throws(JPEGError) {
        guard let handle = tjInitDecompress() else {
            throw .decoderUnavailable(String(cString: tjGetErrorStr2(nil)))
        }
        self.handle = handle
    }

    deinit { tjDestroy(handle) }

    /// Decodes `bytes` at the smallest DCT scaling factor that still covers
    /// `target` (a size in the stored orientation; nil decodes at full size).
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
        // Stop libjpeg-turbo at 500 progressive scans: a crafted file can otherwise
        // make it spin for minutes on a tiny picture.
        let flags = TJFLAG_LIMITSCANS
        // The component count comes from the marker scan rather than
        // tjDecompressHeader3, which in libjpeg-turbo 2.1 refuses valid files whose
        // sampling factors match no TurboJPEG subsampling type (a CMYK file with a
        // 2x2-sampled first component); tjDecompress2 itself decodes them.
        if info.componentCount == 4 {
            // libjpeg-turbo has no CMYK-to-RGB conversion: decode to CMYK and convert here.
            var cmyk = [UInt8](repeating: 0, count: size.pixelCount * 4)
            try cmyk.withUnsafeMutableBufferPointer { (buffer) throws(JPEGError) in
                try decompress(bytes, into: buffer.baseAddress!, size: size, format: TJPF_CMYK, flags: flags)
            }
            CMYKConversion.convert(cmyk, adobeInverted: info.adobeTransform != nil, into: image)
        } else {
            try decompress(bytes, into: UnsafeMutableRawPointer(image.pixels.baseAddress!).assumingMemoryBound(to: UInt8.self),
                           size: size, format: TJPF_BGRX, flags: flags)
        }
        return DecodedJPEG(image: image, info: info, scale: scale)
    }

    /// `tjDecompress2` into `buffer` at `size` in pixel format `format`.
    private func decompress(_ bytes: UnsafeRawBufferPointer, into buffer: UnsafeMutablePointer<UInt8>, size: PixelSize,
                            format: TJPF, flags: Int32) throws(JPEGError) {
        let status = tjDecompress2(
            handle, bytes.baseAddress!.assumingMemoryBound(to: UInt8.self), UInt(bytes.count), buffer,
            Int32(size.width), 0, Int32(size.height), Int32(format.rawValue), flags)
        if status != 0 { try check(status) }
    }

    /// Turns TurboJPEG's -1 plus `tjGetErrorCode`/`tjGetErrorStr2` into a `JPEGError`.
    ///
    /// libjpeg reports damaged entropy data as a warning and carries on, padding
    /// what it could not decode with grey; the picture is then partial, and a
    /// kiosk must never show one. Those warnings become errors; the harmless
    /// ones (stray bytes between segments, a malformed ICC or JFIF marker) do
    /// not. TurboJPEG keeps the first warning's text only (libjpeg prints one).
    private func check(_ status: Int32) throws(JPEGError) {
        let message = String(cString: tjGetErrorStr2(handle))
        let isWarning = tjGetErrorCode(handle) == Int32(TJERR_WARNING.rawValue)
        if message.hasPrefix("Premature end of JPEG file") { throw .truncated(message) }
        if isWarning {
            let damage = ["premature end of data segment", "bad Huffman code", "bad arithmetic code", "instead of RST",
                          "Inconsistent progression"]
            if damage.contains(where: message.contains) { throw .corrupt(message) }
            return
        }
        if message.contains("Unsupported JPEG data precision") { throw .unsupported(message) }
        if message.contains("Scan number") { throw .corrupt(message + " (too many progressive scans)") }
        throw .corrupt(message)
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
