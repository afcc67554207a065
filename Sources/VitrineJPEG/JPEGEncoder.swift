import CTurboJPEG
import VitrineCore

/// Encodes XRGB8888 pictures as baseline 4:2:0 JPEG (`tjCompress2`), for the
/// benchmark's generated photographs and for tests that need JPEGs with
/// particular properties.
public final class JPEGEncoder {
    private let handle: tjhandle

    public init() throws(JPEGError) {
        guard let handle = tjInitCompress() else {
            throw .decoderUnavailable(String(cString: tjGetErrorStr2(nil)))
        }
        self.handle = handle
    }

    deinit { tjDestroy(handle) }

    /// The JPEG file for `image`; `orientation` other than `.up` adds an APP1
    /// Exif segment carrying that Orientation tag.
    public func encode(_ image: PixelImage, quality: Int = 90, orientation: ExifOrientation = .up) throws(JPEGError) -> [UInt8] {
        var buffer: UnsafeMutablePointer<UInt8>?
        var size: UInt = 0
        let status = tjCompress2(
            handle, UnsafeRawPointer(image.pixels.baseAddress!).assumingMemoryBound(to: UInt8.self),
            Int32(image.width), 0, Int32(image.height), Int32(TJPF_BGRX.rawValue), &buffer, &size,
            Int32(TJSAMP_420.rawValue), Int32(quality), 0)
        defer { tjFree(buffer) }
        guard status == 0, let buffer else { throw .corrupt(String(cString: tjGetErrorStr2(handle))) }
        let jpeg = Array(UnsafeBufferPointer(start: buffer, count: Int(size)))
        return orientation == .up ? jpeg : Self.insertingExifOrientation(orientation, into: jpeg)
    }

    /// Puts a minimal big-endian Exif APP1 with one IFD0 entry, Orientation,
    /// right after SOI.
    static func insertingExifOrientation(_ orientation: ExifOrientation, into jpeg: [UInt8]) -> [UInt8] {
        let tiff: [UInt8] = [
            0x4D, 0x4D, 0x00, 0x2A, 0x00, 0x00, 0x00, 0x08,  // "MM", 42, IFD0 at 8
            0x00, 0x01,  // one entry
            0x01, 0x12, 0x00, 0x03, 0x00, 0x00, 0x00, 0x01,  // tag 0x0112, SHORT, count 1
            0x00, UInt8(orientation.rawValue), 0x00, 0x00,  // value
            0x00, 0x00, 0x00, 0x00,  // no next IFD
        ]
        let body = Array("Exif".utf8) + [0, 0] + tiff
        let length = body.count + 2
        let segment: [UInt8] = [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + body
        return Array(jpeg.prefix(2)) + segment + Array(jpeg.dropFirst(2))
    }
}
