internal import CLibAV
import VitrineCore

/// Why a video cannot be played. FFmpeg returns a negative `AVERROR` code from
/// every call that can fail; each becomes one of these cases here, once, with
/// FFmpeg's own words (`av_strerror`) and the call that failed kept in the
/// message, and the checks made here (a video stream, a codec this build
/// decodes, `video.maxPixels`) add theirs.
public enum VideoError: Error, Hashable, Sendable, CustomStringConvertible {
    /// No demuxer recognised the file (`AVERROR_INVALIDDATA` from `avformat_open_input`).
    case notAVideo(String)
    /// The file holds no video stream (`av_find_best_stream`: `AVERROR_STREAM_NOT_FOUND`).
    case noVideoStream
    /// A stream whose codec this FFmpeg has no decoder for (`AVERROR_DECODER_NOT_FOUND`).
    case unsupportedCodec(String)
    /// The stream's pictures are larger than the configured limit; refused from
    /// the headers, before anything is decoded.
    case tooManyPixels(size: PixelSize, limit: Int)
    /// The data is damaged or ends early, as a demuxer or decoder said.
    case corrupt(String)
    /// FFmpeg could not allocate its memory (`AVERROR(ENOMEM)`, or a NULL from an allocator).
    case outOfMemory(String)
    /// Another failure: the call and FFmpeg's words.
    case failed(call: String, code: Int32, message: String)

    /// The error for FFmpeg's `code` (negative) from `call`.
    init(code: Int32, call: String) {
        let words = Self.words(for: code)
        let detail = "\(call): \(words)"
        switch code {
        case vitrine_averror_enomem(): self = .outOfMemory(detail)
        // A stream that ends inside a packet, or whose bytes no demuxer or decoder can parse.
        case vitrine_averror_invaliddata(), vitrine_averror_eof(), -EIO: self = .corrupt(detail)
        case vitrine_averror_stream_not_found(): self = .noVideoStream
        default: self = .failed(call: call, code: code, message: words)
        }
    }

    /// `av_strerror`'s words for `code`.
    static func words(for code: Int32) -> String {
        var buffer = [CChar](repeating: 0, count: 128)
        av_strerror(code, &buffer, buffer.count)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    public var description: String {
        switch self {
        case .notAVideo(let detail): "cannot be read as a video: \(detail)"
        case .noVideoStream: "the file holds no video stream"
        case .unsupportedCodec(let codec): "its codec, \(codec), cannot be decoded by this build of FFmpeg"
        case .tooManyPixels(let size, let limit):
            "its pictures are \(size.width)x\(size.height), over decode.maxPixels (\(limit) pixels)"
        case .corrupt(let detail): "the file is damaged or cut short (\(detail))"
        case .outOfMemory(let detail): "out of memory while decoding (\(detail))"
        case .failed(let call, let code, let message): "\(call) failed: \(message) [\(code)]"
        }
    }
}
