import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
import VitrineCore
import VitrinePNG
import VitrineYAML
@testable import VitrineAPI
@testable import VitrineHTTP

/// Where the server and docs/api/openapi.yaml must agree beyond statuses (what
/// Tests/API/schemathesis_test.sh found): the methods each path answers, and the
/// limits the spec states for what a request may carry.
@Suite("API: agreement with the spec")
struct SpecAgreementTests {
    static func spec() throws -> [String: Any] {
        try #require(try plainYAML(String(contentsOfFile: OpenAPIConformanceTests.specPath, encoding: .utf8)) as? [String: Any])
    }

    /// Every documented path, asked with each method it does not list, answers 405
    /// with exactly the spec's methods in `Allow`; unknown paths stay 404, and a
    /// request without a token under /api/ is still refused first.
    @Test func anUnlistedMethodOnADocumentedPathIs405WithTheSpecsMethodsInAllow() async throws {
        let paths = try #require(try Self.spec()["paths"] as? [String: [String: Any]])
        let harness = try ServerHarness()
        defer { harness.close() }
        let id = String(repeating: "ab", count: 32)
        let probes: [HTTPRequest.Method] = [.get, .put, .post, .delete, .patch, .options, .trace, .head, HTTPRequest.Method("QUERY")!]
        // What each path lists, worked out before the @Sendable test closure (the parsed spec is not Sendable).
        let operations = paths.sorted(by: { $0.key < $1.key }).map { path, item in
            (path, Set(["get", "put", "post", "delete", "patch", "options", "head", "trace"].filter { item[$0] != nil }.map { $0.uppercased() }))
        }
        let checked = try await harness.application().test(.router) { client in
            var checked = 0
            for (path, listed) in operations {
                #expect(!listed.isEmpty, "\(path) lists no operation")
                let uri = path.replacingOccurrences(of: "{id}", with: id)
                for method in probes where !listed.contains(method.rawValue) {
                    try await client.execute(uri: uri, method: method, headers: authorized()) { response in
                        #expect(response.status == .methodNotAllowed, "\(method) \(uri) answered \(response.status)")
                        #expect(response.headers[.allow] == listed.sorted().joined(separator: ", "), "\(method) \(uri)")
                        if method != .head {
                            #expect((json(response.body)["error"] as? String)?.contains("does not answer \(method.rawValue)") == true,
                                    "\(method) \(uri): \(String(buffer: response.body))")
                        }
                    }
                    checked += 1
                }
            }
            // Unknown paths: 404, whatever the method.
            for (method, uri) in [(HTTPRequest.Method.trace, "/nowhere"), (.get, "/api/v1/nothing"), (.patch, "/api/v1/assets/\(id)/more"),
                                  (.delete, "/console.js/x")] {
                try await client.execute(uri: uri, method: method, headers: authorized()) { response in
                    #expect(response.status == .notFound, "\(method) \(uri) answered \(response.status)")
                    #expect(response.headers[.allow] == nil)
                }
            }
            // No token: 401 before anything is said about methods; a trailing slash is the same path.
            try await client.execute(uri: "/api/v1/status", method: .trace) { #expect($0.status == .unauthorized) }
            try await client.execute(uri: "/api/v1/status/", method: .delete, headers: authorized()) { response in
                #expect(response.status == .methodNotAllowed)
                #expect(response.headers[.allow] == "GET")
            }
            // A listed method still works after all of that.
            try await client.execute(uri: "/api/v1/status", method: .get, headers: authorized()) { #expect($0.status == .ok) }
            return checked
        }
        #expect(checked >= 100, "\(checked) method probes")
    }

    /// An upload's `name` is accepted exactly when the spec's schema for it (length
    /// in code points, and its pattern) accepts it.
    /// A body JSON cannot carry is an error the middleware answers 500 and
    /// logs, never `{}` in its place.
    /// Each state-changing operation takes exactly the query parameters the
    /// spec lists for it (`KnownQueryKeys`), and no other route changes state.
    @Test func stateChangingRoutesTakeTheSpecsQueryParameters() throws {
        let spec = try Self.spec()
        let paths = try #require(spec["paths"] as? [String: [String: Any]])
        let shared = (spec["components"] as? [String: Any])?["parameters"] as? [String: [String: Any]] ?? [:]
        var documented: [String] = []
        for (path, operations) in paths {
            for (method, operation) in operations where ["post", "put", "delete", "patch"].contains(method) {
                let parameters = ((operation as? [String: Any])?["parameters"] as? [[String: Any]] ?? []).map { parameter in
                    (parameter["$ref"] as? String).flatMap { shared[String($0.split(separator: "/").last ?? "")] } ?? parameter
                }
                let query = Set(parameters.filter { $0["in"] as? String == "query" }.compactMap { $0["name"] as? String })
                let routerPath = RouterPath(path.replacingOccurrences(of: "{", with: ":").replacingOccurrences(of: "}", with: ""))
                let taken = KnownQueryKeys.keys(try #require(HTTPRequest.Method(method.uppercased())), routerPath)
                #expect(taken == query, "\(method.uppercased()) \(path): the spec lists \(query.sorted()), the server takes \(taken.sorted())")
                if !query.isEmpty { documented.append("\(method.uppercased()) \(path)") }
            }
        }
        #expect(documented.count == KnownQueryKeys.byRoute.count, "every route KnownQueryKeys lists is in the spec: \(documented)")
    }

    @Test func anAnswerThatCannotBeEncodedIsAnErrorNotAnEmptyObject() async throws {
        // JSON has no infinity.
        #expect(throws: EncodingFailure.self) { try JSONResponse.make(.ok, encoding: ["value": Double.infinity]) }
        let router = Router(context: APIRequestContext.self)
        router.middlewares.add(ErrorBodyMiddleware())
        router.get("/broken") { _, _ in try JSONResponse.make(.ok, encoding: ["value": Double.infinity]) }
        try await Application(router: router).test(.router) { client in
            try await client.execute(uri: "/broken", method: .get) { response in
                #expect(response.status == .internalServerError)
                #expect(String(buffer: response.body).contains("could not be encoded as JSON"))
            }
        }
    }

    @Test func uploadNamesFollowTheSpecsPatternAndLength() async throws {
        let paths = try #require(try Self.spec()["paths"] as? [String: [String: Any]])
        let post = try #require((paths["/api/v1/assets"]?["post"] as? [String: Any])?["parameters"] as? [[String: Any]])
        let schema = try #require(post.first { $0["name"] as? String == "name" }?["schema"] as? [String: Any])
        let pattern = try NSRegularExpression(pattern: try #require(schema["pattern"] as? String))
        let minLength = try #require(schema["minLength"] as? Int), maxLength = try #require(schema["maxLength"] as? Int)
        func specAccepts(_ name: String) -> Bool {
            let length = name.unicodeScalars.count
            return length >= minLength && length <= maxLength
                && pattern.firstMatch(in: name, range: NSRange(name.startIndex..., in: name)) != nil
        }
        let names = [
            "beach.jpg", ".hidden", "a.", "a.b.c", "é café.png", "日本.jpg", "x y z", String(repeating: "n", count: 255),
            String(repeating: "😀", count: 255), "\u{301}x",
            "", ".", "..", "a..b", "...", "a/b", "/", "a\\b", "tab\there", "nul\u{0}x", "del\u{7F}x", "c1\u{85}x", "ls\u{2028}x",
            "ps\u{2029}x", "cr\rx", "/\u{301}etc", ".\u{301}.", "a.\u{301}.b", String(repeating: "n", count: 256),
            String(repeating: "😀", count: 256),
        ]
        let harness = try ServerHarness()
        defer { harness.close() }
        let picture = try ServerHarness.jpeg(ServerHarness.colors["red"]!)
        let expectations = names.map { ($0, specAccepts($0)) }
        let accepted = expectations.filter(\.1).count, refused = expectations.count - accepted
        try await harness.application().test(.router) { client in
            for (name, expected) in expectations {
                let encoded = name.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
                let status = try await client.execute(uri: "/api/v1/assets?name=\(encoded)", method: .post, headers: authorized(),
                                                      body: ByteBuffer(bytes: picture)) { response in
                    if response.status == .unprocessableContent {
                        let issues = json(response.body)["issues"] as? [[String: Any]]
                        #expect(issues?.first?["path"] as? String == "name", "\(name.debugDescription)")
                    }
                    return response.status
                }
                #expect((status == .created || status == .ok) == expected && (expected || status == .unprocessableContent),
                        "name \(name.debugDescription): the spec \(expected ? "accepts" : "refuses") it, the server answered \(status)")
            }
        }
        #expect(accepted == 12 && refused == 18, "the spec's pattern accepted \(accepted) and refused \(refused)")
    }

    /// A picture over the configuration's `decode.maxPixels` is a conflict with that
    /// configuration (409), for an upload and for both thumbnails, never a 500.
    @Test func aPictureOverTheConfiguredPixelLimitIsAConflictNotAServerError() async throws {
        let harness = try ServerHarness()
        defer { harness.close() }
        let stored = try ServerHarness.jpeg(ServerHarness.colors["blue"]!)
        let id = ContentDigest.sha256(stored)
        try await harness.application().test(.router) { client in
            try await client.execute(uri: "/api/v1/assets", method: .post, headers: authorized(), body: ByteBuffer(bytes: stored)) {
                #expect($0.status == .created)
            }
            // 32x24 pictures; the limit becomes 100 pixels. A push naming a picture over
            // it is refused (ConfiguredPicturesTests): this one names none.
            try await client.execute(uri: "/api/v1/config", method: .put, headers: authorized([.contentType: "application/yaml"]),
                                     body: body("slides: []\ndecode: {maxPixels: 100}")) { #expect($0.status == .ok) }
            let png = try PNGCodec.encode(PixelImage(size: PixelSize(width: 20, height: 10), fill: ServerHarness.colors["green"]!))
            for (picture, kind) in [(try ServerHarness.jpeg(ServerHarness.colors["red"]!), "JPEG"), (png, "PNG")] {
                try await client.execute(uri: "/api/v1/assets?name=big", method: .post, headers: authorized(), body: ByteBuffer(bytes: picture)) { response in
                    #expect(response.status == .conflict, "\(kind)")
                    #expect((json(response.body)["error"] as? String)?.contains("decode.maxPixels") == true, "\(kind): \(String(buffer: response.body))")
                }
            }
            try await client.execute(uri: "/api/v1/assets/\(id)/thumbnail", method: .get, headers: authorized()) { response in
                #expect(response.status == .conflict, "\(String(buffer: response.body))")
                #expect((json(response.body)["error"] as? String)?.contains("over the limit of") == true)
            }
        }
        // A slide over the limit can only come from the local file (a push naming one is refused).
        let local = try ServerHarness(yaml: "slides: [red.jpg]\ninterval: 10m\ndecode: {maxPixels: 100}\n")
        defer { local.close() }
        try await local.application().test(.router) { client in
            try await client.execute(uri: "/api/v1/thumbnail?path=red.jpg", method: .get, headers: authorized()) { response in
                #expect(response.status == .conflict, "\(String(buffer: response.body))")
                #expect((json(response.body)["error"] as? String)?.contains("over the limit of") == true)
            }
        }
    }
}
