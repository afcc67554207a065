import Glibc
import Hummingbird
import Logging
import Testing
@testable import VitrineHTTP

/// The API server's bounds on connections, over real sockets: the cap, the
/// idle timeout (which is also the time a peer has for its headers), and the
/// body stall timeout. The limits are shortened; `ServerLimits()` has the real ones.
@Suite("API: connection limits", .serialized)
struct ConnectionLimitTests {
    static let limits = ServerLimits(maximumConnections: 8, idleTimeout: .milliseconds(1500), bodyStallTimeout: .milliseconds(1000))

    static func serve(_ harness: ServerHarness, limits: ServerLimits = limits) async throws -> (LoopbackServer, Int) {
        let server = try await LoopbackServer(serving: { reportPort in
            try APIServer.application(harness.api, token: ServerHarness.token, host: "127.0.0.1", port: 0, tls: nil,
                                      logger: Logger(label: "test"), limits: limits, onListening: reportPort)
        })
        return (server, try #require(server.port))
    }

    /// 30 idle sockets against a cap of 8: 22 are closed at once (within 8 s,
    /// where the idle timeout is 20 s; alone it is milliseconds), 8 are held; once they close, the API
    /// answers again well before the idle timeout, and /metrics has counted the 22.
    @Test func connectionsPastTheCapAreClosedAtOnceAndTheAPIAnswersAgainAfterwards() async throws {
        let harness = try ServerHarness()
        defer { harness.close() }
        // The whole cap for one address here: its share is PeerIsolationTests' subject.
        let (server, port) = try await Self.serve(harness, limits: ServerLimits(maximumConnections: 8, connectionsPerSource: 8,
                                                                                 idleTimeout: .seconds(20)))
        let (closedAtOnce, status) = try await RawHTTP.offPool {
            var sockets: [Int32] = []
            for _ in 0..<30 { sockets.append(try RawHTTP.connect(port: port)) }
            let closedAtOnce = RawHTTP.closed(among: sockets, within: 8000)
            for fd in sockets { close(fd) }
            let start = MonotonicMilliseconds.now()
            var status: Int?
            // 5 s against an idle timeout of 20 s: the slots were given back when the
            // sockets closed, not when the timeout would have ended them.
            while status != 200, MonotonicMilliseconds.now() - start < 5000 {
                status = try? RawHTTP.status(port: port, method: "GET", target: "/healthz")
            }
            return (closedAtOnce.count, status)
        }
        #expect(closedAtOnce == 22, "\(closedAtOnce) of 30 closed within 8 s")
        #expect(status == 200, "the API answers within 5 s of the sockets closing (the idle timeout is 20 s)")
        let metrics = try await RawHTTP.offPool { try RawHTTP.body(port: port, target: "/metrics") }
        // 22, and any /healthz tries made before the server had noticed the 8 close.
        let refused = metrics.split(separator: "\n").first { $0.hasPrefix("vitrine_api_connections_refused_total ") }
            .flatMap { Int($0.split(separator: " ")[1]) }
        #expect(refused.map { $0 >= 22 && $0 < 40 } == true, "\(metrics)")
        #expect(metrics.contains("\nvitrine_api_connections_limit 8\n"))
        await server.stop()
    }

    /// A connection that sends nothing, or only part of its headers, is closed after the idle timeout.
    @Test func idleAndSlowHeaderConnectionsAreClosedAfterTheIdleTimeout() async throws {
        let harness = try ServerHarness()
        defer { harness.close() }
        let (server, port) = try await Self.serve(harness)
        let (early, late, elapsed) = try await RawHTTP.offPool {
            let silent = try RawHTTP.connect(port: port)
            let slow = try RawHTTP.connect(port: port)
            defer { close(silent); close(slow) }
            RawHTTP.send(slow, "GET /api/v1/status HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            let start = MonotonicMilliseconds.now()
            let early = RawHTTP.closed(among: [silent, slow], within: 1000).count
            let late = RawHTTP.closed(among: [silent, slow], within: 6000).count
            return (early, late, MonotonicMilliseconds.now() - start)
        }
        #expect(early == 0, "not before the timeout")
        #expect(late == 2, "both closed after \(elapsed) ms")
        #expect(elapsed < 7000, "closed by the 1.5 s timeout, not by anything slower")
        await server.stop()
    }

    /// A request whose body stops arriving is cut off, and its handler does nothing.
    @Test func aStalledBodyIsCutOff() async throws {
        let harness = try ServerHarness()
        defer { harness.close() }
        let (server, port) = try await Self.serve(harness)
        let (answer, elapsed) = try await RawHTTP.offPool {
            let fd = try RawHTTP.connect(port: port, timeoutMs: 5000)
            defer { close(fd) }
            RawHTTP.send(fd, "POST /api/v1/control HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(ServerHarness.token)\r\n"
                         + "Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"command\":")
            let start = MonotonicMilliseconds.now()
            let answer = RawHTTP.readAll(fd)
            return (answer, MonotonicMilliseconds.now() - start)
        }
        #expect(answer.closed, "closed after \(elapsed) ms")
        #expect((800...3000).contains(elapsed), "\(elapsed) ms")
        #expect(!answer.text.hasPrefix("HTTP/1.1 2"), "\(answer.text)")
        await server.stop()
    }

    /// An upload is held in memory until it is stored: at most two are read at
    /// once, and a third is answered 503 with Retry-After before its body is
    /// read. Once one finishes, uploads go through again.
    @Test func atMostTwoUploadsAreReadAtOnce() async throws {
        let harness = try ServerHarness()
        defer { harness.close() }
        let (server, port) = try await Self.serve(harness)
        let picture = try ServerHarness.jpeg(ServerHarness.colors["red"]!)
        let (third, fourth) = try await RawHTTP.offPool {
            // Two uploads whose bodies stop half way: both hold their places.
            let held = try (0..<2).map { _ in try RawHTTP.connect(port: port, timeoutMs: 5000) }
            for fd in held {
                RawHTTP.send(fd, "POST /api/v1/assets HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(ServerHarness.token)\r\n"
                             + "Content-Type: image/jpeg\r\nContent-Length: 100000\r\n\r\n\u{FF}\u{D8}")
            }
            let deadline = MonotonicMilliseconds.now() + 3000
            while harness.api.pictures.uploads.current < 2, MonotonicMilliseconds.now() < deadline { usleep(10_000) }
            let request = "POST /api/v1/assets HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(ServerHarness.token)\r\n"
                + "Content-Type: image/jpeg\r\nContent-Length: \(picture.count)\r\nConnection: close\r\n\r\n"
            let fd = try RawHTTP.connect(port: port, timeoutMs: 5000)
            RawHTTP.send(fd, request)
            let third = RawHTTP.readAll(fd).text
            close(fd)
            for fd in held { close(fd) }
            // Their connections gone, the places come back.
            let freed = MonotonicMilliseconds.now() + 3000
            while harness.api.pictures.uploads.current > 0, MonotonicMilliseconds.now() < freed { usleep(10_000) }
            let again = try RawHTTP.connect(port: port, timeoutMs: 5000)
            defer { close(again) }
            RawHTTP.send(again, request)
            Glibc.send(again, picture, picture.count, Int32(MSG_NOSIGNAL))
            return (third, RawHTTP.readAll(again).text)
        }
        #expect(third.hasPrefix("HTTP/1.1 503"), "\(third)")
        #expect(third.lowercased().contains("retry-after: 1"), "\(third)")
        #expect(third.contains("2 uploads are being stored already"), "\(third)")
        #expect(fourth.hasPrefix("HTTP/1.1 201"), "\(fourth)")
        await server.stop()
    }

    @Test func theCapFollowsTheDescriptorLimit() {
        #expect(ServerLimits.connections(forDescriptorLimit: 1024) == 384)
        #expect(ServerLimits.connections(forDescriptorLimit: 4096) == 512)
        #expect(ServerLimits.connections(forDescriptorLimit: 256) == 16)
        #expect(ServerLimits.connections(forDescriptorLimit: 0) == 16)
    }
}
