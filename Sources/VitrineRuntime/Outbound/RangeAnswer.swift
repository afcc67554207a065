/// What the answer to a GET that may resume a download means for the part
/// already staged (RFC 9110, sections 14 and 13.1.5). Pure, so that the two
/// resumable downloads, a channel's blob and a URL slide's file, decide alike.
public enum RangeAnswer: Equatable, Sendable {
    /// The whole body follows (200): a part staged before goes first. To a
    /// request for the rest, the origin ignored the range or, with `If-Range`,
    /// the file changed since the part was fetched.
    case whole
    /// The rest follows (206), from the byte asked for to the file's last.
    case rest
    /// The part is the whole file already (a 416 naming a length equal to
    /// it): an earlier attempt had every byte but was not stored.
    case alreadyWhole
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
            // A server may send less than was asked for: only the rest to the end will do.
            guard let sent = Self.range(contentRange), sent.start == offset, sent.total.map({ sent.end == $0 - 1 }) ?? true else {
                return .startOver(reason: "the origin answered a range that is not from byte \(offset) to the end (Content-Range: \(contentRange ?? "none"))")
            }
            return .rest
        case 304:
            return .notModified
        case 404, 410:
            return .missing
        case 416 where offset > 0:
            if Self.unsatisfiedLength(contentRange) == offset { return .alreadyWhole }
            return .startOver(reason: "the origin cannot send it from byte \(offset) (416 Range Not Satisfiable)")
        default:
            return .failed(status: status)
        }
    }

    /// The `Range` header that asks for everything from `offset` on.
    public static func rangeHeader(from offset: Int) -> String { "bytes=\(offset)-" }

    /// The first and last byte, and the length when known, of
    /// `bytes START-END/TOTAL` (`*` for an unknown length).
    public static func range(_ header: String?) -> (start: Int, end: Int, total: Int?)? {
        guard let header, header.hasPrefix("bytes ") else { return nil }
        let parts = header.dropFirst(6).split(separator: "/", maxSplits: 1)
        let bounds = parts.first?.split(separator: "-", maxSplits: 1) ?? []
        guard parts.count == 2, bounds.count == 2, let start = Int(bounds[0]), let end = Int(bounds[1]), start <= end else { return nil }
        if parts[1] == "*" { return (start, end, nil) }
        guard let total = Int(parts[1]), end < total else { return nil }
        return (start, end, total)
    }

    /// The length in a 416's `bytes */LENGTH`.
    public static func unsatisfiedLength(_ header: String?) -> Int? {
        guard let header, header.hasPrefix("bytes */") else { return nil }
        return Int(header.dropFirst(8))
    }

    /// What `If-Range` may carry to resume a file that can change: its strong
    /// ETag; without any ETag, its Last-Modified date. Nil otherwise: a weak
    /// ETag does not do, nor a date beside an ETag (RFC 9110 section
    /// 13.1.5), and then a part of it cannot be resumed.
    public static func ifRangeValidator(etag: String?, lastModified: String?) -> String? {
        if let etag, !etag.isEmpty { return etag.hasPrefix("\"") && etag.count >= 2 ? etag : nil }
        return lastModified.flatMap { $0.isEmpty ? nil : $0 }
    }
}
