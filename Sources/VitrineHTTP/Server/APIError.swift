import FoundationEssentials
import Hummingbird
import NIOCore
import VitrineConfig
import VitrineState
import VitrineAPI

/// An API failure: its status and a message that names the problem, answered
/// as an `ErrorBody`, `{"error": "...", "issues": [{"path", "message"}]}`.
public struct APIError: Error, HTTPResponseError, Sendable {
    public var status: HTTPResponse.Status
    public var message: String
    /// Key-path problems, for a configuration that is not valid.
    public var issues: [ConfigIssue] = []
    /// On a 412: the version that is current now (`currentVersion` in the body).
    public var currentVersion: String?
    /// On a 409 while following a channel: its URL (`channel` in the body).
    public var channel: String?
    /// On a 404 for an unknown `output`: the names the kiosk answers to (`outputs` in the body).
    public var outputs: [String]?
    public var headers: HTTPFields = [:]

    public init(_ status: HTTPResponse.Status, _ message: String, issues: [ConfigIssue] = [], currentVersion: String? = nil,
                channel: String? = nil) {
        self.status = status
        self.message = message
        self.issues = issues
        self.currentVersion = currentVersion
        self.channel = channel
    }

    /// The longest piece of a caller's text quoted back in a message: a
    /// connector's name or a query key is a dozen characters.
    static let maxQuotedLength = 64

    /// `text`, the caller's, as a message quotes it: cut to `maxQuotedLength` characters.
    static func quoted(_ text: some StringProtocol) -> String {
        text.count > maxQuotedLength ? String(text.prefix(maxQuotedLength)) + "…" : String(text)
    }

    /// What the answer's body says.
    public var body: ErrorBody {
        ErrorBody(error: message, issues: issues.isEmpty ? nil : issues,
                  currentVersion: currentVersion, channel: channel, outputs: outputs)
    }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        var response = try JSONResponse.make(status, encoding: body)
        response.headers.append(contentsOf: headers)
        return response
    }
}

/// JSON bodies: typed (Sources/VitrineAPI), sorted keys, so answers are stable.
enum JSONResponse {
    /// A body that cannot be encoded (a value JSON has no form for) is an
    /// `EncodingFailure`, which ErrorBodyMiddleware logs and answers 500:
    /// never `{}` in its place, which a client would take for an empty answer.
    static func make<Body: Encodable>(_ status: HTTPResponse.Status = .ok, encoding body: Body, headers: HTTPFields = [:]) throws -> Response {
        let data: [UInt8]
        do {
            data = try APIJSON.encode(body)
        } catch {
            throw EncodingFailure(reason: "\(error)")
        }
        return json(data, status: status, headers: headers)
    }

    private static func json(_ data: [UInt8], status: HTTPResponse.Status, headers: HTTPFields) -> Response {
        var fields = headers
        fields[.contentType] = "application/json"
        var buffer = ByteBuffer()
        buffer.writeBytes(data)
        buffer.writeInteger(UInt8(ascii: "\n"))
        return Response(status: status, headers: fields, body: ResponseBody(byteBuffer: buffer))
    }

    static func bytes(_ bytes: [UInt8], contentType: String, headers: HTTPFields = [:], status: HTTPResponse.Status = .ok) -> Response {
        var fields = headers
        fields[.contentType] = contentType
        return Response(status: status, headers: fields, body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }
}

/// An answer whose body could not be encoded as JSON.
struct EncodingFailure: Error, CustomStringConvertible {
    var reason: String
    var description: String { "the answer could not be encoded as JSON: \(reason)" }
}

/// Turns every failure into the API's error body: Hummingbird's own errors (an
/// unknown route, a body over the limit) and anything unexpected, which is
/// logged and answered 500 without crashing the kiosk.
struct ErrorBodyMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as APIError {
            throw error
        } catch let refusal as StateStoreRefusal {
            throw APIError(refusal)
        } catch let error as HTTPError {
            let message = error.body ?? (error.status == .notFound ? "no such path: \(request.uri.path)" : error.status.reasonPhrase)
            var mapped = APIError(error.status, message)
            mapped.headers = error.headers
            throw mapped
        } catch is NIOTooManyBytesError {
            throw APIError(.contentTooLarge, "the request body is larger than this endpoint accepts")
        } catch {
            context.logger.error("request failed: \(error)", metadata: ["path": "\(request.uri.path)"])
            throw APIError(.internalServerError, "internal error: \(error)")
        }
    }
}
