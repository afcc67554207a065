import AsyncHTTPClient
import NIOCore
import VitrineCore
import VitrineRuntime

/// The HTTP side of following a channel: conditional GETs of its files
/// (AsyncHTTPClient, as the URL slides use), each with its own deadline.
struct ChannelOrigin: Sendable {
    /// How long one request may take, from the `channel` section.
    var timeout: Duration

    enum Answer: Sendable {
        /// 304: the file is still the one with the ETag sent.
        case notModified
        /// 200, with its ETag if the origin gives one.
        case fetched([UInt8], etag: String?)
        /// 404 or 410.
        case missing
    }

    /// What went wrong, naming the URL: a log line and the status's `lastError`.
    struct Failure: Error, CustomStringConvertible {
        var url: String
        var reason: String
        var description: String { "\(url): \(reason)" }
    }

    /// Body larger than `limit` bytes.
    struct TooLarge: Error {}

    /// Where the origin may be (the local file's `api.allowAddresses`).
    var policy: OutboundPolicy

    /// GET `url`, with `If-None-Match: etag` when there is one. A refused or
    /// failed connection fails the poll at once: by default AsyncHTTPClient
    /// retries connecting until the request's deadline (`channel.timeout`, 60 s),
    /// so an origin that is down would be noticed a minute late and the backoff
    /// would start from there. The poll's own backoff does the retrying.
    func get(_ url: String, ifNoneMatch etag: String?, limit: Int) async throws -> Answer {
        var request = HTTPClientRequest(url: url)
        if let etag { request.headers.add(name: "If-None-Match", value: etag) }
        do {
            return try await OutboundRequest.execute(request, policy: policy, timeout: timeout, retryConnecting: false) { response in
                try await Self.answer(response, url: url, etag: etag, limit: limit)
            }
        } catch let failure as Failure {
            throw failure
        } catch is TooLarge {
            throw TooLarge()
        } catch let refused as OutboundRequest.Refused {
            throw Failure(url: url, reason: refused.reason)
        } catch {
            throw Failure(url: url, reason: "cannot be reached: \(error)")
        }
    }

    private static func answer(_ response: HTTPClientResponse, url: String, etag: String?, limit: Int) async throws -> Answer {
        switch response.status.code {
        case 200:
            do {
                let body = try await response.body.collect(upTo: limit)
                return .fetched(Array(body.readableBytesView), etag: response.headers.first(name: "ETag"))
            } catch is NIOTooManyBytesError {
                throw TooLarge()
            } catch {
                throw Failure(url: url, reason: "the download broke off: \(error)")
            }
        case 304 where etag != nil:
            return .notModified
        case 404, 410:
            return .missing
        default:
            throw Failure(url: url, reason: "the origin answered \(response.status.code) \(OutboundRequest.reason(Int(response.status.code)))")
        }
    }
}
