import Crypto
import Hummingbird

/// Lets a request under `/api/` through only with `Authorization: Bearer <token>`.
///
/// The comparison takes the same time however much of the token matches: both
/// sides are hashed to SHA-256 first (so their lengths do not show either), and
/// the digests are compared by OR-ing every byte's difference, without an
/// early exit.
struct BearerAuthentication<Context: RequestContext>: RouterMiddleware {
    private let expected: SHA256.Digest

    init(token: String) {
        expected = SHA256.hash(data: Array(token.utf8))
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.uri.path.hasPrefix("/api/") || request.uri.path == "/api" else {
            return try await next(request, context)
        }
        guard let header = request.headers[.authorization] else {
            throw unauthorized("an Authorization: Bearer <token> header is required")
        }
        let scheme = "bearer "
        guard header.count > scheme.count, header.prefix(scheme.count).lowercased() == scheme else {
            throw unauthorized("the Authorization header must be Bearer <token>")
        }
        guard Self.matches(String(header.dropFirst(scheme.count)), expected) else {
            throw unauthorized("the token is not valid")
        }
        return try await next(request, context)
    }

    static func matches(_ candidate: String, _ expected: SHA256.Digest) -> Bool {
        let digest = SHA256.hash(data: Array(candidate.utf8))
        var difference: UInt8 = 0
        for (a, b) in zip(digest, expected) { difference |= a ^ b }
        return difference == 0
    }

    private func unauthorized(_ message: String) -> APIError {
        var error = APIError(.unauthorized, message)
        error.headers[.wwwAuthenticate] = #"Bearer realm="vitrine""#
        return error
    }
}
