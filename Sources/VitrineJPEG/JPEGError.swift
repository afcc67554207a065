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
        case .tooManyPixels(let size, let limit):
            return PixelLimit.exceeded(size, limit: limit)
        case .decoderUnavailable(let reason):
            return "the JPEG codec could not be initialised: \(reason)"
        case .read(let errno):
            return "cannot read the file: \(errno)"
        }
    }
}
