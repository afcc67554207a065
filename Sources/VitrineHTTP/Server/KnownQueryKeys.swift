import Hummingbird

/// The query parameters each state-changing route takes, as
/// docs/api/openapi.yaml lists them (`SpecAgreementTests` checks the two agree).
///
/// A POST, PUT, DELETE or PATCH with a key not listed for it is refused with
/// 400 naming the key, before anything changes: a misspelt `?outptu=` (or one
/// the kiosk could not read) must not silently widen a command meant for one
/// output to the whole kiosk. Reads ignore keys they do not know, as the web
/// does (a cache-busting `?_=…`).
enum KnownQueryKeys {
    static let stateChanging: Set<HTTPRequest.Method> = [.post, .put, .delete, .patch]

    static let byRoute: [(method: HTTPRequest.Method, path: String, keys: Set<String>)] = [
        (.put, "/api/v1/config", ["output"]),
        (.post, "/api/v1/assets", ["name"]),
        (.post, "/api/v1/control", ["output"]),
        (.put, "/api/v1/power", ["output"]),
        (.post, "/api/v1/override", ["output", "duration", "until", "name"]),
        (.delete, "/api/v1/override", ["output"]),
    ]

    /// The keys `method` `path` takes; empty for a state-changing route not listed.
    static func keys(_ method: HTTPRequest.Method, _ path: RouterPath) -> Set<String> {
        byRoute.first { $0.method == method && RouterPath($0.path) == path }?.keys ?? []
    }
}

/// A route's responder that refuses a query key the route does not take
/// (`KnownQueryKeys`); every route is wrapped, and those that read only get nil `keys`: nothing refused.
struct KnownQueryKeysResponder<Wrapped: HTTPResponder>: HTTPResponder {
    typealias Context = Wrapped.Context
    let wrapped: Wrapped
    let keys: Set<String>?

    func respond(to request: Request, context: Context) async throws -> Response {
        if let keys, let unknown = request.decodedQuery.first(where: { !keys.contains(String($0.key)) })?.key {
            let key = APIError.quoted(unknown)
            let takes = keys.isEmpty ? "takes no query parameter" : "takes only " + keys.sorted().joined(separator: ", ")
            throw APIError(.badRequest, "unknown query parameter \(key): \(request.method.rawValue) \(request.uri.path) \(takes)",
                           issues: [.init(path: key, message: "is not a query parameter of this operation")])
        }
        return try await wrapped.respond(to: request, context: context)
    }
}
