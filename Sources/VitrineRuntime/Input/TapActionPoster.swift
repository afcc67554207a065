import Dispatch
import Foundation
import Glibc
import Logging
import VitrineCore

/// Sends tap reports, `{"slide": 2, "x": 512.0, "y": 300.5, "time": "2026-11-22T07:30:00.123Z"}`,
/// as HTTP POSTs from a queue of their own, so a slow or dead endpoint can
/// never hold up the display thread. Failures are logged and the report dropped.
public final class TapActionPoster: Sendable {
    private let queue = DispatchQueue(label: "vitrine.tap-post", qos: .utility)
    private let logger: Logger

    public init(logger: Logger) {
        self.logger = logger
    }

    public func post(slide: Int, point: TouchPoint, to url: String, timeout: Duration) {
        let body: [String: Any] = [
            "slide": slide, "x": point.x, "y": point.y,
            "time": ISO8601DateFormatter.withMilliseconds.string(from: Date()),
        ]
        guard let json = try? JSONSerialization.data(withJSONObject: body, options: [.sortedKeys]) else { return }
        let logger = self.logger
        queue.async {
            do {
                let status = try HTTPPost.send(Array(json), to: url, timeout: timeout)
                if !(200..<300).contains(status) {
                    logger.warning("tap action POST \(url) answered HTTP \(status)")
                }
            } catch {
                logger.warning("tap action POST \(url) failed: \(error)")
            }
        }
    }
}

extension ISO8601DateFormatter {
    static var withMilliseconds: ISO8601DateFormatter {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter
    }
}

/// A minimal HTTP/1.1 POST over a plain socket: resolve, connect, send, read
/// the status line, each bounded by one overall deadline.
enum HTTPPost {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    static func send(_ body: [UInt8], to url: String, timeout: Duration) throws -> Int {
        guard url.hasPrefix("http://") else { throw Failure(description: "only http:// URLs are supported") }
        let rest = url.dropFirst(7)
        let authority = rest.prefix { $0 != "/" }
        let path = rest.dropFirst(authority.count).isEmpty ? "/" : String(rest.dropFirst(authority.count))
        var host = String(authority), port = "80"
        if let colon = authority.lastIndex(of: ":") {
            host = String(authority[..<colon])
            port = String(authority[authority.index(after: colon)...])
        }
        let deadline = MonotonicClock.now() + timeout
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var results: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, port, &hints, &results) == 0, let first = results else {
            throw Failure(description: "cannot resolve \(host)")
        }
        defer { freeaddrinfo(results) }
        let fd = socket(first.pointee.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        if connect(fd, first.pointee.ai_addr, first.pointee.ai_addrlen) != 0 && errno != EINPROGRESS {
            throw Failure(description: "connect: \(String(cString: strerror(errno)))")
        }
        try wait(fd, for: Int16(POLLOUT), until: deadline, doing: "connecting")
        var error: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length)
        guard error == 0 else { throw Failure(description: "connect: \(String(cString: strerror(error)))") }
        let request = Array("POST \(path) HTTP/1.1\r\nHost: \(authority)\r\nContent-Type: application/json\r\nContent-Length: \(body.count)\r\nConnection: close\r\nUser-Agent: vitrine/\(VitrineVersion.current)\r\n\r\n".utf8) + body
        var sent = 0
        while sent < request.count {
            try wait(fd, for: Int16(POLLOUT), until: deadline, doing: "sending")
            let count = request.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + sent, $0.count - sent, Int32(MSG_NOSIGNAL)) }
            if count < 0 && errno != EAGAIN { throw Failure(description: "send: \(String(cString: strerror(errno)))") }
            sent += max(count, 0)
        }
        var response: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1024)
        while !response.contains(0x0A) {
            try wait(fd, for: Int16(POLLIN), until: deadline, doing: "waiting for the answer")
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count == 0 { break }
            if count < 0 && errno != EAGAIN { throw Failure(description: "recv: \(String(cString: strerror(errno)))") }
            response += buffer.prefix(max(count, 0))
        }
        let statusLine = String(decoding: response.prefix { $0 != 0x0D && $0 != 0x0A }, as: UTF8.self)
        let parts = statusLine.split(separator: " ")
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/"), let status = Int(parts[1]) else {
            throw Failure(description: "not an HTTP answer: \"\(statusLine.prefix(60))\"")
        }
        return status
    }

    private static func wait(_ fd: Int32, for events: Int16, until deadline: MonotonicInstant, doing what: String) throws {
        let remaining = (deadline - MonotonicClock.now()).nanoseconds / 1_000_000
        guard remaining > 0 else { throw Failure(description: "timed out \(what)") }
        var descriptor = pollfd(fd: fd, events: events, revents: 0)
        let ready = poll(&descriptor, 1, Int32(min(remaining, Int64(Int32.max))))
        if ready == 0 { throw Failure(description: "timed out \(what)") }
        if ready < 0 && errno != EINTR { throw Failure(description: "poll: \(String(cString: strerror(errno)))") }
    }
}
