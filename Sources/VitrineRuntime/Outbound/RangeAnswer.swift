/// What the answer to a GET that may resume a download means for the part
/// already staged (RFC 9110, sections 14 and 13.1.5). Pure, so that the two
/// resumable downloads, a channel's blob and a URL slide's file, decide alike.
public enum RangeAnswer: Equatable, Sendable {
    /// The whole body follows (200): a part staged before goes first. To a
    /// request for the rest, the origin ignored the range or, with `If-Range`,
    /// the file changed since the part was fetched.
    case whole
    /// The rest follows (206), from the byte asked for.
    case rest
    /// 304, to a conditional request: the copy held is current.
    case notModified
    /// 404 or 410.
    case missing
    /// The part cannot be resumed from: the origin answered another range, or
    /// none it can send (416). The part goes; the next attempt starts over.
    case startOver(reason: String)
    /// Any other status.
    case failed(status: Int)

    /// Reads a status and its `Content-Range` against the first byte asked
    /// for (`offset`, 0 when the whole was asked for).
    public static func of(status: Int, contentRange: String?, askedFrom offset: Int) -> RangeAnswer {
        switch status {
        case 200:
            return .whole
        case 206 where offset > 0:
            guard let start = rangeStart(contentRange), start == offset else {
                return .startOver(reason: "the origin answered a range that does not start at byte \(offset) (Content-Range: \(contentRange ?? "none"))")
            }
            return .rest
        case 304:
            return .notModified
        case 404, 410:
            return .missing
        case 416 where offset > 0:
            return .startOver(reason: "the origin cannot send it from byte \(offset) (416 Range Not Satisfiable)")
        default:
            return .failed(status: status)
        }
    }

    /// The `Range` header that asks for everything from `offset` on.
    public static func rangeHeader(from offset: Int) -> String { "bytes=\(offset)-" }

    /// The first byte of `bytes START-END/TOTAL`.
    public static func rangeStart(_ header: String?) -> Int? {
        guard let header, header.hasPrefix("bytes "), let dash = header.firstIndex(of: "-") else { return nil }
        return Int(header[header.index(header.startIndex, offsetBy: 6)..<dash])
    }

    /// What `If-Range` may carry to resume a file that can change: its strong
    /// ETag, else its Last-Modified date; nil when it has neither (a weak
    /// ETag does not do: RFC 9110 section 13.1.5), and then a part of it
    /// cannot be resumed.
    public static func ifRangeValidator(etag: String?, lastModified: String?) -> String? {
        if let etag, etag.hasPrefix("\""), etag.count >= 2 { return etag }
        return lastModified.flatMap { $0.isEmpty ? nil : $0 }
    }
}
