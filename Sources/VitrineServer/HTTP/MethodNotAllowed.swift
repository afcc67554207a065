import Hummingbird
import Synchronization

/// Every route the server answers, path and method, as the routes register
/// themselves: what a 405's `Allow` header lists.
final class RouteTable: Sendable {
    private let routes = Mutex<[(path: RouterPath, methods: Set<HTTPRequest.Method>)]>([])

    func record(_ path: RouterPath, _ method: HTTPRequest.Method) {
        routes.withLock { routes in
            if let index = routes.firstIndex(where: { $0.path == path }) {
                routes[index].methods.insert(method)
            } else {
                routes.append((path, [method]))
            }
        }
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

/// A `Router` that also writes every route it is given into a `RouteTable`.
struct RecordingRouter<Context: RequestContext>: RouterMethods {
    let router: Router<Context>
    let table: RouteTable

    @discardableResult func on<Responder: HTTPResponder>(_ path: RouterPath, method: HTTPRequest.Method, responder: Responder) -> Self
        where Responder.Context == Context {
        table.record(path, method)
        router.on(path, method: method, responder: responder)
        return self
    }

    @discardableResult func add(middleware: any MiddlewareProtocol<Request, Response, Context>) -> Self {
        router.add(middleware: middleware)
        return self
    }
}

/// A known path asked with a method it does not answer gets 405 with an
/// `Allow` header naming the methods it does (RFC 9110 §15.5.6); an unknown
/// path stays 404.
struct MethodNotAllowedMiddleware<Context: RequestContext>: RouterMiddleware {
    let table: RouteTable

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound {
            let allowed = table.methods(for: request.uri.path)
            guard !allowed.isEmpty, !allowed.contains(request.method) else { throw error }
            let list = allowed.map(\.rawValue).joined(separator: ", ")
            var refusal = APIError(.methodNotAllowed, "\(request.uri.path) does not answer \(request.method.rawValue); it answers \(list)")
            refusal.headers[.allow] = list
            throw refusal
        }
    }
}
