import Hummingbird

/// The one list of routes that answer without the API token. Every other route
/// the server registers needs it, whatever spelling of its path reached it:
/// authentication is attached to the route when it is registered
/// (`RecordingRouter`), not decided from the request's raw path.
///
/// What is here tells nothing about the content and changes nothing:
/// - the web console's shell, which is also its sign-in page (the token is typed
///   there and kept in the browser), and its script and style sheet;
/// - the OpenAPI document, which is the same for every kiosk;
/// - `/healthz`, for watchdogs and load balancers;
/// - `/metrics`, so that Prometheus needs no secret: counters only, no pictures,
///   names or configuration (docs/threat-model.md). Without the token, both
///   number the outputs rather than name them (`MonitoringRoutes`).
enum PublicRoutes {
    static let list: [(method: HTTPRequest.Method, path: String)] = [
        (.get, "/"), (.get, "/console.js"), (.get, "/console.css"), (.get, "/openapi.yaml"),
        (.get, "/healthz"), (.get, "/metrics"),
    ]

    static func contains(_ method: HTTPRequest.Method, _ path: RouterPath) -> Bool {
        list.contains { $0.method == method && RouterPath($0.path) == path }
    }
}
