import VitrineCore

/// The colour model of the stored components.
public enum JPEGColorModel: String, Hashable, Sendable {
    case gray, ycbcr, rgb, cmyk, ycck
}

/// What the markers before the first scan say about a JPEG.
public struct JPEGInfo: Hashable, Sendable {
    /// The stored size, before EXIF orientation.
    public var size: PixelSize
    /// Bits per sample: 8 for nearly every JPEG; 12 and 16 exist.
    public var precision: Int
    public var componentCount: Int
    /// The frame type, for messages: "baseline", "progressive", "arithmetic", …
    public var process: String
    public var orientation: ExifOrientation
    /// The Adobe APP14 colour transform (0 none, 1 YCbCr, 2 YCCK), when present.
    public var adobeTransform: Int?

    /// The size once the EXIF orientation is applied.
    public var uprightSize: PixelSize { orientation.displaySize(forStored: size) }
}

/// Reads JPEG markers up to the first scan, in Swift and with every length
/// bounds-checked, so that the questions TurboJPEG's header call cannot answer
/// (EXIF orientation, Adobe transform, sample precision) and the clearest
/// errors (another format, 12-bit, lossless) come before any C code runs.
public enum JPEGMarkerScanner {
    public static func scan(_ bytes: UnsafeRawBufferPointer) throws(JPEGError) -> JPEGInfo {
        guard !bytes.isEmpty else { throw .empty }
        // libjpeg itself asks for SOI only (first_marker); what follows is its business.
        guard bytes.count >= 2, bytes[0] == 0xFF, bytes[1] == 0xD8 else {
            throw .notJPEG(detected: FormatSniffer.name(of: bytes))
        }
        var offset = 2
        var frame: (size: PixelSize, precision: Int, components: Int, process: String)?
        var orientation = ExifOrientation.up
        var adobeTransform: Int?
        while true {
            // Find the next marker as libjpeg's next_marker does, so that a file it
            // decodes with a harmless warning is not refused here: bytes other than
            // 0xFF are skipped (stray bytes between segments), then 0xFF fill bytes;
            // 0xFF 0x00 is not a marker and is skipped too.
            var marker: UInt8 = 0
            while marker == 0 {
                while offset < bytes.count, bytes[offset] != 0xFF { offset += 1 }
                while offset < bytes.count, bytes[offset] == 0xFF { offset += 1 }
                guard offset < bytes.count else { throw .truncated("the data ends before the first scan") }
                marker = bytes[offset]
                offset += 1
            }
            if marker == 0x01 || (0xD0...0xD7).contains(marker) { continue }  // standalone markers
            if marker == 0xD9 { throw .corrupt("end of image before any scan") }
            guard offset + 2 <= bytes.count else { throw .truncated("the data ends inside a marker segment") }
            let length = Int(bytes[offset]) << 8 | Int(bytes[offset + 1])
            guard length >= 2 else {
                // libjpeg skips a segment it does not read (APPn, COM, ...) by its length
                // less two, so a length of 0 or 1 skips just the length bytes; the
                // segments it reads fail with "Bogus marker length".
                if Self.isSkippedByLibJPEG(marker) { offset += 2; continue }
                throw .corrupt("marker 0xFF\(String(marker, radix: 16, uppercase: true)) has length \(length)")
            }
            guard offset + length <= bytes.count else { throw .truncated("the data ends inside a marker segment") }
            let body = UnsafeRawBufferPointer(rebasing: bytes[(offset + 2)..<(offset + length)])
            switch marker {
            case 0xC0...0xCF where marker != 0xC4 && marker != 0xC8 && marker != 0xCC:
                guard body.count >= 6 else { throw .corrupt("frame header too short") }
                let size = PixelSize(width: Int(body[3]) << 8 | Int(body[4]), height: Int(body[1]) << 8 | Int(body[2]))
                frame = (size, Int(body[0]), Int(body[5]), try process(of: marker))
            case 0xE1:
                if let value = ExifReader.orientation(inAPP1: body) { orientation = value }
            case 0xEE:
                // "Adobe", version(2), flags0(2), flags1(2), transform(1)
                if body.count >= 12, Array(body[0..<5]) == Array("Adobe".utf8) { adobeTransform = Int(body[11]) }
            case 0xDA:
                guard let frame else { throw .corrupt("scan before the frame header (no SOF marker)") }
                guard frame.precision == 8 else {
                    throw .unsupported("\(frame.precision)-bit samples; only 8-bit JPEG is supported")
                }
                // libjpeg turns 1 (grey) and 3 (YCbCr, RGB) components into XRGB and
                // 4 into CMYK; anything else has no colour interpretation to show.
                guard [1, 3, 4].contains(frame.components) else {
                    throw .unsupported("\(frame.components) colour components; only 1 (grey), 3 (colour) and 4 (CMYK) are supported")
                }
                guard frame.size.width > 0, frame.size.height > 0 else {
                    throw .unsupported("frame header gives a size of \(frame.size) (DNL-defined height is not supported)")
                }
                return JPEGInfo(size: frame.size, precision: frame.precision, componentCount: frame.components,
                                process: frame.process, orientation: orientation, adobeTransform: adobeTransform)
            default:
                break
            }
            offset += length
        }
    }

