import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import Testing
import VitrineCore
import VitrineYAML
@testable import VitrineHTTP

@Suite("API: bearer authentication")
struct AuthenticationTests {
    /// Spellings of one path that a router might take for it: doubled and
    /// leading slashes, dot segments, percent-encoded letters and slashes, a
    /// trailing slash, upper case, a query string. Each must reach the route
    /// behind its token, or no route at all; never the handler without it.
    static func spellings(of path: String) -> [String] {
        let inner = path.dropFirst()
        var spellings = [
            path, "/" + path, "//" + path, "/." + path, "/./" + inner, "/api/../" + inner, "/x/.." + path, path + "/", path + "//",
            path + "?x=1", path + "/?x=1", path + "?", path.uppercased(), path.replacingOccurrences(of: "/", with: "//"),
            path.replacingOccurrences(of: "/", with: "/./"), path.replacingOccurrences(of: "/", with: "%2F"),
            "/" + inner.replacingOccurrences(of: "/", with: "%2f"), path.replacingOccurrences(of: "/", with: "\\"), path + ";x", path + "%00",
            path + "#x",
        ]
        // Each letter percent-encoded, once at a time in the first segment, and all of them at once.
        if let first = inner.split(separator: "/").first, let letter = first.first {
            let encoded = "%" + String(letter.asciiValue!, radix: 16, uppercase: true)
            spellings.append("/" + encoded + inner.dropFirst())
            spellings.append("/" + inner.map { $0 == "/" ? "/" : "%" + String($0.asciiValue!, radix: 16) }.joined())
        }
        return spellings
    }

    /// Turns a route template (`/api/v1/assets/:id`, or the spec's `{id}`) into a path to ask.
    static func concrete(_ template: String) -> String {
        let id = String(repeating: "ab", count: 32)
        return "/" + template.split(separator: "/").map { segment in
            segment.hasPrefix(":") || segment.hasPrefix("{") ? id : String(segment)
        }.joined(separator: "/")
    }

