import Hummingbird
import Synchronization

/// Every route the server answers, path and method, as the routes register
/// themselves: what a 405's `Allow` header lists, and whether a path has any
/// route that needs the token.
final class RouteTable: Sendable {
    private let routes = Mutex<[(path: RouterPath, methods: Set<HTTPRequest.Method>, protected: Bool)]>([])

    func record(_ path: RouterPath, _ method: HTTPRequest.Method, protected: Bool) {
        routes.withLock { routes in
            if let index = routes.firstIndex(where: { $0.path == path }) {
                routes[index].methods.insert(method)
                routes[index].protected = routes[index].protected || protected
            } else {
                routes.append((path, [method], protected))
            }
        }
    }

    /// Every route recorded, as (method, path) pairs: what the authentication test walks.
    var all: [(method: HTTPRequest.Method, path: RouterPath, protected: Bool)] {
        routes.withLock { routes in
            routes.flatMap { route in route.methods.map { (method: $0, path: route.path, protected: route.protected) } }
        }
    }

    /// Whether some route on `path` needs the token: its 405 is told only to a caller that has it.
    func isProtected(_ path: String) -> Bool {
        let segments = path.split(separator: "/", omittingEmptySubsequences: true)
        return routes.withLock { routes in routes.contains { $0.protected && Self.matches($0.path, segments) } }
    }

    /// The methods some route answers on `path`, sorted; empty when no route has this path.
    func methods(for path: String) -> [HTTPRequest.Method] {
        let segments = path.split(separator: "/", omittingEmptySubsequences: true)
        let methods = routes.withLock { routes in
            routes.filter { Self.matches($0.path, segments) }.reduce(into: Set<HTTPRequest.Method>()) { $0.formUnion($1.methods) }
        }
        return methods.sorted { $0.rawValue < $1.rawValue }
    }

    private static func matches(_ template: RouterPath, _ segments: [Substring]) -> Bool {
        var remaining = segments[...]
        for element in template {
            if element == .recursiveWildcard { return true }
            guard let segment = remaining.popFirst(), element ~= segment else { return false }
        }
        return remaining.isEmpty
    }
}

/// A `Router` that puts every route it is given behind the token, unless the
/// route is on `PublicRoutes.list`, and writes it into a `RouteTable`. It is the
/// only way routes reach the server's router, so authentication belongs to the
/// route that matched, never to the spelling of the request's path.
struct RecordingRouter<Context: RemoteAddressRequestContext>: RouterMethods {
    let router: Router<Context>
    let table: RouteTable
    let authenticator: APIAuthenticator

    @discardableResult func on<Responder: HTTPResponder>(_ path: RouterPath, method: HTTPRequest.Method, responder: Responder) -> Self
        where Responder.Context == Context {
        let isPublic = PublicRoutes.contains(method, path)
        table.record(path, method, protected: !isPublic)
        // The query is checked after the token, so a caller without it learns nothing of what a route takes.
        let checked = KnownQueryKeysResponder(wrapped: responder, keys: KnownQueryKeys.stateChanging.contains(method) ? KnownQueryKeys.keys(method, path) : nil)
        if isPublic {
            router.on(path, method: method, responder: checked)
        } else {
            router.on(path, method: method, responder: AuthenticatedResponder(wrapped: checked, authenticator: authenticator))
        }
        return self
    }

    @discardableResult func add(middleware: any MiddlewareProtocol<Request, Response, Context>) -> Self {
        router.add(middleware: middleware)
        return self
    }
}

/// A known path asked with a method it does not answer gets 405 with an
/// `Allow` header naming the methods it does (RFC 9110 §15.5.6); an unknown
/// path stays 404. On a path with protected routes, only a caller with the
/// token is told which methods it answers; others get the 401 first.
struct MethodNotAllowedMiddleware<Context: RemoteAddressRequestContext>: RouterMiddleware {
    let table: RouteTable
    let authenticator: APIAuthenticator

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound {
            let allowed = table.methods(for: request.uri.path)
            guard !allowed.isEmpty, !allowed.contains(request.method) else { throw error }
            if table.isProtected(request.uri.path) { try authenticator.authenticate(request, from: context.remoteAddress) }
            let list = allowed.map(\.rawValue).joined(separator: ", ")
            var refusal = APIError(.methodNotAllowed, "\(request.uri.path) does not answer \(request.method.rawValue); it answers \(list)")
            refusal.headers[.allow] = list
            throw refusal
        }
    }
}
