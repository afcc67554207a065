import Hummingbird
import NIOCore

/// A file's answer as nginx gives it, for the test origins: 206 with the rest
/// for `Range: bytes=N-` (when `If-Range`, if sent, is the file's strong
/// ETag), 416 from past its end, else 200 with all of it; and, to stand for a
/// dropped connection, a body broken off after `cutAfter` bytes.
enum RangeResponse {
    /// The body stopped part way: the connection closes with bytes still owed.
    struct CutOff: Error {}

    static func answer(_ bytes: [UInt8], etag: String?, weakETag: Bool = false, lastModified: String? = nil, range: String?, ifRange: String?,
                       cutAfter: Int?) -> Response {
        let range = range ?? "", ifRange = ifRange ?? ""
        var body = bytes
        var status = HTTPResponse.Status.ok
        var headers: HTTPFields = [.acceptRanges: "bytes"]
        if let etag { headers[.eTag] = weakETag ? "W/" + etag : etag }
        if let lastModified { headers[.lastModified] = lastModified }
        // If-Range with a weak or another validator: the whole file (RFC 9110 section 13.1.5).
        let sameFile = ifRange.isEmpty || (etag.map { !weakETag && ifRange == $0 } ?? (ifRange == lastModified))
        if range.hasPrefix("bytes="), range.hasSuffix("-"), let start = Int(range.dropFirst(6).dropLast()), sameFile {
            guard start < bytes.count else {
                return Response(status: .rangeNotSatisfiable, headers: [.contentRange: "bytes */\(bytes.count)"])
            }
            headers[.contentRange] = "bytes \(start)-\(bytes.count - 1)/\(bytes.count)"
            body = Array(bytes[start...])
            status = .partialContent
        }
        let owed = body
        return Response(status: status, headers: headers, body: ResponseBody(contentLength: owed.count) { writer in
            guard let cutAfter, cutAfter < owed.count else {
                try await writer.write(ByteBuffer(bytes: owed))
                try await writer.finish(nil)
                return
            }
            try await writer.write(ByteBuffer(bytes: owed.prefix(cutAfter)))
            throw CutOff()
        })
    }
}
