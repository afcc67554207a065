import Glibc
import Hummingbird
import Logging
import NIOCore
import Synchronization
import Testing
@testable import VitrineHTTP

/// No one peer can hold the API (issue 39, part 3), over real sockets: a
/// source's share of the connection cap, an answer before the body closes
/// its connection, the header deadline, and the body's minimum rate. The
/// limits are shortened; `ServerLimits()` has the real ones.
@Suite("API: one peer cannot hold the API", .serialized)
struct PeerIsolationTests {
    /// One address opens 20 idle sockets against a cap of 16: it keeps its share
    /// of 8, the other 12 are closed at once, and a second address is answered
    /// within a second meanwhile. Before the share, the first took all 16 and
    /// the second got no answer.
    @Test func oneSourceHoldsOnlyItsShareAndAnotherIsAnsweredMeanwhile() async throws {
        let harness = try ServerHarness()
        defer { harness.close() }
        let limits = ServerLimits(maximumConnections: 16, idleTimeout: .seconds(20))
        #expect(limits.connectionsPerSource == 8)
        let (server, port) = try await ConnectionLimitTests.serve(harness, limits: limits)
        let (closedAtOnce, other, otherMs, secondFromFirst) = try await RawHTTP.offPool {
            var sockets: [Int32] = []
            for _ in 0..<20 { sockets.append(try RawHTTP.connect(port: port)) }
            defer { for fd in sockets { close(fd) } }
            let closedAtOnce = RawHTTP.closed(among: sockets, within: 3000)
            let start = MonotonicMilliseconds.now()
            let other = try? RawHTTP.status(port: port, method: "GET", target: "/healthz", from: "127.0.0.2")
            let otherMs = MonotonicMilliseconds.now() - start
            let secondFromFirst = try? RawHTTP.status(port: port, method: "GET", target: "/healthz")
            return (closedAtOnce.count, other, otherMs, secondFromFirst)
        }
        #expect(closedAtOnce == 12, "\(closedAtOnce) of 20 closed at once")
        #expect(other == 200, "another address is answered while the first holds its share")
        // Among a thousand tests running at once on two cores, /healthz's display probe itself can take
        // seconds: this bound only shows the other address is answered, not shut out. The one-second
        // figure is Tests/Remote/isolation_test.py's, which runs alone.
        #expect(otherMs < 5000, "answered in \(otherMs) ms")
        #expect(secondFromFirst == nil, "the first address gets nothing more while it holds its share")
        // From the other address: the first one's sockets may not all be gone from the server yet.
        let metrics = try await RawHTTP.offPool { try RawHTTP.body(port: port, target: "/metrics", from: "127.0.0.2") }
        #expect(metrics.contains("\nvitrine_api_connections_per_source_limit 8\n"), "\(metrics)")
        await server.stop()
    }

    @Test func anIPv6SourceIsItsSlash64AndAMappedIPv4AddressIsItself() throws {
        let first = try SocketAddress(ipAddress: "2001:db8:1:2::1", port: 1)
        let second = try SocketAddress(ipAddress: "2001:db8:1:2:ffff:eeee:dddd:cccc", port: 2)
        let otherNet = try SocketAddress(ipAddress: "2001:db8:1:3::1", port: 1)
        #expect(SourceAddressGroup.key(first) == "2001:db8:1:2::/64")
        #expect(SourceAddressGroup.key(first) == SourceAddressGroup.key(second))
        #expect(SourceAddressGroup.key(first) != SourceAddressGroup.key(otherNet))
        #expect(SourceAddressGroup.key(try SocketAddress(ipAddress: "::ffff:192.0.2.7", port: 1)) == "192.0.2.7")
        #expect(SourceAddressGroup.key(try SocketAddress(ipAddress: "192.0.2.7", port: 1)) == "192.0.2.7")
        #expect(SourceAddressGroup.key(nil) == "local")
    }