    /// Every route the router registered, asked without a token by every
    /// spelling, each on its own connection to a real socket (so the request
    /// target reaches the server byte for byte): a public one answers, anything
    /// else is 401, or 404 where the spelling matches no route, or 400 (or a
    /// closed connection) where the HTTP parser cannot read the request line.
    /// Hummingbird's own list of routes is walked, not ours, so a route added
    /// past `RecordingRouter` would be caught.
    @Test func everyRegisteredRouteIsPublicOrNeedsTheToken() async throws {
        let harness = try ServerHarness()
        defer { harness.close() }
        let (router, table) = APIServer.routesAndTable(harness.api, authenticator: APIAuthenticator(token: ServerHarness.token))
        let routes = router.routes.map { (method: $0.method, path: $0.path.description) }
        #expect(routes.count == table.all.count, "every route went through RecordingRouter")
        #expect(routes.count >= 20, "\(routes.count) routes")
        let publicRoutes = Set(PublicRoutes.list.map { "\($0.method) \($0.path)" })
        #expect(Set(routes.filter { publicRoutes.contains("\($0.method) \($0.path)") }.map { "\($0.method) \($0.path)" }) == publicRoutes,
                "every public route is registered")
        let server = try await LoopbackServer(router)
        let port = try #require(server.port)
        // A body, so that a handler that ran would not fail for want of one.
        let body = #"{"command":"pause"}"#
        let answers = try await RawHTTP.offPool {
            var answers: [(request: String, status: Int?, isPublic: Bool, plain: Bool)] = []
            for route in routes {
                let path = Self.concrete(route.path)
                if publicRoutes.contains("\(route.method) \(route.path)") {
                    answers.append(("\(route.method) \(path)", try RawHTTP.status(port: port, method: route.method.rawValue, target: path), true, true))
                    continue
                }
                for spelling in Self.spellings(of: path) {
                    let status = try RawHTTP.status(port: port, method: route.method.rawValue, target: spelling, body: body)
                    answers.append(("\(route.method) \(spelling)", status, false, spelling == path))
                }
            }
            return answers
        }
        for answer in answers {
            if answer.isPublic {
                #expect(answer.status == 200, "\(answer.request) is public")
            } else if answer.plain {
                // The plain spelling is the route itself: exactly 401.
                #expect(answer.status == 401, "\(answer.request)")
            } else {
                #expect(answer.status == nil || [401, 404, 400].contains(answer.status!),
                        "\(answer.request) without a token answered \(answer.status!)")
            }
        }
        let asked = answers.count
        await server.stop()
        #expect(asked > 400, "\(asked) requests")
        // Nothing got through: the kiosk still plays, no asset was stored.
        #expect(harness.api.link.status.pausedBecause.isEmpty)
        #expect(harness.store.assets.list().isEmpty)
    }

    /// The same through Hummingbird's test router, where the URI reaches the router unparsed.
    @Test func everyRegisteredRouteNeedsTheTokenThroughTheTestRouter() async throws {
        let harness = try ServerHarness()
        defer { harness.close() }
        let router = APIServer.routesAndTable(harness.api, authenticator: APIAuthenticator(token: ServerHarness.token)).router
        let routes = router.routes.filter { route in !PublicRoutes.list.contains { $0.method == route.method && RouterPath($0.path) == route.path } }
            .map { (method: $0.method, path: $0.path.description) }
        let application = Application(router: router)
        try await application.test(.router) { client in
            for route in routes {
                for spelling in Self.spellings(of: Self.concrete(route.path)) {
                    try await client.execute(uri: spelling, method: route.method, headers: [.contentType: "application/json"],
                                             body: ByteBuffer(string: #"{"command":"pause"}"#)) { response in
                        #expect([.unauthorized, .notFound].contains(response.status), "\(route.method) \(spelling): \(response.status)")
                    }
                }
            }
        }
        #expect(harness.api.link.status.pausedBecause.isEmpty)
    }

    /// Every operation in docs/api/openapi.yaml: one with `security` answers 401
    /// without a token; one without it is on `PublicRoutes.list`, and answers.
    @Test func everyDocumentedOperationIsPublicExactlyWhenTheSpecSaysSo() async throws {
        let spec = try #require(try plainYAML(String(contentsOfFile: OpenAPIConformanceTests.specPath, encoding: .utf8)) as? [String: Any])
        let paths = try #require(spec["paths"] as? [String: [String: Any]])
        var operations: [(method: HTTPRequest.Method, path: String, secured: Bool)] = []
        for (path, item) in paths.sorted(by: { $0.key < $1.key }) {
            for method in ["get", "put", "post", "delete", "patch"] {
                guard let operation = item[method] as? [String: Any] else { continue }
                operations.append((HTTPRequest.Method(rawValue: method.uppercased())!, path, operation["security"] != nil))
            }
        }
        #expect(operations.count >= 20)
        let documented = operations
        let harness = try ServerHarness()
        defer { harness.close() }
        try await harness.application().test(.router) { client in
            for operation in documented {
                let isPublic = PublicRoutes.list.contains { $0.method == operation.method && $0.path == operation.path }
                #expect(isPublic == !operation.secured, "\(operation.method) \(operation.path): the spec and PublicRoutes disagree")
                try await client.execute(uri: Self.concrete(operation.path), method: operation.method) { response in
                    if operation.secured {
                        #expect(response.status == .unauthorized, "\(operation.method) \(operation.path)")
                    } else {
                        #expect(response.status == .ok, "\(operation.method) \(operation.path)")
                    }
                }
            }
        }
    }

    @Test func theTokenIsCheckedAndItsMessagesSayWhatIsWrong() async throws {
        let harness = try ServerHarness()
        defer { harness.close() }
        try await harness.application().test(.live) { client in
            for (method, uri) in [(HTTPRequest.Method.get, "/api/v1/status"), (.get, "/api/v1/config"), (.put, "/api/v1/config"),
                                  (.post, "/api/v1/assets"), (.get, "/api/v1/screenshot"), (.post, "/api/v1/control"),
                                  (.get, "/api/v1/events")] {
                try await client.execute(uri: uri, method: method) { response in
                    #expect(response.status == .unauthorized, "\(method) \(uri)")
                    #expect(response.headers[.wwwAuthenticate] == #"Bearer realm="vitrine""#)
                    #expect(json(response.body)["error"] as? String == "an Authorization: Bearer <token> header is required")
                }
            }
            // A path no route has is 404 to everyone: there is nothing behind it to protect.
            try await client.execute(uri: "/api/v1/no-such-route", method: .get) { #expect($0.status == .notFound) }
            let wrong: [(String, String)] = [
                ("Bearer wrong-token-0123456789", "the token is not valid"),
                ("Bearer \(ServerHarness.token)x", "the token is not valid"),
                ("Bearer " + ServerHarness.token.dropLast(), "the token is not valid"),
                ("Basic dXNlcjpwYXNz", "the Authorization header must be Bearer <token>"),
                ("Bearer", "the Authorization header must be Bearer <token>"),
                (ServerHarness.token, "the Authorization header must be Bearer <token>"),
            ]
            for (header, message) in wrong {
                try await client.execute(uri: "//api/v1/status", method: .get, headers: [.authorization: header]) { response in
                    #expect(response.status == .unauthorized, "\(header)")
                    #expect(json(response.body)["error"] as? String == message, "\(header)")
                }
            }
            try await client.execute(uri: "/api/v1/status", method: .get, headers: [.authorization: "bearer \(ServerHarness.token)"]) {
                #expect($0.status == .ok, "the scheme is case-insensitive (RFC 7235)")
            }
            try await client.execute(uri: "//api/v1/status", method: .get, headers: authorized()) {
                #expect($0.status == .ok, "another spelling of a route, with the token, is that route")
            }
        }
    }

    @Test func theConsoleSpecMetricsAndHealthNeedNoToken() async throws {
        let harness = try ServerHarness()
        defer { harness.close() }
        try await harness.application().test(.router) { client in
            for (uri, type) in [("/", "text/html; charset=utf-8"), ("/console.js", "text/javascript; charset=utf-8"),
                                ("/console.css", "text/css; charset=utf-8"), ("/openapi.yaml", "application/yaml; charset=utf-8"),
                                ("/metrics", "text/plain; version=0.0.4; charset=utf-8"), ("/healthz", "application/json")] {
                try await client.execute(uri: uri, method: .get) { response in
                    #expect(response.status == .ok, "\(uri)")
                    #expect(response.headers[.contentType] == type, "\(uri)")
                    #expect(response.body.readableBytes > 0, "\(uri)")
                }
            }
        }
    }

    /// Every answer, an error's included, tells browsers not to sniff, frame or refer.
    @Test func everyAnswerCarriesTheBrowserSecurityHeaders() async throws {
        let harness = try ServerHarness()
        defer { harness.close() }
        try await harness.application().test(.router) { client in
            for (uri, headers) in [("/", HTTPFields()), ("/console.js", [:]), ("/api/v1/status", [:]), ("/api/v1/status", authorized()),
                                   ("/nowhere", [:])] {
                try await client.execute(uri: uri, method: .get, headers: headers) { response in
                    #expect(response.headers[.xContentTypeOptions] == "nosniff", "\(uri)")
                    #expect(response.headers[HTTPField.Name("X-Frame-Options")!] == "DENY", "\(uri)")
                    #expect(response.headers[HTTPField.Name("Referrer-Policy")!] == "no-referrer", "\(uri)")
                    let policy = response.headers[.contentSecurityPolicy] ?? ""
                    #expect(policy.contains("frame-ancestors 'none'") && policy.contains("default-src 'none'")
                            && policy.contains("script-src 'self'") && !policy.contains("unsafe"), "\(uri): \(policy)")
                }
            }
        }
    }

    /// Ten failures from one address are answered 401; the eleventh, and even a
    /// right token right after, is 429 with Retry-After, without the token being
    /// looked at. /metrics counts both. Over a real socket, with loopback treated
    /// as the remote peer it stands in for.
    @Test func repeatedFailuresFromOneAddressAreSlowedDownAndCounted() async throws {
        let harness = try ServerHarness()
        defer { harness.close() }
        // Virtual time that stands still, so that a slow machine's seconds do not refill the burst.
        let authenticator = APIAuthenticator(token: ServerHarness.token, clock: { .seconds(1000) }, exempt: { _ in false })
        let router = APIServer.routesAndTable(harness.api, authenticator: authenticator).router
        let application = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await application.test(.live) { client in
            for attempt in 1...10 {
                try await client.execute(uri: "/api/v1/status", method: .get, headers: [.authorization: "Bearer guess-\(attempt)"]) {
                    #expect($0.status == .unauthorized, "attempt \(attempt)")
                }
            }
            for headers in [[.authorization: "Bearer guess-11"], authorized()] as [HTTPFields] {
                try await client.execute(uri: "/api/v1/status", method: .get, headers: headers) { response in
                    #expect(response.status == .tooManyRequests)
                    let retryAfter = try #require(response.headers[.retryAfter].flatMap { Int($0) })
                    #expect(retryAfter == 6, "Retry-After: \(retryAfter)")
                    #expect((json(response.body)["error"] as? String)?.contains("too many failed authentications") == true)
                }
            }
            try await client.execute(uri: "/metrics", method: .get) { response in
                let text = String(buffer: response.body)
                #expect(text.contains("\nvitrine_api_auth_failures_total 10\n"), "\(text)")
                #expect(text.contains("\nvitrine_api_auth_throttled_total 2\n"), "\(text)")
            }
            // The public routes stay open to a throttled address.
            try await client.execute(uri: "/healthz", method: .get) { #expect($0.status == .ok) }
        }
    }

    @Test func loopbackPeersAreCountedButNeverThrottled() async throws {
        let harness = try ServerHarness()
        defer { harness.close() }
        try await harness.application().test(.live) { client in
            for attempt in 1...15 {
                try await client.execute(uri: "/api/v1/status", method: .get, headers: [.authorization: "Bearer guess-\(attempt)"]) {
                    #expect($0.status == .unauthorized, "attempt \(attempt)")
                }
            }
            try await client.execute(uri: "/api/v1/status", method: .get, headers: authorized()) { #expect($0.status == .ok) }
            try await client.execute(uri: "/metrics", method: .get) { response in
                #expect(String(buffer: response.body).contains("\nvitrine_api_auth_failures_total 15\n"))
            }
        }
    }

    @Test func theComparisonLooksAtEveryByte() {
        let expected = SHA256.hash(data: Array("abcdefghijklmnop".utf8))
        #expect(APIAuthenticator.matches("abcdefghijklmnop", expected))
        #expect(!APIAuthenticator.matches("abcdefghijklmnoq", expected))
        #expect(!APIAuthenticator.matches("bbcdefghijklmnop", expected))
        #expect(!APIAuthenticator.matches("", expected))
        #expect(!APIAuthenticator.matches("abcdefghijklmnopq", expected))
    }
}
