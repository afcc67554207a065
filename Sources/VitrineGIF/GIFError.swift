internal import CLibGIF
import VitrineCore

/// Why a GIF picture could not be decoded. giflib reports every failure as
/// `GIF_ERROR` with an `int` code (`D_GIF_ERR_*`, worded by `GifErrorString`);
/// each code becomes one of these cases, and the checks made here (the
/// signature, `decode.maxPixels`, the frame's place on the canvas, the memory
/// a decode takes) add theirs. The message names the reason in words an
/// operator can act on, with giflib's own words in brackets.
public enum GIFError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The data is empty.
    case empty
    /// The data does not start with `GIF87a` or `GIF89a`.
    case notGIF
    /// The data ends before the file does (`D_GIF_ERR_READ_FAILED`: the
    /// memory reader had no more bytes; `D_GIF_ERR_EOF_TOO_SOON`: the image
    /// data stops before its last pixel).
    case truncated(String)
    /// The data is damaged (`D_GIF_ERR_NO_SCRN_DSCR`, `D_GIF_ERR_NO_IMAG_DSCR`,
    /// `D_GIF_ERR_WRONG_RECORD`, `D_GIF_ERR_IMAGE_DEFECT`, `D_GIF_ERR_DATA_TOO_BIG`,
    /// `D_GIF_ERR_NO_COLOR_MAP`, `D_GIF_ERR_NOT_GIF_FILE`), or has no picture
    /// or colour table at all.
    case corrupt(String)
    /// The first frame does not lie within the logical screen.
    case frameOutsideCanvas(left: Int, top: Int, size: PixelSize, canvas: PixelSize)
    /// giflib could not allocate its memory (`D_GIF_ERR_NOT_ENOUGH_MEM`).
    case outOfMemory
    /// giflib stopped for another reason (`D_GIF_ERR_OPEN_FAILED`,
    /// `D_GIF_ERR_CLOSE_FAILED`, `D_GIF_ERR_NOT_READABLE`, or a code this
    /// version does not know); the raw code and giflib's words.
    case decoderFailed(code: Int, message: String)
    /// The logical screen or the first frame has more pixels than the
    /// configured limit; refused before any allocation.
    case tooManyPixels(size: PixelSize, limit: Int)
    /// An interlaced first frame, whose colour indices are held whole (one byte
    /// a pixel) to put its rows in order, would take more than `limit` bytes.
    case tooLargeToDecode(size: PixelSize, bytes: Int, limit: Int)

    /// The error for giflib's code `code` (`GifFile->Error`, or the `Error`
    /// out-parameter of `DGifOpen`); `step` says what was being done.
    init(code: Int32, during step: String) {
        let words = GifErrorString(code).map { String(cString: $0) } ?? "unknown error"
        let detail = "\(step); giflib: \(words)"
        switch code {
        case D_GIF_ERR_READ_FAILED, D_GIF_ERR_EOF_TOO_SOON: self = .truncated("the file ends before the picture does (\(detail))")
        case D_GIF_ERR_NOT_GIF_FILE, D_GIF_ERR_NO_SCRN_DSCR, D_GIF_ERR_NO_IMAG_DSCR, D_GIF_ERR_NO_COLOR_MAP,
             D_GIF_ERR_WRONG_RECORD, D_GIF_ERR_DATA_TOO_BIG, D_GIF_ERR_IMAGE_DEFECT:
            self = .corrupt("the data is damaged (\(detail))")
        case D_GIF_ERR_NOT_ENOUGH_MEM: self = .outOfMemory
        default: self = .decoderFailed(code: Int(code), message: detail)
        }
    }

    public var description: String {
        switch self {
        case .empty:
            return "not a GIF file: the file is empty"
        case .notGIF:
            return "not a GIF file: it does not start with GIF87a or GIF89a"
        case .truncated(let reason):
            return "truncated GIF data: \(reason)"
        case .corrupt(let reason):
            return "corrupt GIF data: \(reason)"
        case .frameOutsideCanvas(let left, let top, let size, let canvas):
            return "corrupt GIF data: the first frame, \(size) at (\(left), \(top)), does not lie within the \(canvas) logical screen"
        case .outOfMemory:
            return "the GIF decoder ran out of memory"
        case .decoderFailed(let code, let message):
            return "the GIF decoder stopped with error \(code) (\(message))"
        case .tooManyPixels(let size, let limit):
            return PixelLimit.exceeded(size, limit: limit)
        case .tooLargeToDecode(let size, let bytes, let limit):
            return "picture is \(size) and interlaced, which is decoded whole: it would take \((bytes + (1 << 19)) >> 20) MiB, "
                + "more than the \(limit >> 20) MiB one picture may take; save it non-interlaced, or smaller"
        }
    }
}
