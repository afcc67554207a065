internal import CLibHEIF
import VitrineCore

/// Why a HEIF picture could not be decoded. libheif returns a `struct
/// heif_error` from every call that can fail: a category (`heif_error_code`),
/// a detail (`heif_suberror_code`) and its own words; each category becomes one
/// of these cases, once, with libheif's words and codes kept in the message,
/// and the checks made here (the signature, `decode.maxPixels`, the memory a
/// decode takes) add theirs. The message names the reason in words an operator
/// can act on.
public enum HEIFError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The data is empty.
    case empty
    /// The data does not start with an ISO BMFF `ftyp` box naming a HEIF brand.
    case notHEIF
    /// The data ends before the file does (`heif_suberror_End_of_data`).
    case truncated(String)
    /// The data is damaged: its boxes (`heif_error_Invalid_input`) or its coded
    /// picture (`heif_error_Decoder_plugin_error`, or a decoding warning).
    case corrupt(String)
    /// Boxes Vitrine cannot read exactly as libheif does, so that its checks
    /// of what libheif would allocate cannot be made (`HEIFMetaBoxes`,
    /// `HEIFItemLocations`, `HEIFDerivations`): a field the specification
    /// forbids, one that libheif 1.15 and later versions read differently, a
    /// chain of derived images deeper than real files have. Refused before
    /// libheif sees the file, never decoded unchecked.
    case uncheckable(String)
    /// A valid file this libheif cannot decode (`heif_error_Unsupported_filetype`,
    /// `heif_error_Unsupported_feature`: a codec without its decoder plugin, a bit depth).
    case unsupported(String)
    /// The file exceeds one of libheif's own security limits
    /// (`heif_suberror_Security_limit_exceeded`), which are left on.
    case overSecurityLimit(String)
    /// libheif could not allocate its memory (`heif_error_Memory_allocation_error`).
    case outOfMemory(String)
    /// libheif stopped for another reason (a usage error, a plugin that would
    /// not load); its codes and words.
    case decoderFailed(code: Int, subcode: Int, message: String)
    /// The picture has more pixels than the configured limit; refused from the
    /// headers, before anything is decoded.
    case tooManyPixels(size: PixelSize, limit: Int)
    /// libheif would hold more than `limit` bytes to decode it (it has no
    /// scaler: the whole picture, as coded and as RGB); refused from the headers.
    case tooLargeToDecode(size: PixelSize, bytes: Int, limit: Int)

    /// The error for libheif's `error`, whose code is not `heif_error_Ok`;
    /// `step` says what was being done. libheif's message is copied here: it
    /// lives only as long as the context that made it.
    init(_ error: heif_error, during step: String) {
        let words = error.message.map { String(cString: $0) } ?? "no message"
        let detail = "\(step); libheif: \(words) [\(error.code.rawValue).\(error.subcode.rawValue)]"
        switch (error.code, error.subcode) {
        case (_, heif_suberror_End_of_data): self = .truncated("the file ends before the picture does (\(detail))")
        case (_, heif_suberror_Security_limit_exceeded): self = .overSecurityLimit(detail)
        case (heif_error_Invalid_input, _): self = .corrupt("the file's boxes are damaged (\(detail))")
        case (heif_error_Decoder_plugin_error, _): self = .corrupt("the coded picture is damaged (\(detail))")
        case (heif_error_Unsupported_filetype, _), (heif_error_Unsupported_feature, _): self = .unsupported(detail)
        case (heif_error_Memory_allocation_error, _): self = .outOfMemory(detail)
        default: self = .decoderFailed(code: Int(error.code.rawValue), subcode: Int(error.subcode.rawValue), message: detail)
        }
    }

    public var description: String {
        switch self {
        case .empty:
            return "not a HEIF file: the file is empty"
        case .notHEIF:
            return "not a HEIF file: no ftyp box with a HEIF brand (\(HEIFDecoder.brandList))"
        case .truncated(let reason):
            return "truncated HEIF data: \(reason)"
        case .corrupt(let reason):
            return "corrupt HEIF data: \(reason)"
        case .uncheckable(let reason):
            return "HEIF refused: its boxes cannot be checked exactly (\(reason)); save it again with a common encoder"
        case .unsupported(let reason):
            return "unsupported HEIF: a feature or codec this libheif does not decode (\(reason))"
        case .overSecurityLimit(let reason):
            return "HEIF over libheif's security limits (\(reason))"
        case .outOfMemory(let reason):
            return "the HEIF decoder ran out of memory (\(reason))"
        case .decoderFailed(let code, let subcode, let message):
            return "the HEIF decoder stopped with error \(code).\(subcode) (\(message))"
        case .tooManyPixels(let size, let limit):
            return PixelLimit.exceeded(size, limit: limit)
        case .tooLargeToDecode(let size, let bytes, let limit):
            return "picture is \(size), which libheif decodes whole: it would take \((bytes + (1 << 19)) >> 20) MiB, "
                + "more than the \(limit >> 20) MiB one picture may take; save it smaller"
        }
    }
}
