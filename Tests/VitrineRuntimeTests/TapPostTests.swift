import Foundation
import Glibc
import Testing
import VitrineConfig
import VitrineCore
@testable import VitrineRuntime
import VitrineSystem

/// The tap action's HTTP POST against a real socket on loopback.
@Suite("Tap action POST")
struct TapPostTests {
    /// Listens on 127.0.0.1 on a free port; answers one request with `status` after `delay`.
    final class OneShotServer: @unchecked Sendable {
        let port: Int
        private let fd: Int32
        private(set) var request = ""
        private let done = DispatchSemaphore(value: 0)

        init(status: Int, delay: Double = 0) {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            address.sin_port = 0
            _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
            listen(fd, 1)
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
            self.fd = fd
            port = Int(UInt16(bigEndian: address.sin_port))
            Thread.detachNewThread { [self] in
                let client = accept(fd, nil, nil)
                var buffer = [UInt8](repeating: 0, count: 4096)
                var received: [UInt8] = []
                while !String(decoding: received, as: UTF8.self).contains("}") {
                    let count = recv(client, &buffer, buffer.count, 0)
                    if count <= 0 { break }
                    received += buffer.prefix(count)
                }
                self.request = String(decoding: received, as: UTF8.self)
                Thread.sleep(forTimeInterval: delay)
                let answer = "HTTP/1.1 \(status) X\r\nContent-Length: 0\r\n\r\n"
                _ = answer.withCString { send(client, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
                close(client)
                self.done.signal()
            }
        }

        func wait() { done.wait() }
        deinit { close(fd) }
    }

    @Test func postsTheTapAsJSONAndReadsTheStatus() async throws {
        let server = OneShotServer(status: 204)
        let body = Array(#"{"slide":2,"x":1.5,"y":3}"#.utf8)
        let status = try await HTTPPost.send(body, to: "http://127.0.0.1:\(server.port)/tap", timeout: .seconds(10), policy: .loopbackAllowed)
        server.wait()
        #expect(status == 204)
        #expect(server.request.hasPrefix("POST /tap HTTP/1.1\r\n"))
        #expect(server.request.lowercased().contains("content-type: application/json\r\n"))
        #expect(server.request.hasSuffix(#"{"slide":2,"x":1.5,"y":3}"#))
    }

    @Test func theTapReportIsItsFourKeysSorted() throws {
        let report = TapReport(slide: 2, x: 512.5, y: 300.25, time: "2026-11-22T07:30:00.123Z")
        let json = String(decoding: try JSONText.encode(report, [.sortedKeys]), as: UTF8.self)
        #expect(json == #"{"slide":2,"time":"2026-11-22T07:30:00.123Z","x":512.5,"y":300.25}"#)
        #expect(try JSONDecoder().decode(TapReport.self, from: Data(json.utf8)) == report)
    }

    @Test func aRefusedConnectionAndASlowServerAreErrorsNotHangs() async throws {
        // A port nobody listens on: find one by binding and closing.
        let probe = OneShotServer(status: 200)
        let closedPort = probe.port + 1
        await #expect(throws: (any Error).self) { try await HTTPPost.send([1], to: "http://127.0.0.1:\(closedPort)/", timeout: .seconds(1), policy: .loopbackAllowed) }
        // The answer comes 6 s late; the 300 ms timeout must end the wait long before it.
        // The bound is loose on purpose: CI machines are loaded, and what is tested is that
        // the timeout cuts the wait short, not how promptly the scheduler runs us.
        let slow = OneShotServer(status: 200, delay: 6)
        let start = MonotonicClock.now()
        await #expect(throws: (any Error).self) { try await HTTPPost.send(Array("{}".utf8), to: "http://127.0.0.1:\(slow.port)/", timeout: .milliseconds(300), policy: .loopbackAllowed) }
        #expect(MonotonicClock.now() - start < .seconds(4))
        slow.wait()
    }
}
