/// Finds the Orientation tag (0x0112) in Exif data: a JPEG's APP1 segment
/// (VitrineJPEG) or a WebP file's `EXIF` chunk (VitrineWebP).
///
/// Camera files carry all sorts of broken Exif; anything malformed is simply
/// "no orientation", never an error, since the picture itself may be fine.
public enum ExifReader {
    /// The orientation in an APP1 Exif segment's body: "Exif\0\0", then a TIFF structure.
    public static func orientation(inAPP1 body: UnsafeRawBufferPointer) -> ExifOrientation? {
        guard body.count >= 14, Array(body[0..<6]) == exifPrefix else { return nil }
        return orientation(inTIFF: UnsafeRawBufferPointer(rebasing: body[6...]))
    }

    /// The orientation in a WebP `EXIF` chunk's payload: the TIFF structure
    /// itself, as the WebP container specification says; a payload that starts
    /// with "Exif\0\0" as a JPEG's APP1 does (some writers add it) is read too.
    public static func orientation(inWebPChunk payload: UnsafeRawBufferPointer) -> ExifOrientation? {
        if payload.count >= 6, Array(payload[0..<6]) == exifPrefix { return orientation(inAPP1: payload) }
        return orientation(inTIFF: payload)
    }

    private static let exifPrefix: [UInt8] = [0x45, 0x78, 0x69, 0x66, 0x00, 0x00]

    /// The orientation in a TIFF structure: byte order, 42, offset of IFD0, IFD0's entries.
    public static func orientation(inTIFF tiff: UnsafeRawBufferPointer) -> ExifOrientation? {
        guard tiff.count >= 8 else { return nil }
        let bigEndian: Bool
        switch (tiff[0], tiff[1]) {
        case (0x4D, 0x4D): bigEndian = true
        case (0x49, 0x49): bigEndian = false
        default: return nil
        }
        func u16(_ at: Int) -> Int? {
            guard at >= 0, at + 2 <= tiff.count else { return nil }
            return bigEndian ? Int(tiff[at]) << 8 | Int(tiff[at + 1]) : Int(tiff[at + 1]) << 8 | Int(tiff[at])
        }
        func u32(_ at: Int) -> Int? {
            guard let high = u16(bigEndian ? at : at + 2), let low = u16(bigEndian ? at + 2 : at) else { return nil }
            return high << 16 | low
        }
        guard u16(2) == 42, let ifd = u32(4), let count = u16(ifd) else { return nil }
        for entry in 0..<min(count, 512) {
            let at = ifd + 2 + entry * 12
            guard let tag = u16(at) else { return nil }
            // SHORT (type 3), count 1: the value sits in the first two bytes of the value field.
            if tag == 0x0112, u16(at + 2) == 3, let value = u16(at + 8) {
                return ExifOrientation(rawValue: value)
            }
        }
        return nil
    }
}
