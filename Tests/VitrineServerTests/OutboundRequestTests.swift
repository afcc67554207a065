import AsyncHTTPClient
import Hummingbird
import Synchronization
import Testing
import VitrineCore
@testable import VitrineRuntime

/// The kiosk's own requests under the outbound policy, against a server on
/// loopback: loopback itself is refused unless allowed, every redirect hop is
/// judged again, redirects are bounded and followed for GET only.
@Suite("Outbound requests")
struct OutboundRequestTests {
    /// A server with a page, a redirect to it, a redirect to the cloud metadata
    /// address, a redirect to a file: URL, and an endless redirect loop.
    static func server() async throws -> (LoopbackServer, String) {
        let router = Router()
        router.get("/page") { _, _ in "page" }
        router.get("/to-page") { _, _ in Response(status: .found, headers: [.location: "/page"]) }
        router.get("/to-metadata") { _, _ in Response(status: .found, headers: [.location: "http://169.254.169.254/latest/meta-data/"]) }
        router.get("/to-file") { _, _ in Response(status: .temporaryRedirect, headers: [.location: "file:///etc/passwd"]) }
        router.get("/loop/:n") { _, context in
            let n = Int(context.parameters.get("n") ?? "0") ?? 0
            return Response(status: .found, headers: [.location: "/loop/\(n + 1)"])
        }
        router.post("/to-page") { _, _ in Response(status: .found, headers: [.location: "/page"]) }
        let server = try await LoopbackServer(router)
        return (server, "http://127.0.0.1:\(try #require(server.port))")
    }

    static func get(_ url: String, _ policy: OutboundPolicy) async throws -> (Int, String) {
        try await OutboundRequest.execute(HTTPClientRequest(url: url), policy: policy, timeout: .seconds(10)) { response in
            (Int(response.status.code), String(buffer: try await response.body.collect(upTo: 1024)))
        }
    }

    static func refusal(_ url: String, _ policy: OutboundPolicy) async -> String? {
        do {
            _ = try await get(url, policy)
            return nil
        } catch let refused as OutboundRequest.Refused {
            return refused.description
        } catch {
            return "not a refusal: \(error)"
        }
    }

    @Test func loopbackIsRefusedUnlessTheConfigurationAllowsIt() async throws {
        let (server, base) = try await Self.server()
        let refused = await Self.refusal(base + "/page", OutboundPolicy())
        let byName = await Self.refusal("http://localhost:\(base.split(separator: ":").last!)/page", OutboundPolicy())
        #expect(refused == "\(base)/page: 127.0.0.1 is 127.0.0.1, a loopback address is refused unless the local configuration's api.allowAddresses lists loopback")
        let allowed = try await Self.get(base + "/page", .loopbackAllowed)
        #expect(allowed == (200, "page"))
        // By name too: localhost resolves to loopback addresses only.
        #expect(byName?.contains("a loopback address is refused") == true, "\(byName ?? "allowed")")
        await server.stop()
    }

    @Test func everyRedirectHopIsJudgedAgain() async throws {
        let (server, base) = try await Self.server()
        let followed = try await Self.get(base + "/to-page", .loopbackAllowed)
        #expect(followed == (200, "page"), "an allowed hop is followed")
        let metadata = await Self.refusal(base + "/to-metadata", .loopbackAllowed)
        #expect(metadata
                == "http://169.254.169.254/latest/meta-data/: 169.254.169.254 is 169.254.169.254, a cloud metadata address is refused unless the local configuration's api.allowAddresses lists metadata")
        let file = await Self.refusal(base + "/to-file", .loopbackAllowed)
        #expect(file == "file:///etc/passwd: file: URLs are not fetched; only http and https are")
        let loop = await Self.refusal(base + "/loop/0", .loopbackAllowed)
        #expect(loop?.hasSuffix("more than 5 redirects") == true, "\(loop ?? "followed")")
        await server.stop()
    }

    @Test func aPostFollowsNoRedirect() async throws {
        let (server, base) = try await Self.server()
        var request = HTTPClientRequest(url: base + "/to-page")
        request.method = .POST
        let status = try await OutboundRequest.execute(request, policy: .loopbackAllowed, timeout: .seconds(10)) { Int($0.status.code) }
        #expect(status == 302)
        await server.stop()
    }

    @Test func onlyHTTPAndHTTPSAreFetched() async {
        for url in ["file:///etc/passwd", "ftp://example.com/x.jpg", "gopher://example.com/", "javascript:alert(1)", "/relative"] {
            let refusal = await Self.refusal(url, .loopbackAllowed)
            #expect(refusal != nil && refusal?.hasPrefix("not a refusal") == false, "\(url): \(refusal ?? "allowed")")
        }
    }

    @Test func locationsResolveAgainstTheURLTheyCameFrom() {
        #expect(OutboundRequest.resolve("/b", against: "http://h:8/a/c?q") == "http://h:8/b")
        #expect(OutboundRequest.resolve("d", against: "http://h:8/a/c?q") == "http://h:8/a/d")
        #expect(OutboundRequest.resolve("//other/x", against: "https://h/a") == "https://other/x")
        #expect(OutboundRequest.resolve("http://x/y", against: "https://h/a") == "http://x/y")
        #expect(OutboundRequest.resolve("file:///etc/passwd", against: "https://h/a") == "file:///etc/passwd")
    }
}
