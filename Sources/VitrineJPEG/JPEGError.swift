import Glibc
import VitrineCore
import SystemPackage

/// Why a picture could not be decoded. Every failure of the JPEG path, from the
/// marker scan, from libjpeg (`LibJPEGReport`) or from TurboJPEG, ends up as one of these; the message names
/// the reason in words an operator can act on.
public enum JPEGError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The data is empty.
    case empty
    /// The data is not a JPEG file; `detected` names the format it looks like, if known.
    case notJPEG(detected: String?)
    /// The data ends before the picture does.
    case truncated(String)
    /// The data is damaged; the text is the decoder's own reason.
    case corrupt(String)
    /// A valid JPEG of a kind this decoder does not handle (12-bit, lossless, hierarchical).
    case unsupported(String)
    /// The picture has more pixels than the configured limit; refused before any allocation.
    case tooManyPixels(size: PixelSize, limit: Int)
    /// libjpeg (`jpeg_create_decompress`) or TurboJPEG (`tjInitCompress`) could not be initialised.
    case decoderUnavailable(String)
    /// read(2) failed with this errno while the decoder read a file (`JPEGSource.file`).
    case read(errno: Errno)

    public var description: String {
        switch self {
        case .empty:
            return "not a JPEG file: the file is empty"
        case .notJPEG(let detected?):
            return "not a JPEG file: the data looks like \(detected)"
        case .notJPEG(nil):
            return "not a JPEG file: no JPEG start-of-image marker"
        case .truncated(let reason):
            return "truncated JPEG data: \(reason)"
        case .corrupt(let reason):
            return "corrupt JPEG data: \(reason)"
        case .unsupported(let reason):
            return "unsupported JPEG: \(reason)"
        case .tooManyPixels(let size, let limit) where limit < 1_000_000:
            // A limit under a megapixel (a small panel, a test) in whole pixels, not "0 megapixels".
            return "picture is \(size) (\(size.pixelCount) pixels), over the limit of \(limit) pixels (decode.maxPixels)"
        case .tooManyPixels(let size, let limit):
            let megapixels = Double(size.pixelCount) / 1e6
            return "picture is \(size) (\(megapixels.formatted1) megapixels), over the limit of "
                + "\((Double(limit) / 1e6).formatted1) megapixels (decode.maxPixels)"
        case .decoderUnavailable(let reason):
            return "the JPEG codec could not be initialised: \(reason)"
        case .read(let errno):
            return "cannot read the file: \(errno)"
        }
    }
}

extension Double {
    var formatted1: String {
        let tenths = (self * 10).rounded()
        return tenths.truncatingRemainder(dividingBy: 10) == 0 ? "\(Int(tenths / 10))" : "\(tenths / 10)"
    }
}
