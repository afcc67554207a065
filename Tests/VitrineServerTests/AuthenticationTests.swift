import Crypto
import Hummingbird
import HummingbirdTesting
import Testing
@testable import VitrineServer

@Suite("API: bearer authentication")
struct AuthenticationTests {
    @Test func everyAPIPathNeedsTheToken() async throws {
        let harness = try ServerHarness()
        defer { harness.close() }
        try await harness.application().test(.router) { client in
            for (method, uri) in [(HTTPRequest.Method.get, "/api/v1/status"), (.get, "/api/v1/config"), (.put, "/api/v1/config"),
                                  (.post, "/api/v1/assets"), (.get, "/api/v1/screenshot"), (.post, "/api/v1/control"),
                                  (.get, "/api/v1/events"), (.get, "/api/v1/no-such-route")] {
                try await client.execute(uri: uri, method: method) { response in
                    #expect(response.status == .unauthorized, "\(method) \(uri)")
                    #expect(response.headers[.wwwAuthenticate] == #"Bearer realm="vitrine""#)
                    #expect(json(response.body)["error"] as? String == "an Authorization: Bearer <token> header is required")
                }
            }
            let wrong: [(String, String)] = [
                ("Bearer wrong-token-0123456789", "the token is not valid"),
                ("Bearer \(ServerHarness.token)x", "the token is not valid"),
                ("Bearer " + ServerHarness.token.dropLast(), "the token is not valid"),
                ("Basic dXNlcjpwYXNz", "the Authorization header must be Bearer <token>"),
                ("Bearer", "the Authorization header must be Bearer <token>"),
                (ServerHarness.token, "the Authorization header must be Bearer <token>"),
            ]
            for (header, message) in wrong {
                try await client.execute(uri: "/api/v1/status", method: .get, headers: [.authorization: header]) { response in
                    #expect(response.status == .unauthorized, "\(header)")
                    #expect(json(response.body)["error"] as? String == message, "\(header)")
                }
            }
            try await client.execute(uri: "/api/v1/status", method: .get, headers: [.authorization: "bearer \(ServerHarness.token)"]) {
                #expect($0.status == .ok, "the scheme is case-insensitive (RFC 7235)")
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

    @Test func theComparisonLooksAtEveryByte() {
        let expected = SHA256.hash(data: Array("abcdefghijklmnop".utf8))
        #expect(BearerAuthentication<BasicRequestContext>.matches("abcdefghijklmnop", expected))
        #expect(!BearerAuthentication<BasicRequestContext>.matches("abcdefghijklmnoq", expected))
        #expect(!BearerAuthentication<BasicRequestContext>.matches("bbcdefghijklmnop", expected))
        #expect(!BearerAuthentication<BasicRequestContext>.matches("", expected))
        #expect(!BearerAuthentication<BasicRequestContext>.matches("abcdefghijklmnopq", expected))
    }
}