    @Test func aSourceGetsAQuarterOfTheCapAtLeastEightAtMostHalf() throws {
        #expect(ServerLimits.share(of: 384) == 96)
        #expect(ServerLimits.share(of: 512) == 128)
        #expect(ServerLimits.share(of: 22) == 8)
        #expect(ServerLimits.share(of: 16) == 8)
        #expect(ServerLimits.share(of: 8) == 4)
        let limiter = ConnectionLimiter(limit: 3, limitPerSource: 2, guaranteedPerSource: 0)
        let a = limiter.acquire(source: "a", close: {})
        #expect(a != nil && limiter.acquire(source: "a", close: {}) != nil)
        #expect(limiter.acquire(source: "a", close: {}) == nil, "a holds its share")
        #expect(limiter.acquire(source: "b", close: {}) != nil)
        #expect(limiter.acquire(source: "c", close: {}) == nil, "the cap is full")
        limiter.release(try #require(a))
        #expect(limiter.acquire(source: "c", close: {}) != nil)
        #expect(limiter.snapshot == .init(open: 3, limit: 3, limitPerSource: 2, refused: 2, refusedForShare: 1, evicted: 0))
    }

    /// With the cap full, a source holding fewer than its guarantee gets a place:
    /// the oldest connection of the source holding the most is closed for it.
    /// Sources at their guarantee, or only above it, take none from each other.
    @Test func aFullCapMakesRoomForASourceBelowItsGuarantee() throws {
        let closed = Mutex<[String]>([])
        let limiter = ConnectionLimiter(limit: 6, limitPerSource: 4, guaranteedPerSource: 1)
        var places: [String: ConnectionLimiter.Place] = [:]
        for name in ["a1", "a2", "a3", "b1", "b2", "c1"] {
            places[name] = limiter.acquire(source: String(name.prefix(1)), close: { closed.withLock { $0.append(name) } })
        }
        #expect(places.count == 6 && limiter.snapshot.open == 6)
        #expect(limiter.acquire(source: "d", close: {}) != nil)
        #expect(closed.withLock { $0 } == ["a1"], "the oldest of the source holding the most")
        #expect(limiter.acquire(source: "d", close: {}) == nil, "d has its guarantee: the cap refuses it")
        #expect(limiter.acquire(source: "b", close: {}) == nil, "b is above its guarantee")
        limiter.release(try #require(places["a1"]))
        #expect(limiter.snapshot.open == 6, "the evicted connection's place was given away already")
        #expect(limiter.snapshot.evicted == 1 && limiter.snapshot.refused == 2)
    }

    /// Two addresses hold their whole shares and so fill the cap: a third still gets an answer.
    @Test func aThirdSourceIsAnsweredWhenTwoFillTheCap() async throws {
        let harness = try ServerHarness()
        defer { harness.close() }
        let (server, port) = try await ConnectionLimitTests.serve(harness, limits: ServerLimits(maximumConnections: 16, idleTimeout: .seconds(20)))
        let (third, closedForIt) = try await RawHTTP.offPool {
            var sockets: [Int32] = []
            for source in ["127.0.0.1", "127.0.0.2"] {
                for _ in 0..<8 { sockets.append(try RawHTTP.connect(port: port, from: source)) }
            }
            defer { for fd in sockets { close(fd) } }
            usleep(300_000)
            let third = try? RawHTTP.status(port: port, method: "GET", target: "/healthz", from: "127.0.0.3")
            return (third, RawHTTP.closed(among: sockets, within: 1000).count)
        }
        #expect(third == 200, "the third address is answered")
        #expect(closedForIt == 1, "one connection of the first two was closed for it")
        await server.stop()
    }

    static let shortLimits: ServerLimits = {
        var limits = ServerLimits(maximumConnections: 16, idleTimeout: .milliseconds(5000), headerDeadline: .milliseconds(1000),
                                  bodyStallTimeout: .milliseconds(1000))
        limits.lingerAfterUnreadBody = .milliseconds(500)
        limits.minimumBodyBytesPerSecond = 2048
        limits.bodyRateGrace = .milliseconds(500)
        limits.bodyRateWindow = .milliseconds(500)
        return limits
    }()

    /// A 401 to a request whose large body has not arrived carries
    /// `Connection: close`, and the connection closes after it, however the body
    /// trickles. Before, the kiosk kept reading the body to reach the next
    /// request, and each byte kept the connection for another timeout.
    @Test func anAnswerBeforeTheBodyClosesTheConnection() async throws {
        let harness = try ServerHarness()
        defer { harness.close() }
        let (server, port) = try await ConnectionLimitTests.serve(harness, limits: Self.shortLimits)
        let (trickled, trickledFor, whole) = try await RawHTTP.offPool {
            let fd = try RawHTTP.connect(port: port, timeoutMs: 200)
            defer { close(fd) }
            RawHTTP.send(fd, "POST /api/v1/control HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                         + "Content-Length: 100000\r\n\r\n{")
            let start = MonotonicMilliseconds.now()
            var answer = ""
            var closed = false
            // A byte every 150 ms, under every timeout, for up to 4 s.
            while !closed, MonotonicMilliseconds.now() - start < 4000 {
                RawHTTP.send(fd, " ")
                let read = RawHTTP.readAll(fd)
                answer += read.text
                closed = read.closed
            }
            let trickledFor = MonotonicMilliseconds.now() - start
            // A 4 MB body sent at once, more than the server buffers before it answers: the 401 is read
            // whole, not lost to a reset, although the connection closes with body bytes still arriving.
            let whole = try RawHTTP.connect(port: port, timeoutMs: 3000)
            defer { close(whole) }
            RawHTTP.send(whole, "POST /api/v1/control HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                         + "Content-Length: 4000000\r\n\r\n" + String(repeating: " ", count: 4_000_000))
            return ((answer, closed), trickledFor, RawHTTP.readAll(whole))
        }
        #expect(trickled.0.hasPrefix("HTTP/1.1 401"), "\(trickled.0)")
        #expect(trickled.0.lowercased().contains("connection: close"), "\(trickled.0)")
        #expect(trickled.1, "closed after \(trickledFor) ms of trickling")
        #expect(trickledFor < 2000, "closed within the linger of 500 ms, not after \(trickledFor) ms")
        #expect(whole.text.hasPrefix("HTTP/1.1 401"), "\(whole.text.prefix(200))")
        await server.stop()
    }

    /// Headers sent a byte at a time are cut off one header deadline (1 s)
    /// after their first byte, although every byte comes well within the idle
    /// timeout (5 s); a connection idle between requests for longer than the
    /// header deadline is still served.
    @Test func headersHaveADeadlineFromTheirFirstByte() async throws {
        let harness = try ServerHarness()
        defer { harness.close() }
        let (server, port) = try await ConnectionLimitTests.serve(harness, limits: Self.shortLimits)
        let (closedAfter, second) = try await RawHTTP.offPool {
            let fd = try RawHTTP.connect(port: port)
            defer { close(fd) }
            let header = Array("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Padding: " + String(repeating: "a", count: 200))
            let start = MonotonicMilliseconds.now()
            var closedAfter: Int?
            for byte in header {
                RawHTTP.send(fd, String(byte))
                if !RawHTTP.closed(among: [fd], within: 150).isEmpty {
                    closedAfter = MonotonicMilliseconds.now() - start
                    break
                }
            }
            let kept = try RawHTTP.connect(port: port, timeoutMs: 3000)
            defer { close(kept) }
            RawHTTP.send(kept, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            usleep(1_500_000)
            RawHTTP.send(kept, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            let answers = RawHTTP.readAll(kept).text
            return (closedAfter, answers.components(separatedBy: "HTTP/1.1 200").count - 1)
        }
        #expect(closedAfter.map { (800...2500).contains($0) } == true, "closed after \(closedAfter.map(String.init) ?? "never") ms")
        #expect(second == 2, "a request 1.5 s after the last one is still answered")
        await server.stop()
    }

    /// A body trickled at 200 B/s, a chunk every 100 ms (well within the stall
    /// timeout), is cut off once its first window after the grace ends (about
    /// 1 s); a body sent steadily at 6 KiB/s, faster than the 2 KiB/s floor, completes.
    @Test func aTrickledBodyIsCutOffAndASteadySlowOneCompletes() async throws {
        let harness = try ServerHarness()
        defer { harness.close() }
        let (server, port) = try await ConnectionLimitTests.serve(harness, limits: Self.shortLimits)
        let (trickleClosedAfter, steady) = try await RawHTTP.offPool {
            let head = "POST /api/v1/control HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(ServerHarness.token)\r\n"
                + "Content-Type: application/json\r\nContent-Length: 12306\r\n\r\n"
            let padding = String(repeating: " ", count: 12288)
            let trickle = try RawHTTP.connect(port: port)
            defer { close(trickle) }
            RawHTTP.send(trickle, head)
            let start = MonotonicMilliseconds.now()
            var trickleClosedAfter: Int?
            for offset in stride(from: 0, to: padding.count, by: 20) {
                RawHTTP.send(trickle, String(repeating: " ", count: min(20, padding.count - offset)))
                if !RawHTTP.closed(among: [trickle], within: 100).isEmpty {
                    trickleClosedAfter = MonotonicMilliseconds.now() - start
                    break
                }
            }
            let steady = try RawHTTP.connect(port: port, timeoutMs: 5000)
            defer { close(steady) }
            RawHTTP.send(steady, head)
            for _ in 0..<12 {
                RawHTTP.send(steady, String(repeating: " ", count: 1024))
                usleep(166_000)
            }
            RawHTTP.send(steady, #"{"command":"next"}"#)
            return (trickleClosedAfter, RawHTTP.readAll(steady).text)
        }
        #expect(trickleClosedAfter.map { (800...2500).contains($0) } == true,
                "closed after \(trickleClosedAfter.map(String.init) ?? "never") ms")
        #expect(steady.hasPrefix("HTTP/1.1 2"), "\(steady.prefix(300))")
        await server.stop()
    }
}

/// `BodyRate` on virtual time: bytes in the grace buy nothing, and every
/// window after it must bring the rate times the window.
@Suite("API: a body's minimum rate")
struct BodyRateTests {
    @Test func eachWindowAfterTheGraceMustBringTheMinimum() {
        var rate = BodyRate(minimumBytesPerSecond: 1024, window: .seconds(10), grace: .seconds(10))
        #expect(rate.minimumBytesPerWindow == 10_240)
        rate.received(1_000_000, at: .seconds(1))
        let early = rate.keepsPace(at: .seconds(15))
        #expect(early, "the first window is not over")
        rate.received(5_000, at: .seconds(12))
        rate.received(5_240, at: .seconds(19))
        let first = rate.keepsPace(at: .seconds(20))
        #expect(first, "10 KiB in the first window after the grace")
        rate.received(10_239, at: .seconds(25))
        let second = rate.keepsPace(at: .seconds(30))
        #expect(!second, "a byte short, although a megabyte came in the grace")
    }

    @Test func aByteEveryFewSecondsFailsItsFirstWindow() {
        var rate = BodyRate(ServerLimits(maximumConnections: 16))
        var failedAt: Duration?
        for second in 1...120 {
            if second % 3 == 0 { rate.received(1, at: .seconds(second)) }
            if !rate.keepsPace(at: .seconds(second)) {
                failedAt = .seconds(second)
                break
            }
        }
        #expect(failedAt == .seconds(20), "grace 10 s + window 10 s")
    }
}
