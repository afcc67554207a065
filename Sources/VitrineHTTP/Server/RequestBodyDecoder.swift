import FoundationEssentials
import Hummingbird
import VitrineAPI
import VitrineConfig

/// Reads a request's JSON body as its `APIRequestBody` type, or answers 422
/// with what is wrong at which key path: a body that is not a JSON object, a
/// key the type does not list, and a value the type refused.
enum RequestBodyDecoder {
    /// The body of `request`, collected up to `limit` bytes (413 past it):
    /// each of these bodies is a few keys.
    static func decode<Body: APIRequestBody>(_ type: Body.Type, from request: Request, upTo limit: Int = 4 * 1024) async throws -> Body {
        var request = request
        let body = try await request.collectBody(upTo: limit)
        return try decode(type, from: Array(body.readableBytesView))
    }

    /// `bytes` as a `Body`.
    static func decode<Body: APIRequestBody>(_ type: Body.Type, from bytes: [UInt8]) throws -> Body {
        let blank = !bytes.contains { !($0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09) }
        if blank, let empty = Body.empty { return empty }
        guard let object = try? JSONValue(parsing: bytes).object else {
            let allowed = Body.empty == nil ? "a JSON object" : "empty or a JSON object"
            throw APIError(.unprocessableContent, "the body must be \(allowed) such as \(Body.example)")
        }
        // Before decoding: JSONDecoder would ignore a key the type does not know.
        if let key = Set(object.keys).subtracting(Body.keys).sorted().first {
            let quoted = APIError.quoted(key)
            throw APIError(.unprocessableContent, "unknown key \(quoted)",
                           issues: [ConfigIssue(path: quoted, message: "unknown key (known keys: \(Body.keys.joined(separator: ", ")))")])
        }
        do {
            return try JSONDecoder().decode(Body.self, from: Data(bytes))
        } catch let error as DecodingError {
            let (path, message) = Self.describe(error)
            throw APIError(.unprocessableContent, "\(path) \(message)", issues: [ConfigIssue(path: path, message: message)])
        }
    }

    /// The key path and the sentence for a value the decoder or the type refused.
    static func describe(_ error: DecodingError) -> (path: String, message: String) {
        func path(_ keys: [any CodingKey]) -> String {
            keys.map { $0.intValue.map { "[\($0)]" } ?? "." + $0.stringValue }.joined().trimmingPrefix(".").description
        }
        switch error {
        case .dataCorrupted(let context):
            return (path(context.codingPath), context.debugDescription)
        case .keyNotFound(let key, let context):
            return (path(context.codingPath + [key]), "is required")
        case .typeMismatch(let type, let context), .valueNotFound(let type, let context):
            return (path(context.codingPath), "must be \(Self.name(of: type))")
        @unknown default:
            return ("", "is not valid")
        }
    }

    private static func name(of type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Bool.Type: "true or false"
        case is Int.Type, is UInt64.Type, is Int64.Type: "a whole number"
        case is Double.Type: "a number"
        default: "a \(type)"
        }
    }
}
