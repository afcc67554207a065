import AsyncHTTPClient
import NIOCore
import NIOPosix
import VitrineCore
import VitrineRuntime
import VitrineState
import VitrineSystem

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
        return try await execute(request, url: url) { response in
            try await Self.answer(response, url: url, etag: etag, limit: limit)
        }
    }

    /// Sends `request` without retrying a refused connection, and hands the
    /// response to `read`; every error comes out as `Failure` naming `url`,
    /// but `TooLarge`.
    private func execute<Result: Sendable>(_ request: HTTPClientRequest, url: String,
                                           _ read: @Sendable (HTTPClientResponse) async throws -> Result) async throws -> Result {
        do {
            return try await OutboundRequest.execute(request, policy: policy, timeout: timeout, retryConnecting: false, read)
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

    /// GET a blob of `size` bytes into `upload`, a resumable staging file:
    /// after bytes an earlier attempt kept, only the rest is asked for
    /// (`Range: bytes=N-`). A blob never changes (its name is its SHA-256), so
    /// no validator is needed to resume; the whole is checked against the
    /// manifest once it is in. An origin that ignores the range (200) sends it
    /// all again, and one that answers another range, or none it can satisfy
    /// (416), has the staged bytes dropped and the download start over.
    ///
    /// Returns false when the origin does not have it (404, 410). Throws
    /// `TooLarge` past `size`, `Failure` naming the URL for everything else;
    /// what arrived before a failure stays staged for the next attempt.
    func download(_ url: String, into upload: AssetUpload, size: UInt64) async throws -> Bool {
        if UInt64(upload.size) > size { try await Self.restart(upload, url: url) }
        // Whole already (a restart came between the last byte and the store).
        if UInt64(upload.size) == size { return true }
        let offset = upload.size
        var request = HTTPClientRequest(url: url)
        if offset > 0 { request.headers.add(name: "Range", value: RangeAnswer.rangeHeader(from: offset)) }
        let limit = Int(clamping: size)
        return try await execute(request, url: url) { response in
            let code = Int(response.status.code)
            switch RangeAnswer.of(status: code, contentRange: response.headers.first(name: "Content-Range"), askedFrom: offset) {
            case .whole:
                if upload.size > 0 { try await Self.restart(upload, url: url) }
            case .rest:
                break
            case .alreadyWhole:
                return true
            case .startOver(let reason):
                try await Self.restart(upload, url: url)
                throw Failure(url: url, reason: reason + "; starting it again from the beginning")
            case .missing:
                return false
            case .notModified, .failed:
                throw Failure(url: url, reason: "the origin answered \(code) \(OutboundRequest.reason(code))")
            }
            do {
                try await upload.receive(response.body, limit: limit) { TooLarge() }
            } catch let error as TooLarge {
                throw error
            } catch let error as DiskFloorReached {
                // Not kept to resume: a part that cannot grow would hold the disk at its floor.
                try? await Self.restart(upload, url: url)
                throw Failure(url: url, reason: error.message)
            } catch let error as SystemError {
                throw Failure(url: url, reason: "cannot be staged: \(error)")
            } catch {
                throw Failure(url: url, reason: "the download broke off after \(upload.size) of \(size) bytes: \(error); the next attempt goes on from there")
            }
            return true
        }
    }

    /// Empties `upload`'s staged bytes for a download from the first byte. A
    /// failure here is the disk's (the part cannot be truncated), and is said
    /// so, naming the URL: inside `execute` any other error would read as an
    /// origin that "cannot be reached".
    private static func restart(_ upload: AssetUpload, url: String) async throws {
        do {
            try await NIOThreadPool.singleton.runIfActive { try upload.restart() }
        } catch {
            throw Failure(url: url, reason: "its partial download cannot be started over: \(error)")
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
