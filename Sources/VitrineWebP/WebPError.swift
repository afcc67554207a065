internal import CLibWebP
import VitrineCore

/// Why a WebP picture could not be decoded. libwebp reports every failure as a
/// `VP8StatusCode`; each code becomes one of these cases, and the checks made
/// here (the signature, `decode.maxPixels`, the memory a decode takes) add theirs.
/// The message names the reason in words an operator can act on.
public enum WebPError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The data is empty.
    case empty
    /// The data does not start with a RIFF header of form type `WEBP`.
    case notWebP
    /// The data ends before the picture does (`VP8_STATUS_NOT_ENOUGH_DATA`,
    /// or a container libwebpdemux finds cut short).
    case truncated(String)
    /// The data is damaged (`VP8_STATUS_BITSTREAM_ERROR`, or a container libwebpdemux cannot parse).
    case corrupt(String)
    /// A valid file using a feature this libwebp does not decode (`VP8_STATUS_UNSUPPORTED_FEATURE`).
    case unsupported(String)
    /// libwebp could not allocate its memory (`VP8_STATUS_OUT_OF_MEMORY`).
    case outOfMemory
    /// libwebp refused the decode's parameters (`VP8_STATUS_INVALID_PARAM`): a bug here, not in the file.
    case invalidParameter(String)
    /// libwebp stopped for another reason (`VP8_STATUS_SUSPENDED`, `VP8_STATUS_USER_ABORT`); the raw code.
    case decoderFailed(code: Int)
    /// The picture has more pixels than the configured limit; refused before any allocation.
    case tooManyPixels(size: PixelSize, limit: Int)
    /// libwebp would hold more than `limit` bytes to decode it (a lossless
    /// picture is decoded whole inside libwebp, whatever the output size); refused before decoding.
    case tooLargeToDecode(size: PixelSize, bytes: Int, limit: Int)

    /// The error for a `VP8StatusCode` other than `VP8_STATUS_OK`; `step` says what was being done.
    init(status: VP8StatusCode, during step: String) {
        switch status {
        case VP8_STATUS_NOT_ENOUGH_DATA: self = .truncated("the file ends before the picture does (\(step))")
        case VP8_STATUS_BITSTREAM_ERROR: self = .corrupt("the bitstream is damaged (\(step))")
        case VP8_STATUS_UNSUPPORTED_FEATURE: self = .unsupported("a feature this libwebp does not decode (\(step))")
        case VP8_STATUS_OUT_OF_MEMORY: self = .outOfMemory
        case VP8_STATUS_INVALID_PARAM: self = .invalidParameter(step)
        default: self = .decoderFailed(code: Int(status.rawValue))
        }
    }

    public var description: String {
        switch self {
        case .empty:
            return "not a WebP file: the file is empty"
        case .notWebP:
            return "not a WebP file: no RIFF header of type WEBP"
        case .truncated(let reason):
            return "truncated WebP data: \(reason)"
        case .corrupt(let reason):
            return "corrupt WebP data: \(reason)"
        case .unsupported(let reason):
            return "unsupported WebP: \(reason)"
        case .outOfMemory:
            return "the WebP decoder ran out of memory"
        case .invalidParameter(let step):
            return "the WebP decoder refused its parameters (\(step))"
        case .decoderFailed(let code):
            return "the WebP decoder stopped with status \(code)"
        case .tooManyPixels(let size, let limit):
            return PixelLimit.exceeded(size, limit: limit)
        case .tooLargeToDecode(let size, let bytes, let limit):
            return "picture is \(size), which libwebp decodes whole: it would take \((bytes + (1 << 19)) >> 20) MiB, "
                + "more than the \(limit >> 20) MiB one picture may take; save it lossy, or smaller"
        }
    }
}
