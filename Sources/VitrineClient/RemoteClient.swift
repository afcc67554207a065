import AsyncHTTPClient
import FoundationEssentials
import NIOCore
import NIOHTTP1
import VitrineConfig
import VitrineAPI

/// The kiosk's API from the command line: bearer token, JSON bodies, and the
/// server's error messages (with each key path) passed on as they are.
public struct RemoteClient: Sendable {
    let base: String
    let token: String
    static let timeout: TimeAmount = .seconds(60)

    public struct Reply: Sendable {
        public var status: Int
        public var headers: HTTPHeaders
        public var body: [UInt8]
        /// The body as JSON, whatever it holds; nil when it is not JSON.
        public var json: JSONValue? { try? JSONValue(parsing: body) }
        /// The kiosk's `error` sentence, when the body is an error (`ErrorBody`).
        public var errorMessage: String? {
            guard case .object(let object)? = json, case .string(let message)? = object["error"] else { return nil }
            return message
        }

        /// The body as the API body type `Body` (Sources/VitrineAPI);
        /// `path` names the request in the error when it is not one.
        public func decoded<Body: Decodable>(_ type: Body.Type, from path: String) throws -> Body {
            do {
                return try JSONDecoder().decode(type, from: Data(body))
            } catch {
                throw UnreadableAnswer(path: path, reason: "\(error)")
            }
        }
    }

    /// An answer that is not the body the API documents for it (another
    /// version of Vitrine, or not Vitrine at all).
    public struct UnreadableAnswer: Error, CustomStringConvertible {
        var path: String
        var reason: String
        public var description: String { "\(path): the answer is not what the API documents: \(reason)" }
    }

    /// What the kiosk said no to: its status, message and issues.
    public struct Refusal: Error, CustomStringConvertible {
        var method: String
        var path: String
        var status: Int
        var message: String
        var issues: [String]
        public var description: String {
            (["\(method) \(path): \(status): \(message)"] + issues.map { "  \($0)" }).joined(separator: "\n")
        }
    }

    public init(base: String, token: String) {
        self.base = base.hasSuffix("/") ? String(base.dropLast()) : base
        self.token = token
    }

    /// `path` addressing one output group (`?output=NAME`, the name
    /// percent-encoded), or the kiosk as a whole when `output` is nil.
    public static func path(_ path: String, output: String?) -> String {
        guard let output else { return path }
        // RFC 3986's unreserved characters stay; every other byte of the UTF-8 is %XX.
        let unreserved = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".utf8)
        let encoded = output.utf8.map { byte in
            unreserved.contains(byte) ? String(UnicodeScalar(byte)) : "%" + (byte < 0x10 ? "0" : "") + String(byte, radix: 16, uppercase: true)
        }.joined()
        return path + (path.contains("?") ? "&" : "?") + "output=" + encoded
    }

    public func send(_ method: HTTPMethod, _ path: String, body: [UInt8]? = nil, contentType: String? = nil,
              headers: [(String, String)] = [], expecting: Set<Int> = [200]) async throws -> Reply {
        var request = HTTPClientRequest(url: base + path)
        request.method = method
        request.headers.add(name: "Authorization", value: "Bearer \(token)")
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let contentType { request.headers.add(name: "Content-Type", value: contentType) }
        if let body { request.body = .bytes(ByteBuffer(bytes: body)) }
        let response = try await HTTPClient.shared.execute(request, timeout: Self.timeout)
        let bytes = Array(try await response.body.collect(upTo: 256 << 20).readableBytesView)
        let reply = Reply(status: Int(response.status.code), headers: response.headers, body: bytes)
        guard expecting.contains(reply.status) else {
            // The API's error body; anything else (a proxy's page) is quoted as it is.
            let error = try? reply.decoded(ErrorBody.self, from: path)
            let issues = (error?.issues ?? []).map { ($0.path.isEmpty ? "" : $0.path + ": ") + $0.message }
            throw Refusal(method: method.rawValue, path: path, status: reply.status,
                          message: error?.error ?? String(decoding: bytes.prefix(200), as: UTF8.self), issues: issues)
        }
        return reply
    }
}