    /// The markers whose segments libjpeg skips unless asked to keep them: APP1–APP13,
    /// APP15 and COM (it reads APP0 and APP14, but tolerates their short lengths alike).
    private static func isSkippedByLibJPEG(_ marker: UInt8) -> Bool {
        (0xE0...0xEF).contains(marker) || marker == 0xFE
    }

    private static func process(of marker: UInt8) throws(JPEGError) -> String {
        switch marker {
        case 0xC0: return "baseline"
        case 0xC1: return "extended sequential"
        case 0xC2: return "progressive"
        case 0xC9: return "arithmetic sequential"
        case 0xCA: return "arithmetic progressive"
        case 0xC3, 0xCB: throw .unsupported("lossless JPEG")
        default: throw .unsupported("hierarchical (differential) JPEG")
        }
    }
}

/// Names common non-JPEG formats from their first bytes, for error messages.
enum FormatSniffer {
    static func name(of bytes: UnsafeRawBufferPointer) -> String? {
        func starts(with prefix: [UInt8], at offset: Int = 0) -> Bool {
            bytes.count >= offset + prefix.count && zip(bytes[offset...], prefix).allSatisfy { $0 == $1 }
        }
        if starts(with: [0x89, 0x50, 0x4E, 0x47]) { return "PNG" }
        if starts(with: Array("GIF8".utf8)) { return "GIF" }
        if starts(with: Array("RIFF".utf8)), starts(with: Array("WEBP".utf8), at: 8) { return "WebP" }
        if starts(with: Array("BM".utf8)) { return "BMP" }
        if starts(with: [0x49, 0x49, 0x2A, 0x00]) || starts(with: [0x4D, 0x4D, 0x00, 0x2A]) { return "TIFF" }
        if starts(with: Array("ftyp".utf8), at: 4) {
            if starts(with: Array("avif".utf8), at: 8) { return "AVIF" }
            if starts(with: Array("heic".utf8), at: 8) || starts(with: Array("mif1".utf8), at: 8) { return "HEIF/HEIC" }
            return "an ISO media file (MP4/HEIF)"
        }
        if starts(with: Array("%PDF".utf8)) { return "PDF" }
        if starts(with: [0xFF, 0x4F, 0xFF, 0x51]) || starts(with: [0x00, 0x00, 0x00, 0x0C, 0x6A, 0x50]) { return "JPEG 2000" }
        if starts(with: [0xFF, 0x0A]) { return "JPEG XL" }
        let head = String(decoding: bytes.prefix(256), as: UTF8.self).lowercased()
        if head.contains("<svg") { return "SVG" }
        if head.contains("<html") || head.contains("<!doctype html") { return "HTML" }
        return nil
    }
}
