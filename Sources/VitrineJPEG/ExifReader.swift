import VitrineCore

/// Finds the Orientation tag (0x0112) in an APP1 Exif segment.
///
/// Camera files carry all sorts of broken Exif; anything malformed is simply
/// "no orientation", never an error, since the picture itself may be fine.
enum ExifReader {
    static func orientation(inAPP1 body: UnsafeRawBufferPointer) -> ExifOrientation? {
        // "Exif\0\0", then a TIFF header: byte order, 42, offset of IFD0.
        guard body.count >= 14, Array(body[0..<6]) == [0x45, 0x78, 0x69, 0x66, 0x00, 0x00] else { return nil }
        let tiff = UnsafeRawBufferPointer(rebasing: body[6...])
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
